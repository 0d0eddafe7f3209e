// The HTML report in a real headless Chromium: it renders, every plot has data, there are no
// console errors, and the gates colour exactly the sampled tokens. Input: an experiment folder
// written here in the trainer's run-directory format (config.json from the real preset resolver,
// metrics.jsonl lines with the trainer's keys, samples with skills and per-token gates, a
// checkpoint tokenizer trained here), three seeds of two arms, evaluation records and a
// gate-value analysis. The demo test renders a report from real training runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { resolveConfig } from "../src/config/presets.ts";
import { trainBpe } from "../src/model/tokenizer/train.ts";
import { tokenizerJsonText } from "../src/model/tokenizer/hf-json.ts";
import { breakdown } from "../src/eval/breakdown.ts";
import { alfworldGeneratedTasks } from "../src/envs/alfworld/index.ts";
import { gatePieces } from "../src/eval/report-parts.ts";
import { readExperiment } from "../src/eval/experiment-results.ts";
import { reportFor, writeReport } from "../src/eval/report.ts";
import { REPORT_PROBE, visitPage } from "./report-browser.ts";

const ROOT = resolve(import.meta.dirname, "..");
const ARTIFACTS = join(ROOT, "out", "test-artifacts");
const HOSTILE = `<script>console.error("injected")</script><img src=x onerror=alert(1)>`;

const RESPONSES = ["<think>the mug is on the desk</think><action>go to desk 1</action>", "<think>take it</think><action>take mug 1 from desk 1</action>"];

