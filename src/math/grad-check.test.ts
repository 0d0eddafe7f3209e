// Every loss's gradient against central finite differences, on seeded random
// inputs, under every aggregation mode. Stop-gradient quantities (the OPD gate) are computed once
// from the unperturbed log-probs and held fixed, exactly as the analytic gradient holds them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gradCheck } from "../testing/grad-check.ts";
import { Rng } from "../core/rng.ts";
import { aggregations, type AggregationMode, type AggregationSpec } from "./aggregate.ts";
import type { StepBatch, TokenLoss } from "./batch.ts";
import { clippedPolicyLoss } from "./policy-loss.ts";
import { klEstimators, klPenalty, type KlEstimatorName } from "./kl.ts";
import { distillationGates, gatedDistillation } from "./distill.ts";
import { skillSdLoss } from "./skill-sd.ts";
import { nllLoss } from "./sft.ts";
import { combineLosses } from "./losses.ts";

const TOL = 1e-6;
const modes = Object.keys(aggregations) as AggregationMode[];
const spec = (mode: AggregationMode): AggregationSpec => ({ mode, normLength: 16 });

/** A seeded batch: segments with gaps between them and some prompt tokens (mask 0) inside. */
function randomBatch(rng: Rng): StepBatch & { n: number } {
  const segments = [];
  const mask: number[] = [];
  let t = 0;
  const rows = 2 + rng.int(4);
  for (let s = 0; s < rows; s++) {
    const gap = rng.int(3);
    for (let i = 0; i < gap; i++, t++) mask.push(rng.bernoulli(0.5) ? 1 : 0); // outside every segment: never trained
    const length = 1 + rng.int(6);
    segments.push({ start: t, length });
    for (let i = 0; i < length; i++, t++) mask.push(i < 1 && rng.bernoulli(0.3) ? 0 : 1);
  }
  return { segments, lossMask: mask, n: t };
}

/** Mask restricted to segments, which is what the losses train. */
function trainedMask(batch: StepBatch): number[] {
  const m = new Array<number>(batch.lossMask.length).fill(0);
  for (const seg of batch.segments) for (let t = seg.start; t < seg.start + seg.length; t++) m[t] = batch.lossMask[t]!;
  return m;
}

/** A draw in [lo, hi] that stays at least `margin` from every kink (clip and clamp boundaries). */
function awayFrom(rng: Rng, lo: number, hi: number, kinks: readonly number[], margin = 1e-3): number {
  for (;;) {
    const x = lo + (hi - lo) * rng.float();
    if (kinks.every((k) => Math.abs(x - k) > margin)) return x;
  }
}

function check(name: string, loss: (lp: Float64Array) => TokenLoss, lp: ArrayLike<number>, batch: StepBatch): void {
  const r = gradCheck(loss, lp, trainedMask(batch));
  assert.ok(r.probed > 0, `${name}: nothing probed`);
  assert.deepEqual(r.maskViolations, [], `${name}: non-zero gradient where the mask is 0`);
  assert.ok(r.maxError < TOL, `${name}: error ${r.maxError} at ${r.worstIndex} (analytic ${r.analytic}, numeric ${r.numeric})`);
}

function logprobs(rng: Rng, n: number): Float64Array {
  return Float64Array.from({ length: n }, () => -0.01 - 4 * rng.float());
}

test("clipped policy loss (dual clip on and off): gradient equals finite differences", () => {
  for (let trial = 0; trial < 12; trial++) {
    const rng = Rng.from(100 + trial);
    const batch = randomBatch(rng);
    const lp = logprobs(rng, batch.n);
    // log-ratios spread over every branch, away from log(0.8), log(1.2), log(3)
    const old = lp.map((x) => x - awayFrom(rng, -2, 2, [Math.log(0.8), Math.log(1.2), Math.log(3)]));
    const adv = Float64Array.from({ length: batch.n }, () => (rng.bernoulli(0.15) ? 0 : 3 * rng.normal()));
    for (const mode of modes) {
      for (const dual of [3, null]) {
        check(`pg ${mode} dual=${dual}`, (x) => clippedPolicyLoss({ batch, policyLogprobs: x, oldLogprobs: old, advantages: adv, clip: { dual }, aggregation: spec(mode) }), lp, batch);
      }
    }
  }
});

test("KL estimators k1, abs, k2, k3 (clamped and not): gradient equals finite differences", () => {
  for (let trial = 0; trial < 8; trial++) {
    const rng = Rng.from(200 + trial);
    const batch = randomBatch(rng);
    const lp = logprobs(rng, batch.n);
    // x = l_ref − l_theta across both k3 clamps, away from them and from 0 (the kink of abs)
    const ref = lp.map((x) => x + awayFrom(rng, -13, 4, [-10.999983, 0, 2.610869]));
    for (const estimator of Object.keys(klEstimators) as KlEstimatorName[]) {
      for (const mode of modes) {
        check(`kl ${estimator} ${mode}`, (x) => klPenalty({ batch, policyLogprobs: x, referenceLogprobs: ref, estimator, aggregation: spec(mode) }), lp, batch);
      }
    }
  }
});

