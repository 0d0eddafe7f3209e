// `seed demo --quick` end to end, as a user runs it: a child process on a fresh output folder
// (Stage 0 and Stage 1 built from nothing), within the 3-minute budget; then its summary.json,
// its report in headless Chromium, `seed eval` of the trained SEED checkpoint on all 140 real
// valid_seen games, and a second run that resumes instead of retraining.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { REPORT_PROBE, visitPage } from "./report-browser.ts";

const ROOT = resolve(import.meta.dirname, "..");
const SEED_BIN = join(ROOT, "bin", "seed.js");
const ALFWORLD = resolve(ROOT, "../shared/data/alfworld");

type Est = { mean: number; low: number; high: number; n: number; interval: string };

test("seed demo --quick: stages, SEED and GRPO, evaluation, report and verdict in under 3 minutes", { timeout: 600_000 }, async (t) => {
  const out = mkdtempSync(join(tmpdir(), "seed-demo-"));
  try {
    const t0 = performance.now();
    const run = spawnSync(process.execPath, [SEED_BIN, "demo", "--quick", "--generated", "--out", out], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(run.status, 0, `demo failed:\n${run.stderr.slice(-3000)}`);
    assert.ok(seconds < 180, `seed demo --quick took ${seconds.toFixed(0)} s (budget 180 s)`);
    t.diagnostic(`seed demo --quick: ${seconds.toFixed(1)} s`);

    // The end of stdout: the report path, then the three verdict lines.
    const lines = run.stdout.trim().split("\n").filter((l) => l.trim() !== "");
    assert.match(lines.find((l) => l.startsWith("report: ")) ?? "", new RegExp(`report: ${out}/report\\.html`));
    const verdict = lines.slice(-3);
    assert.match(verdict[0]!, /^ALFWorld seen \(16 games, macro success %\): SEED .* vs GRPO .*; SEED − GRPO = [+−]\d/);
    assert.match(verdict[1]!, /^ALFWorld unseen \(16 games/);
    assert.match(verdict[2]!, /^Verdict: .*paired bootstrap over the 16 evaluation games \(1 training seed/);
    // Progress bars and the stage announcements went to stderr.
    for (const s of ["stage0", "stage1", "train seed", "train grpo", "eval SEED s1 valid_seen", "seed demo ["]) assert.ok(run.stderr.includes(s), `no '${s}' progress on stderr`);

    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
      demo: string; report: string; verdict: string[];
      methods: { name: string; preset: string; seeds: number[]; metrics: Record<string, { values: Record<string, Est> }>; seconds_per_update: Record<string, number>; wallclock_ratio_vs_grpo: number | null }[];
      comparisons: { split: string; against: string; difference: { value: number; low: number; high: number }; interval_over: string }[];
      stages: { stage0: { seconds: number } | null; stage1: { acceptanceRate: number } | null };
    };
    assert.equal(summary.demo, "quick");
    // Vanilla is the base untrained: the before-training row, evaluated like the others, no updates.
    assert.deepEqual(summary.methods.map((m) => [m.name, m.preset, m.seeds]), [["SEED", "seed", [1]], ["GRPO", "grpo", [1]], ["Vanilla", "vanilla", [1]]]);
    assert.match(verdict[0]!, /, before training \d/);
    assert.match(verdict[2]!, /; against no training \(Vanilla\): /);
    for (const m of summary.methods) {
      for (const split of ["valid_seen", "valid_unseen"]) {
        const all = m.metrics[split]!.values["All"]!;
        assert.ok(all.low <= all.mean && all.mean <= all.high && all.n === 16, `${m.name} ${split}: ${JSON.stringify(all)}`);
        for (const type of ["Pick", "Look", "Clean", "Heat", "Cool", "Pick2"]) assert.ok(type in m.metrics[split]!.values);
      }
      if (m.preset !== "vanilla") assert.ok(m.seconds_per_update["total"]! > 0 && m.seconds_per_update["rollout"]! > 0);
    }
    assert.ok(summary.methods[0]!.seconds_per_update["analyze"]! > 0, "SEED's analyzer stage is timed");
    assert.ok(summary.methods[0]!.wallclock_ratio_vs_grpo! > 0);
    assert.deepEqual(summary.comparisons.map((c) => [c.split, c.against]), [["valid_seen", "GRPO"], ["valid_unseen", "GRPO"], ["valid_seen", "Vanilla"], ["valid_unseen", "Vanilla"]]);
    for (const c of summary.comparisons) assert.ok(c.difference.low <= c.difference.value && c.difference.value <= c.difference.high);
    assert.ok(summary.stages.stage0 !== null && summary.stages.stage1 !== null, "the report found the Stage-0/1 reports of the base");
    assert.deepEqual(summary.verdict, verdict);

    // The report in a real browser.
    const shots = join(ROOT, "out", "test-artifacts");
    mkdirSync(shots, { recursive: true });
    const visit = await visitPage<{ plots: { id: string; points: number; series: number[] }[]; h2: string[]; trajectories: number; external: number }>(join(out, "report.html"), REPORT_PROBE, join(shots, "demo-quick-report.png"));
    assert.deepEqual(visit.errors, []);
    assert.ok(visit.probe.plots.length >= 6, `only ${visit.probe.plots.length} plots`);
    for (const p of visit.probe.plots) assert.ok(p.points > 0 && p.series.every((n) => n > 0), `plot ${p.id} lacks data`);
    for (const h of ["Results", "Training curves", "Compute and tie rate", "Stages 0 and 1", "Sample trajectories"]) assert.ok(visit.probe.h2.includes(h), `section ${h} missing`);
    assert.ok(visit.probe.trajectories > 0);
    assert.equal(visit.probe.external, 0);

    // seed eval of the trained SEED run on every real valid_seen game.
    if (existsSync(ALFWORLD)) {
      const ev = spawnSync(process.execPath, [SEED_BIN, "eval", "--checkpoint", join(out, "runs", "seed", "s1"), "--env", "alfworld", "--data", ALFWORLD, "--split", "valid_seen", "--json"], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
      assert.equal(ev.status, 0, ev.stderr.slice(-2000));
      const r = JSON.parse(ev.stdout) as { episodes: number; per_type: Record<string, { success: number; games: number }>; macro_average: number; update: number };
      assert.equal(r.episodes, 140);
      assert.deepEqual(Object.keys(r.per_type), ["Pick", "Look", "Clean", "Heat", "Cool", "Pick2"]);
      assert.equal(Object.values(r.per_type).reduce((s, x) => s + x.games, 0), 140);
      const macro = Object.values(r.per_type).reduce((s, x) => s + x.success, 0) / 6;
      assert.ok(Math.abs(r.macro_average - macro) < 1e-12);
      assert.equal(r.update, 2, "the newest checkpoint of the run");
    }

    // Again on the same folder: everything is reused, nothing retrains.
    const again = spawnSync(process.execPath, [SEED_BIN, "demo", "--quick", "--generated", "--out", out, "--quiet"], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
    assert.equal(again.status, 0, again.stderr.slice(-2000));
    assert.doesNotMatch(again.stderr, /^train /m, "a finished run is not retrained");
    assert.deepEqual(again.stdout.trim().split("\n").slice(-3), verdict, "same results on resume");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("seed demo: bad options are one-line usage errors", () => {
  const r = spawnSync(process.execPath, [SEED_BIN, "demo", "--seeds", "x"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^seed demo: --seeds expects non-negative integers/);
  const empty = mkdtempSync(join(tmpdir(), "seed-demo-nodata-"));
  try {
    const d = spawnSync(process.execPath, [SEED_BIN, "demo", "--quick", "--data", empty, "--out", join(empty, "out")], { cwd: ROOT, encoding: "utf8" });
    assert.equal(d.status, 2);
    assert.match(d.stderr, new RegExp(`^seed demo: --data ${empty} does not hold the ALFWorld games`));
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
  const both = spawnSync(process.execPath, [SEED_BIN, "demo", "--data", ALFWORLD, "--generated"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(both.status, 2);
  assert.match(both.stderr, /^seed demo: --data and --generated exclude each other/);
  const e = spawnSync(process.execPath, [SEED_BIN, "experiment", "no-such"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(e.status, 2);
  assert.match(e.stderr, /^seed experiment: unknown experiment 'no-such'; presets: /);
});