/** One run directory as the trainer writes it. */
function writeRun(dir: string, preset: "seed" | "grpo", seed: number, tokenizerJson: string, tokenCounts: number[]): void {
  const config = resolveConfig({ preset, quick: true, overrides: [`--run.seed=${seed}`, "--run.updates=4"] });
  mkdirSync(join(dir, "samples"), { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config, null, 2));
  const lines = [1, 2, 3, 4].map((u) => {
    const success = 0.1 * u + 0.02 * seed + (preset === "seed" ? 0.05 : 0);
    const line: Record<string, unknown> = {
      update: u, success_rate: success, tie_rate: 1 - success, seconds: { rollout: 1.5, analyze: preset === "seed" ? 0.8 : 0, update: 1, total: preset === "seed" ? 3.3 : 2.5 },
      "reward/mean": 10 * success, "episode/turns_mean": 20 - 2 * u, "episode/valid_frac": 0.8, "time/rollout_s": 1.5, "time/update_s": 1,
    };
    if (preset === "seed") Object.assign(line, { gate_mean: 0.5 + 0.02 * u, skill_valid_rate: 0.9, "opd/gate_std": 0.1, "opd/active_frac": 0.6, "time/analyze_s": 0.8 });
    return JSON.stringify(line);
  });
  // A torn last line (a run being written) must be skipped, not crash the report.
  writeFileSync(join(dir, "metrics.jsonl"), lines.join("\n") + "\n{\"update\": 5, \"succ");
  const sample = (member: number, success: boolean) => JSON.stringify({
    envId: "alfworld", taskId: "generated/0/train/3", groupIndex: 0, memberIndex: member, seed: 1, historyMode: "full", task: `put a mug in desk. ${HOSTILE}`,
    turns: RESPONSES.map((r, i) => ({ promptText: "p", observation: i === 0 ? `You are in the middle of a room. ${HOSTILE}` : "You arrive at desk 1.", responseText: r, actionText: "a", valid: true, reward: 0, masked: false })),
    return: success ? 10 : 0, success, score: success ? 1 : 0, endedBy: "terminated", timings: { sampleSeconds: 0, envSeconds: 0 },
    update: 4, skill: preset === "seed" ? `Find the mug first, then go to the desk. ${HOSTILE}` : "", skillValid: preset === "seed" ? 1 : 0,
    // One gate per sampled token: the response's tokens plus the end-of-turn token.
    gates: preset === "seed" ? tokenCounts.map((n, i) => Array.from({ length: n + 1 }, (_, j) => ((i + 1) * (j + 1) * 0.37) % 1)) : [[], []],
  });
  writeFileSync(join(dir, "samples", "update-000004.jsonl"), [sample(0, true), sample(1, false)].join("\n") + "\n");
  const ckpt = join(dir, "checkpoints", "update-000004", "policy");
  mkdirSync(ckpt, { recursive: true });
  writeFileSync(join(ckpt, "tokenizer.json"), tokenizerJson);
  writeFileSync(join(dir, "checkpoints", "update-000004", "trainer.json"), JSON.stringify({ formatVersion: 1, update: 4, init: join(dir, "no-such-base", "model") }));
  // Evaluation records: 24 generated games, outcomes from a seeded pattern.
  const tasks = alfworldGeneratedTasks("valid_seen", 24, { seed: 0 });
  const trajs = tasks.map((t, i) => ({ envId: "alfworld", taskId: t.id, groupIndex: i, memberIndex: 0, seed: 0, historyMode: "full" as const, task: "", turns: [], return: 0, success: (i * (seed + 2) + (preset === "seed" ? 1 : 0)) % 3 === 0, score: 0, endedBy: "terminated" as const, timings: { sampleSeconds: 0, envSeconds: 0 } }));
  const b = breakdown("alfworld", "valid_seen", tasks, trajs, seed);
  mkdirSync(join(dir, "eval"), { recursive: true });
  writeFileSync(join(dir, "eval", "valid_seen.json"), JSON.stringify({ ...b, success_rate: 0.3, mean_length: 12, valid_action_rate: 0.9, seconds: 3, update: 4, outcomes: trajs.map((t) => (t.success ? 1 : 0)) }));
  if (preset === "seed") {
    mkdirSync(join(dir, "analysis"), { recursive: true });
    const points = Array.from({ length: 40 }, (_, i) => [((i * 7) % 10) / 10, i % 2 === 0 ? 10 : 0, i % 2 === 0 ? 5 : -5]);
    const est = (v: number) => ({ value: v, low: v - 0.1, high: v + 0.1, n: 40, interval: "bootstrap" });
    writeFileSync(join(dir, "analysis", "gate-value.json"), JSON.stringify({
      split: "valid_seen", tasks: 5, trajectories: 40, successRate: 0.5, actions: 40, tokens: 400, skillValidRate: 1, beta: 5,
      gateVsReturn: { pearson: est(0.21), spearman: est(0.19) }, gateVsAdvantage: { pearson: est(0.12), spearman: est(null as unknown as number) },
      meanGate: { success: 0.61, failure: 0.44, all: 0.52 }, mixedGroups: 3, points, caveat: "hindsight caveat", seconds: 1, update: 4,
    }));
  }
}