test("gated distillation (SEED/SDAR, beta 0, 5, 20; skill masks; both denominators): gradient equals finite differences with the gate held fixed", () => {
  for (let trial = 0; trial < 8; trial++) {
    const rng = Rng.from(300 + trial);
    const batch = randomBatch(rng);
    const lp = logprobs(rng, batch.n);
    const teacher = lp.map((x) => x + 1.5 * rng.normal());
    const skillValid = batch.segments.map(() => (rng.bernoulli(0.7) ? 1 : 0));
    for (const beta of [0, 5, 20]) {
      const gates = distillationGates(batch, lp, teacher, beta);
      for (const denominator of ["response", "active"] as const) {
        for (const mode of modes) {
          check(`opd beta=${beta} ${denominator} ${mode}`, (x) =>
            gatedDistillation({ batch, policyLogprobs: x, teacherLogprobs: teacher, skillValid, opd: { beta, denominator }, aggregation: spec(mode), detached: { gates } }), lp, batch);
        }
      }
    }
  }
});

test("without holding the gate fixed the probe disagrees: the OPD gradient is not the derivative of its printed value", () => {
  const rng = Rng.from(42);
  const batch = randomBatch(rng);
  const lp = logprobs(rng, batch.n);
  const teacher = lp.map((x) => x + 0.2 * rng.normal());
  const r = gradCheck((x) => gatedDistillation({ batch, policyLogprobs: x, teacherLogprobs: teacher }), lp, trainedMask(batch));
  assert.ok(r.maxError > 1e-3, `expected a mismatch, got ${r.maxError}`);
});

test("Skill-SD (no clamp, the ratio clamp, the k3 clamp): gradient equals finite differences", () => {
  // One regime per batch: a clamped token's value (up to e^20) would drown the finite differences
  // of the others in rounding error.
  const regimes = {
    open: { logRatio: [-2, 2], minusD: [-3, 3] },
    rhoClamped: { logRatio: [10.001, 11], minusD: [-3, 3] },
    k3Clamped: { logRatio: [-1, 0], minusD: [20.001, 21] },
  } as const;
  for (const [name, regime] of Object.entries(regimes)) {
    for (let trial = 0; trial < 4; trial++) {
      const rng = Rng.from(400 + trial);
      const batch = randomBatch(rng);
      const lp = logprobs(rng, batch.n);
      const old = lp.map((x) => x - awayFrom(rng, regime.logRatio[0], regime.logRatio[1], [10]));
      const teacher = lp.map((x) => x + awayFrom(rng, regime.minusD[0], regime.minusD[1], [20]));
      for (const mode of modes) {
        check(`skill-sd ${name} ${mode}`, (x) => skillSdLoss({ batch, policyLogprobs: x, oldLogprobs: old, teacherLogprobs: teacher, aggregation: spec(mode) }), lp, batch);
      }
    }
  }
});

test("SFT NLL: gradient equals finite differences", () => {
  for (let trial = 0; trial < 4; trial++) {
    const rng = Rng.from(500 + trial);
    const batch = randomBatch(rng);
    const lp = logprobs(rng, batch.n);
    for (const mode of modes) check(`nll ${mode}`, (x) => nllLoss({ batch, policyLogprobs: x, aggregation: spec(mode) }), lp, batch);
  }
});

test("the combined SEED objective (pg + kl + opd): gradient equals finite differences", () => {
  const rng = Rng.from(600);
  const batch = randomBatch(rng);
  const lp = logprobs(rng, batch.n);
  const oldLogprobs = lp.map((x) => x - awayFrom(rng, -0.5, 0.5, [Math.log(0.8), Math.log(1.2)]));
  const referenceLogprobs = lp.map((x) => x + awayFrom(rng, -2, 2, [0]));
  const teacherLogprobs = lp.map((x) => x + rng.normal());
  const advantages = Float64Array.from({ length: batch.n }, () => rng.normal());
  const gates = distillationGates(batch, lp, teacherLogprobs, 5);
  const terms = [{ name: "policy-gradient", coef: 1 }, { name: "kl", coef: 0.01 }, { name: "opd", coef: 0.01 }] as const;
  check("seed", (x) => combineLosses(terms, { batch, policyLogprobs: x, oldLogprobs, referenceLogprobs, teacherLogprobs, advantages, detached: { gates } }), lp, batch);
});

test("gradCheck catches a wrong gradient and a gradient leaking outside the mask", () => {
  const batch = { segments: [{ start: 0, length: 3 }], lossMask: [1, 1, 0] };
  const lp = [-1, -2, -3];
  const wrong = gradCheck((x) => {
    const out = nllLoss({ batch, policyLogprobs: x });
    out.dLogprobs[0] = out.dLogprobs[0]! * 2;
    return out;
  }, lp, batch.lossMask);
  assert.ok(wrong.maxError > 0.1);
  const leak = gradCheck((x) => {
    const out = nllLoss({ batch, policyLogprobs: x });
    out.dLogprobs[2] = 1e-9;
    return out;
  }, lp, batch.lossMask);
  assert.deepEqual(leak.maskViolations, [2]);
});
