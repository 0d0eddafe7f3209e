// `seed demo --quick` where the ALFWorld data is present: the real-games variant, as a user runs
// it from the repository root. Stage 0 is the shipped real-room base (never rebuilt), Stage 1 runs
// from it, SEED, GRPO and the untrained base play real train games and are evaluated on a fixed
// seeded panel of real valid games, each run with its own evaluation seed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";

const ROOT = resolve(import.meta.dirname, "..");
const SEED_BIN = join(ROOT, "bin", "seed.js");
const ALFWORLD = resolve(ROOT, "../shared/data/alfworld");

type Record_ = { episodes: number; task_ids: string[]; settings: { seed: number; data: string; panelSeed?: number }; panel: { seed: number | null } };

test("seed demo --quick on the real games: the shipped base, Stage 1 from it, a before-training row, one evaluation draw per seed", { timeout: 900_000, skip: !existsSync(ALFWORLD) && "no ALFWorld data at ../shared/data/alfworld" }, () => {
  const out = mkdtempSync(join(tmpdir(), "seed-demo-real-"));
  try {
    const run = spawnSync(process.execPath, [SEED_BIN, "demo", "--quick", "--seeds", "1,2", "--out", out], { cwd: ROOT, encoding: "utf8", timeout: 600_000 });
    assert.equal(run.status, 0, `demo failed:\n${run.stderr.slice(-3000)}`);
    assert.match(run.stderr, /\[demo\] real ALFWorld games from .*shared\/data\/alfworld; Stage 0 is the shipped base .*assets\/bases\/alfworld-real\/model/);
    const verdict = run.stdout.trim().split("\n").filter((l) => l.trim() !== "").slice(-3);
    assert.match(verdict[0]!, /^ALFWorld seen, real games \(8 games, macro success %\): SEED .* vs GRPO .*, before training \d/);
    assert.match(verdict[1]!, /^ALFWorld unseen, real games \(8 games/);
    assert.match(verdict[2]!, /^Verdict: .*; against no training \(Vanilla\): .*paired bootstrap over the 8 evaluation games of 2 seeds/);

    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { experiment: string; games: string; methods: { name: string; seeds: number[] }[] };
    assert.equal(summary.experiment, "demo-real-quick");
    assert.equal(summary.games, "real");
    assert.deepEqual(summary.methods.map((m) => [m.name, m.seeds]), [["SEED", [1, 2]], ["GRPO", [1, 2]], ["Vanilla", [1, 2]]]);
    // Stage 0 was the shipped base: only Stage 1 was built in the cache.
    const cache = readdirSync(join(out, "cache"));
    assert.deepEqual(cache.filter((n) => n.startsWith("stage0-")), []);
    assert.equal(cache.filter((n) => n.startsWith("stage1-")).length, 1);
    assert.ok(readFileSync(join(out, "report.html"), "utf8").includes("on the real ALFWorld games"));

    // The same seeded panel of real games for every run; each seed draws its own evaluation.
    const rec = (arm: string, seed: number, split: string) => JSON.parse(readFileSync(join(out, "runs", arm, `s${seed}`, "eval", `${split}.json`), "utf8")) as Record_;
    for (const split of ["valid_seen", "valid_unseen"]) {
      const ids = rec("seed", 1, split).task_ids;
      assert.equal(ids.length, 8);
      assert.ok(ids.every((id) => !id.startsWith("generated/")), `real games: ${ids[0]}`);
      for (const arm of ["seed", "grpo", "vanilla"]) for (const seed of [1, 2]) {
        const r = rec(arm, seed, split);
        assert.deepEqual(r.task_ids, ids, `${arm} s${seed} ${split}: the same panel`);
        assert.equal(r.settings.seed, seed, "the run's own evaluation seed");
        assert.equal(r.settings.data, ALFWORLD);
        assert.equal(r.panel.seed, 0, "a seeded panel, not the first games by id");
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
