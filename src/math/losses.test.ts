import { test } from "node:test";
import assert from "node:assert/strict";
import { checkLossName, combineLosses, lossTerms, type LossName } from "./losses.ts";
import { grpoAdvantages, type AdvantageSample } from "./advantages.ts";
import { batchFromLengths, broadcastToTokens } from "./batch.ts";
import { Rng } from "../core/rng.ts";
import { ShapeError } from "../core/errors.ts";

test("Prop. 2: in a batch of all-tied groups the RL weights are exactly zero while the OPD weights are not", () => {
  const rng = Rng.from(77);
  // 4 groups × 8 trajectories × 1-3 steps; every group ties (all succeed or all fail).
  const samples: AdvantageSample[] = [];
  const lengths: number[] = [];
  for (let g = 0; g < 4; g++) {
    const R = g % 2 === 0 ? 10 : 0;
    for (let k = 0; k < 8; k++) {
      const steps = 1 + rng.int(3);
      for (let s = 0; s < steps; s++) {
        samples.push({ groupId: g, trajId: `${g}/${k}`, score: R, episodeReturn: R });
        lengths.push(2 + rng.int(5));
      }
    }
  }
  const adv = grpoAdvantages(samples);
  assert.equal(adv.tiedGroups, 4);
  assert.ok(adv.advantages.every((a) => a === 0));
  const batch = batchFromLengths(lengths);
  const n = batch.lossMask.length;
  const policyLogprobs = Float64Array.from({ length: n }, () => -3 * rng.float() - 0.05);
  const oldLogprobs = policyLogprobs.map((x) => x + 0.1 * rng.normal()); // a later mini-batch: r ≠ 1
  const teacherLogprobs = policyLogprobs.map((x) => x + rng.normal());
  const input = { batch, policyLogprobs, oldLogprobs, teacherLogprobs, advantages: broadcastToTokens(batch, adv.advantages) };
  const rl = combineLosses([{ name: "policy-gradient", coef: 1 }], input);
  assert.ok(rl.dLogprobs.every((d) => d === 0), "RL weights must be exactly zero");
  const opd = combineLosses([{ name: "opd", coef: 0.01 }], input);
  assert.ok(opd.dLogprobs.every((d) => d < 0), "every OPD weight is a non-zero push");
  // and the gates discriminate, so the OPD signal carries relative credit
  assert.ok(opd.metrics["opd/gate_std"]! > 0.1);
});

test("combined terms add coefficient-weighted values and weights; zero-coefficient terms need no inputs", () => {
  const batch = batchFromLengths([2]);
  const input = { batch, policyLogprobs: [-1, -2], oldLogprobs: [-1, -2], referenceLogprobs: [-1.5, -2], advantages: [1, 1] };
  const pg = lossTerms["policy-gradient"](input, { aggregation: { mode: "token-mean" }, clip: { low: 0.2, high: 0.2, dual: 3 }, kl: { estimator: "k3" }, opd: { beta: 5, denominator: "response" } });
  const both = combineLosses([{ name: "policy-gradient", coef: 1 }, { name: "kl", coef: 0.5 }, { name: "opd", coef: 0 }], input);
  const kl = combineLosses([{ name: "kl", coef: 1 }], input);
  assert.ok(Math.abs(both.value - (pg.value + 0.5 * kl.value)) < 1e-12);
  for (let t = 0; t < 2; t++) assert.ok(Math.abs(both.dLogprobs[t]! - (pg.dLogprobs[t]! + 0.5 * kl.dLogprobs[t]!)) < 1e-12);
  assert.equal(both.metrics["loss/total"], both.value);
  assert.ok("kl/mean" in both.metrics && "pg/clip_frac" in both.metrics && !("opd/gate_mean" in both.metrics));
});

test("a term whose input is missing says which input", () => {
  const batch = batchFromLengths([1]);
  assert.throws(() => combineLosses([{ name: "opd", coef: 0.01 }], { batch, policyLogprobs: [-1] }), (e: unknown) => e instanceof ShapeError && /'opd' needs teacherLogprobs/.test(e.message));
});

test("loss names from strings: valid ones pass, unknown ones list the catalogue", () => {
  const names = Object.keys(lossTerms) as LossName[];
  for (const name of names) assert.deepEqual(checkLossName(name), { ok: true, value: name });
  const bad = checkLossName("gated-opd", "method.terms[2]");
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.equal(bad.error.path, "method.terms[2]");
    assert.match(bad.error.message, /unknown loss term 'gated-opd'; valid: policy-gradient, kl, opd, skill-sd, nll/);
  }
});

test("a misspelt name in TypeScript does not compile (checked by the typecheck step of npm test)", () => {
  const neverCalled = () => {
    // @ts-expect-error "gated-opd" is not a loss term
    combineLosses([{ name: "gated-opd", coef: 1 }], { batch: batchFromLengths([1]), policyLogprobs: [0] });
  };
  assert.equal(typeof neverCalled, "function");
});
