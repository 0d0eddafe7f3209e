// What a new loss term and a new advantage estimator cost: one function, one catalogue entry and
// one preset, with no edit to the config type, the validation, the trainer or its stages. Each
// toy is registered here exactly that way and then runs through the real trainer (tiny model),
// whose per-term weights show that the plan, not a branch, decided what ran.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { segmentMask } from "../src/math/batch.ts";
import { estimator } from "../src/math/estimators.ts";
import { catalogueTerm, lossTerms } from "../src/math/losses.ts";
import { builtinCatalogue, describeMethod, planMethod, type MethodCatalogue } from "../src/config/method.ts";
import { CONFIG_DIR, resolveConfig } from "../src/config/presets.ts";
import type { MiniBatchTrace } from "../src/train/context.ts";
import { train } from "../src/train/trainer.ts";
import { TEST_CACHE, tempDir } from "./train-helpers.ts";

// 1. The function: push every sampled token up, −(1/n)·Σ m_t·ℓ_θ[t] (token-mean over the mask).
const pushUp = catalogueTerm([], () => "L_push", (x) => {
  const mask = segmentMask(x.batch);
  let n = 0, value = 0;
  for (let t = 0; t < mask.length; t++) if (mask[t] === 1) n++;
  const dLogprobs = new Float64Array(mask.length);
  for (let t = 0; t < mask.length; t++) {
    if (mask[t] !== 1) continue;
    value -= x.policyLogprobs[t]! / n;
    dLogprobs[t] = -1 / n;
  }
  return { value, dLogprobs, metrics: { "push/tokens": n } };
});

// 1'. The estimator: advantage 1 on every trained token, whatever the group did.
const ones = estimator({ needsTeacher: false, symbol: () => "1" }, (x) => segmentMask(x.batch));

// 2. The map entries.
const catalogue: MethodCatalogue = {
  terms: { ...lossTerms, push: pushUp },
  advantages: { ...builtinCatalogue.advantages, ones },
};

// 3. The presets, each in a preset folder of its own (with the quick overlay beside it).
const METHOD = { policy: { sft: false }, kl: { coef: 0 }, opd: { coef: 0 }, skills: { teacher: "none" } };
const PRESETS: Record<string, object> = {
  "toy-term": { name: "toy-term", summary: "GRPO plus a push-up term", config: { ...METHOD, loss: { terms: { push: 0.5 } } } },
  "toy-advantage": { name: "toy-advantage", summary: "the policy gradient on advantage 1", config: { ...METHOD, pg: { coef: 1, advantage: "ones" } } },
};

function presetDir(name: string): string {
  const dir = tempDir("toy-presets");
  mkdirSync(join(dir, "modes"));
  copyFileSync(join(CONFIG_DIR, "modes", "quick.json"), join(dir, "modes", "quick.json"));
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(PRESETS[name]));
  return dir;
}

// Tied groups (one step per episode: nobody wins), so GRPO's own weights are exactly 0.
const TINY = ["--run.updates=1", "--rollout.groupSize=2", "--run.samplesPerUpdate=1", "--env.maxSteps=1", "--update.miniBatches=1"];

async function traceOf(preset: string, dir: string): Promise<MiniBatchTrace> {
  const config = resolveConfig({ preset, dir, quick: true, catalogue, overrides: TINY });
  const traces: MiniBatchTrace[] = [];
  await train(config, { runDir: tempDir(preset), cacheDir: TEST_CACHE, quiet: true, catalogue, onMiniBatch: (t) => traces.push(t) });
  assert.equal(traces.length, 1);
  return traces[0]!;
}

function trainedCount(lossMask: ArrayLike<number>): number {
  let n = 0;
  for (let t = 0; t < lossMask.length; t++) if (lossMask[t] === 1) n++;
  return n;
}

test("a toy loss term: one function, one catalogue entry, one preset; the trainer runs it", async () => {
  const dir = presetDir("toy-term");
  assert.throws(() => resolveConfig({ preset: "toy-term", dir }), /loss\.terms\.push: unknown loss term 'push'/);
  const config = resolveConfig({ preset: "toy-term", dir, catalogue });
  const plan = planMethod(config, catalogue);
  assert.deepEqual(plan.terms.map((t) => [t.name, t.coef]), [["policy-gradient", 1], ["push", 0.5]]);
  assert.match(describeMethod(plan), /^L = 1·L_pg\(.*\)\[A: GRPO\] \+ 0\.5·L_push$/);

  const { termWeights, weights, lossMask } = await traceOf("toy-term", dir);
  const n = trainedCount(lossMask);
  assert.ok(n > 0);
  for (let t = 0; t < lossMask.length; t++) {
    assert.equal(termWeights["policy-gradient"]![t], 0, "tied groups: no RL weight");
    assert.equal(termWeights["push"]![t], lossMask[t] === 1 ? 0.5 * (-1 / n) : 0);
    assert.equal(weights[t], termWeights["push"]![t]);
  }
});

test("a toy advantage estimator: one function, one map entry, one preset; the policy gradient reads it", async () => {
  const dir = presetDir("toy-advantage");
  assert.throws(() => resolveConfig({ preset: "toy-advantage", dir }), /pg\.advantage: expected one of grpo, rlsd; got 'ones'/);
  const plan = planMethod(resolveConfig({ preset: "toy-advantage", dir, catalogue }), catalogue);
  assert.equal(plan.advantage.name, "ones");
  assert.equal(plan.teacher, null);
  assert.match(describeMethod(plan), /\[A: 1\]$/);

  // With advantage 1 and ratio 1 (the first mini-batch), the clipped surrogate's weight is −1/n.
  const { termWeights, lossMask } = await traceOf("toy-advantage", dir);
  const n = trainedCount(lossMask);
  assert.ok(n > 0);
  for (let t = 0; t < lossMask.length; t++) assert.equal(termWeights["policy-gradient"]![t], lossMask[t] === 1 ? -1 / n : 0);
});
