// Properties of the real update loop (tiny model, tiny generated games, the real trainer):
// Prop. 2 — in a batch of all-tied groups the policy-gradient weights are exactly zero while the
// distillation weights are not; `live` and `frozen` teacher scoring give bit-identical weights
// with one mini-batch per update (and different ones with two, so the check can fail); the
// distillation term moves the parameters where GRPO alone cannot; the NaN guard skips and stops.
import { test } from "node:test";
import assert from "node:assert/strict";
import { train } from "../src/train/trainer.ts";
import type { MiniBatchTrace } from "../src/train/context.ts";
import { TEST_CACHE, metricsLines, tempDir, tinyConfig, weightBytes } from "./train-helpers.ts";
import { ensureBase } from "../src/train/pretrain/base.ts";
import { join } from "node:path";
import { SeedError } from "../src/core/errors.ts";
import { loadCheckpoint, saveCheckpoint } from "../src/model/checkpoint.ts";

// One step per episode: nobody can win a generated game in one action, so every group ties.
// The teacher reads the static library (always a valid skill); the tiny quick model cannot yet
// write parseable skills itself, which would mask the distillation term (v_τ = 0).
const TIED = ["--env.maxSteps=1", "--skills.teacher=library"];

test("Prop. 2 in the trainer: all-tied groups give zero RL weights and non-zero OPD weights", async () => {
  const traces: MiniBatchTrace[] = [];
  const config = tinyConfig("seed", TIED);
  const runDir = tempDir("prop2");
  await train(config, { runDir, cacheDir: TEST_CACHE, quiet: true, onMiniBatch: (t) => traces.push(t) });
  const [line] = metricsLines(runDir);
  assert.equal(line!["tie_rate"], 1);
  assert.equal(line!["skill_valid_rate"], 1);
  assert.equal(traces.length, 1);
  const { termWeights, lossMask } = traces[0]!;
  const pg = termWeights["policy-gradient"]!;
  const opd = termWeights["opd"]!;
  let trained = 0, opdNonZero = 0;
  for (let t = 0; t < pg.length; t++) {
    assert.equal(pg[t], 0, `policy-gradient weight at token ${t}`);
    if (lossMask[t] === 1) {
      trained++;
      if (opd[t] !== 0) opdNonZero++;
      assert.ok(opd[t]! < 0, "every sampled token is pushed up (negative loss weight)");
    }
  }
  assert.ok(trained > 0);
  assert.equal(opdNonZero, trained);
});

test("GRPO alone cannot move tied groups; the distillation term does", async () => {
  const noDecay = ["--optim.weightDecay=0"];
  const grpo = tinyConfig("grpo", [...TIED, ...noDecay, "--kl.coef=0"]);
  const init = await ensureBase(grpo, { cacheDir: TEST_CACHE, quiet: true });
  const g = await train(grpo, { runDir: tempDir("tied-grpo"), cacheDir: TEST_CACHE, quiet: true });
  assert.equal(Buffer.compare(weightBytes(init), weightBytes(g.policyDir)), 0, "GRPO on tied groups: no gradient, no change");
  const sdar = tinyConfig("sdar", [...TIED, ...noDecay, "--kl.coef=0"]);
  const s = await train(sdar, { runDir: tempDir("tied-sdar"), cacheDir: TEST_CACHE, quiet: true });
  const base = await ensureBase(sdar, { cacheDir: TEST_CACHE, quiet: true });
  assert.notEqual(Buffer.compare(weightBytes(base), weightBytes(s.policyDir)), 0, "the distillation term moved the parameters");
});

test("live and frozen teacher scoring give identical weights with one mini-batch, different ones with two", async () => {
  const run = async (scoring: string, miniBatches: number) => {
    const config = tinyConfig("seed", ["--skills.teacher=library", `--opd.teacherScoring=${scoring}`, `--update.miniBatches=${miniBatches}`, "--opd.coef=1"]);
    const r = await train(config, { runDir: tempDir(`teacher-${scoring}-${miniBatches}`), cacheDir: TEST_CACHE, quiet: true });
    return weightBytes(r.policyDir);
  };
  assert.equal(Buffer.compare(await run("live", 1), await run("frozen", 1)), 0, "one mini-batch: bit-identical");
  assert.notEqual(Buffer.compare(await run("live", 2), await run("frozen", 2)), 0, "two mini-batches: the live teacher sees the first step");
});

test("NaN guard: non-finite losses skip the step and are logged; repeated ones stop training with a clear error", async () => {
  // A reference checkpoint that went bad between two sessions: the resumed run's KL term is NaN.
  const base = await ensureBase(tinyConfig("sdar"), { cacheDir: TEST_CACHE, quiet: true });
  const initDir = join(tempDir("nan-init"), "model");
  const ck = loadCheckpoint(base);
  saveCheckpoint(initDir, { config: ck.config, params: ck.params, tokenizer: ck.tokenizer! });
  const runDir = tempDir("nan-run");
  const args = [`--policy.init=${initDir}`, "--skills.teacher=library", "--run.maxBadUpdates=2"];
  await train(tinyConfig("sdar", [...args, "--run.updates=1"]), { runDir, quiet: true });
  // Finite but huge (a NaN weight is refused at load, naming the file): the KL term overflows.
  ck.params.get("model.norm.weight").fill(3e38);
  saveCheckpoint(initDir, { config: ck.config, params: ck.params, tokenizer: ck.tokenizer! });
  await assert.rejects(train(tinyConfig("sdar", [...args, "--run.updates=5"]), { runDir, quiet: true }), (e: Error) => e instanceof SeedError && /2 consecutive updates \(the last: 3\)/.test(e.message));
  const lines = metricsLines(runDir);
  assert.deepEqual(lines.map((l) => l["update"]), [1, 2, 3]);
  assert.equal(lines[0]!["guard/nonfinite"], 0);
  assert.ok((lines[1]!["guard/nonfinite"] as number) > 0 && (lines[2]!["guard/nonfinite"] as number) > 0);
  assert.deepEqual(lines.map((l) => l["guard/bad_updates"]), [0, 1, 2]);
});