test("report: a multi-seed experiment renders in headless Chromium with data in every plot and no console errors", async () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-report-"));
  try {
    const tokenizer = trainBpe([...RESPONSES, "You arrive at desk 1. put a mug in desk."].join("\n").repeat(20), { vocabSize: 300 });
    const counts = RESPONSES.map((r) => tokenizer.encode(r).length);
    for (const [arm, preset] of [["seed", "seed"], ["grpo", "grpo"]] as const) {
      for (const s of [1, 2, 3]) writeRun(join(dir, "runs", arm, `s${s}`), preset, s, tokenizerJsonText(tokenizer), counts);
    }
    writeFileSync(join(dir, "experiment.json"), JSON.stringify({
      name: "fixture", summary: "two arms, three seeds", question: "does it render?", table: "results", eval: { splits: ["valid_seen"] },
      arms: [{ name: "SEED", preset: "seed", dir: "seed" }, { name: "GRPO", preset: "grpo", dir: "grpo" }, { name: "LLM", preset: "seed", dir: "llm" }],
      runs: [{ arm: "LLM", seed: 1, skipped: "needs stage1.endpoint" }],
    }));
    const data = readExperiment(dir);
    assert.deepEqual(data.arms.map((a) => [a.name, a.runs.length, a.evals["valid_seen"]?.seeds]), [["SEED", 3, 3], ["GRPO", 3, 3], ["LLM", 0, undefined]]);
    assert.deepEqual(data.arms[2]!.skipped, ["needs stage1.endpoint"]);
    assert.equal(data.arms[0]!.runs[0]!.metrics.length, 4, "the torn metrics line is skipped");
    const html = reportFor(dir, { verdict: "line one\nline two\nline three" });
    assert.doesNotMatch(html, /<script|<img/i, "text from run directories is escaped");
    assert.match(html, /&lt;script&gt;/);
    const path = writeReport(dir, { verdict: "line one\nline two\nline three" });
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, "report-fixture.png");
    const visit = await visitPage<{ plots: { id: string; points: number; series: number[]; lines: number; width: number }[]; tables: number[]; trajectories: number; gated: number; external: number; h2: string[] }>(path, REPORT_PROBE, shot);
    assert.deepEqual(visit.errors, [], `console errors: ${visit.errors.join(" | ")}`);
    const p = visit.probe;
    const ids = p.plots.map((x) => x.id);
    for (const id of ["success_rate", "episode/turns_mean", "tie_rate", "gate_mean", "skill_valid_rate", "seconds", "gate-value"]) assert.ok(ids.includes(id), `plot ${id} missing (have ${ids.join(", ")})`);
    for (const plot of p.plots) {
      assert.ok(plot.points > 0 && plot.series.every((n) => n > 0), `plot ${plot.id} has an empty series: ${JSON.stringify(plot)}`);
      assert.ok(plot.lines > 0 && plot.width > 100, `plot ${plot.id} draws no line`);
    }
    assert.deepEqual(p.h2, ["Results", "Training curves", "Compute and tie rate", "Gates vs action value (Eq. 8)", "Sample trajectories", "Not run"]);
    assert.equal(p.external, 0, "the page loads nothing from outside");
    assert.ok(p.trajectories >= 2);
    // Every shown sample is a SEED one (they carry gates) and colours each response token and
    // the end-of-turn token of both turns.
    const perTrajectory = counts.reduce((a, n) => a + n + 1, 0);
    assert.equal(p.trajectories, 4);
    assert.equal(p.gated, p.trajectories * perTrajectory);
    assert.ok(readFileSync(shot).length > 10_000, "a real screenshot was written");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("report: gate pieces are exact token texts when the response re-encodes to the sampled length, proportional spans otherwise", () => {
  const tokenizer = trainBpe(RESPONSES.join("\n").repeat(10), { vocabSize: 290 });
  const ids = tokenizer.encode(RESPONSES[0]!);
  const exact = gatePieces(RESPONSES[0]!, [...ids.map((_, i) => i / ids.length), 0.9], tokenizer);
  assert.equal(exact.exact, true);
  assert.equal(exact.pieces.slice(0, -1).map((p) => p.text).join(""), RESPONSES[0]);
  assert.equal(exact.pieces.at(-1)!.text, "⏎");
  const approx = gatePieces("abcdefgh", [0.1, 0.2, 0.3, 0.4], null);
  assert.equal(approx.exact, false);
  assert.deepEqual(approx.pieces.map((p) => p.text), ["ab", "cd", "ef", "gh"]);
});

test("seed report prints the tables and writes the page; a folder without runs is a one-line usage error", () => {
  const empty = mkdtempSync(join(tmpdir(), "seed-report-empty-"));
  try {
    const r = spawnSync(process.execPath, [join(ROOT, "bin", "seed.js"), "report", empty], { encoding: "utf8", cwd: ROOT });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^seed report: .*holds no run directory and no experiment\.json\n$/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, "no stack trace");
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
