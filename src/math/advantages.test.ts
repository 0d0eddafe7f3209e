import { test } from "node:test";
import assert from "node:assert/strict";
import { discountedReturns, grpoAdvantages, referenceGrpoOptions, stepSamplesOf, stepScore, tieProbability, type AdvantageSample } from "./advantages.ts";
import { gigpoAdvantages } from "./gigpo.ts";
import { Rng } from "../core/rng.ts";
import { ShapeError } from "../core/errors.ts";

// The values the test names quote were computed independently in double precision, not by this code.
const close = (a: number, b: number, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

/** One single-step trajectory per return, all in group 0. */
function oneStepEach(returns: readonly number[], groupId: string | number = 0): AdvantageSample[] {
  return returns.map((r, i) => ({ groupId, trajId: `${groupId}/${i}`, score: r, episodeReturn: r }));
}

const R8 = [10, 0, 0, 0, 10, 0, 0, 0];

test("GRPO N = 8, Bessel std: +1.620185 / -0.540062 (eps = 0)", () => {
  const { advantages } = grpoAdvantages(oneStepEach(R8), { std: "bessel", eps: 0 });
  R8.forEach((r, i) => close(advantages[i]!, r === 10 ? 1.620185 : -0.540062));
});

test("GRPO N = 8, population std: +1.732051 / -0.577350; with eps = 1e-6 within 2e-6", () => {
  const exact = grpoAdvantages(oneStepEach(R8), { eps: 0 }).advantages;
  R8.forEach((r, i) => close(exact[i]!, r === 10 ? 1.732051 : -0.57735));
  const withEps = grpoAdvantages(oneStepEach(R8)).advantages; // default eps 1e-6
  R8.forEach((r, i) => close(withEps[i]!, r === 10 ? 1.732051 : -0.57735, 2e-6));
});

test("GRPO mean_norm (no std): +7.5 / -2.5", () => {
  const { advantages } = grpoAdvantages(oneStepEach(R8), { normalize: false });
  R8.forEach((r, i) => assert.equal(advantages[i], r === 10 ? 7.5 : -2.5));
});

test("steps scope vs trajectories scope: [0.577350, 0.577350, -1.154701] vs ±0.707107 (Bessel)", () => {
  // trajectory a1: 2 step-samples with score 10; a2: 1 step-sample with score 0; same group
  const samples: AdvantageSample[] = [
    { groupId: "g", trajId: "a1", score: 10, episodeReturn: 10 },
    { groupId: "g", trajId: "a1", score: 10, episodeReturn: 10 },
    { groupId: "g", trajId: "a2", score: 0, episodeReturn: 0 },
  ];
  const steps = grpoAdvantages(samples, { std: "bessel", scope: "steps", eps: 0 }).advantages;
  [0.57735, 0.57735, -1.154701].forEach((e, i) => close(steps[i]!, e));
  const trajs = grpoAdvantages(samples, { std: "bessel", scope: "trajectories", eps: 0 }).advantages;
  [0.707107, 0.707107, -0.707107].forEach((e, i) => close(trajs[i]!, e));
});

test("Bessel vs population on R = [1, 0, 0, 1]: ±1 vs ±0.866025; ratio sqrt((n-1)/n)", () => {
  const pop = grpoAdvantages(oneStepEach([1, 0, 0, 1]), { eps: 0 }).advantages;
  const bes = grpoAdvantages(oneStepEach([1, 0, 0, 1]), { eps: 0, std: "bessel" }).advantages;
  assert.deepEqual(Array.from(pop), [1, -1, -1, 1]);
  [0.866025, -0.866025, -0.866025, 0.866025].forEach((e, i) => close(bes[i]!, e));
  const p8 = grpoAdvantages(oneStepEach(R8), { eps: 0 }).advantages;
  const b8 = grpoAdvantages(oneStepEach(R8), { eps: 0, std: "bessel" }).advantages;
  close(b8[0]! / p8[0]!, 0.935414);
});

test("R = [1, 0] gives [+1, -1]; with eps 1e-6 ±0.999998", () => {
  assert.deepEqual(Array.from(grpoAdvantages(oneStepEach([1, 0]), { eps: 0 }).advantages), [1, -1]);
  const a = grpoAdvantages(oneStepEach([1, 0])).advantages;
  close(a[0]!, 0.999998);
  close(a[1]!, -0.999998);
});

test("a tied group gives exactly zeros and is counted: [5, 5], [1, 1]", () => {
  for (const R of [[5, 5], [1, 1], [0, 0, 0, 0, 0, 0, 0, 0]]) {
    const out = grpoAdvantages(oneStepEach(R));
    assert.ok(out.advantages.every((a) => Object.is(a, 0)), `${R}: ${out.advantages}`);
    assert.equal(out.tiedGroups, 1);
    assert.equal(out.metrics["group/frac_zero_std"], 1);
    assert.ok(out.tied.every((t) => t === 1));
  }
});

test("a tied group stays exactly zero even when one step carries an invalid-action penalty (trajectories scope)", () => {
  const samples: AdvantageSample[] = [
    { groupId: 0, trajId: "a", score: stepScore(10, false, 0.1), episodeReturn: 10 },
    { groupId: 0, trajId: "a", score: stepScore(10, true, 0.1), episodeReturn: 10 },
    { groupId: 0, trajId: "b", score: 10, episodeReturn: 10 },
  ];
  const out = grpoAdvantages(samples);
  assert.deepEqual(Array.from(out.advantages), [0, 0, 0]);
  // in steps scope the penalty breaks the tie, as in the reference
  const steps = grpoAdvantages(samples, { scope: "steps" });
  assert.equal(steps.tiedGroups, 0);
  assert.ok(steps.advantages[0]! < 0);
});

test("the penalty is per step: a trajectory's steps get different advantages through it", () => {
  const samples: AdvantageSample[] = [
    { groupId: 0, trajId: "a", score: stepScore(10, false, 0.1), episodeReturn: 10 },
    { groupId: 0, trajId: "a", score: stepScore(10, true, 0.1), episodeReturn: 10 },
    { groupId: 0, trajId: "b", score: 0, episodeReturn: 0 },
  ];
  const a = grpoAdvantages(samples, { eps: 0 }).advantages;
  close(a[1]!, 1); // (10 − 5)/5, statistics over R(τ) = [10, 0]
  close(a[0]!, (9.9 - 5) / 5);
  close(a[2]!, -1);
});

test("advantages of every group sum to 0 over its trajectories (seeded random groups)", () => {
  const rng = Rng.from(11);
  for (let trial = 0; trial < 50; trial++) {
    const n = 2 + rng.int(7);
    const R = Array.from({ length: n }, () => (rng.bernoulli(0.5) ? 10 : rng.float()));
    for (const std of ["population", "bessel"] as const) {
      const a = grpoAdvantages(oneStepEach(R), { std }).advantages;
      close(a.reduce((s, x) => s + x, 0), 0, 1e-9);
    }
  }
});

test("groups are normalised independently and output follows input order", () => {
  const samples = [...oneStepEach([1, 0], "x"), ...oneStepEach([3, 3], "y"), ...oneStepEach([0, 2], "z")];
  const out = grpoAdvantages(samples, { eps: 0 });
  assert.deepEqual(Array.from(out.advantages), [1, -1, 0, 0, -1, 1]);
  assert.equal(out.groups, 3);
  assert.equal(out.tiedGroups, 1);
  close(out.metrics["group/frac_zero_std"]!, 1 / 3);
});

test("singletons: zero by default, raw score/(1+eps) as in the reference", () => {
  assert.deepEqual(Array.from(grpoAdvantages(oneStepEach([10])).advantages), [0]);
  const raw = grpoAdvantages(oneStepEach([10]), referenceGrpoOptions);
  close(raw.advantages[0]!, 10 / (1 + 1e-6), 1e-12);
  assert.equal(raw.singletonGroups, 1);
});

test("inconsistent episode returns within a trajectory are a ShapeError", () => {
  const bad: AdvantageSample[] = [
    { groupId: 0, trajId: "a", score: 1, episodeReturn: 1 },
    { groupId: 0, trajId: "a", score: 0, episodeReturn: 0 },
  ];
  assert.throws(() => grpoAdvantages(bad), ShapeError);
});

test("discounted returns: r = [0, 0, 10], gamma 0.95 gives [9.025, 9.5, 10]", () => {
  const g = discountedReturns([0, 0, 10], 0.95);
  [9.025, 9.5, 10].forEach((e, i) => close(g[i]!, e, 1e-12));
});

test("tie probability p^8 + (1-p)^8: 0.272491 at 0.85, 0.663420 at 0.95", () => {
  close(tieProbability(0.85, 8), 0.272491);
  close(tieProbability(0.95, 8), 0.66342);
  assert.throws(() => tieProbability(1.5, 8), RangeError);
});

test("tie rate over seeded binary groups approaches p^N + (1-p)^N", () => {
  const rng = Rng.from(2026);
  const samples: AdvantageSample[] = [];
  for (let g = 0; g < 4000; g++) samples.push(...oneStepEach(Array.from({ length: 8 }, () => (rng.bernoulli(0.85) ? 1 : 0)), g));
  const rate = grpoAdvantages(samples).metrics["group/frac_zero_std"]!;
  close(rate, 0.272491, 0.03);
});

test("GiGPO mean_norm, w = 1, gamma 0.95: A = (9.75, 5, -9.75, -5)", () => {
  // trajectory a: anchors (s0, s1), rewards (0, 10); trajectory b: anchors (s0, s2), rewards (0, 0)
  const ga = discountedReturns([0, 10], 0.95);
  const gb = discountedReturns([0, 0], 0.95);
  assert.deepEqual(Array.from(ga), [9.5, 10]);
  const out = gigpoAdvantages([
    { groupId: 0, trajId: "a", score: 10, episodeReturn: 10, anchor: "s0", stepReturn: ga[0]! },
    { groupId: 0, trajId: "a", score: 10, episodeReturn: 10, anchor: "s1", stepReturn: ga[1]! },
    { groupId: 0, trajId: "b", score: 0, episodeReturn: 0, anchor: "s0", stepReturn: gb[0]! },
    { groupId: 0, trajId: "b", score: 0, episodeReturn: 0, anchor: "s2", stepReturn: gb[1]! },
  ]);
  assert.deepEqual(Array.from(out.episodeAdvantages), [5, 5, -5, -5]);
  assert.deepEqual(Array.from(out.stepAdvantages), [4.75, 0, -4.75, 0]);
  assert.deepEqual(Array.from(out.advantages), [9.75, 5, -9.75, -5]);
});

test("stepSamplesOf: one sample per turn, grouped by groupIndex, penalised per invalid step", () => {
  const turn = (valid: boolean) => ({ promptTokens: [], sampledTokens: [], sampledLogprobs: [], promptText: "", observation: "", responseText: "", actionText: "", valid, reward: 0, masked: false });
  const traj = (g: number, m: number, ret: number, valids: boolean[]) => ({
    envId: "alfworld", taskId: "t", groupIndex: g, memberIndex: m, seed: 0, historyMode: "window" as const, task: "", turns: valids.map(turn),
    return: ret, success: ret > 0, score: ret > 0 ? 1 : 0, endedBy: "terminated" as const, timings: { sampleSeconds: 0, envSeconds: 0 },
  });
  const samples = stepSamplesOf([traj(0, 0, 10, [true, false]), traj(0, 1, 0, [true]), traj(1, 0, 0, [false])], 0.1);
  assert.deepEqual(samples, [
    { groupId: 0, trajId: "0/0", score: 10, episodeReturn: 10 },
    { groupId: 0, trajId: "0/0", score: 9.9, episodeReturn: 10 },
    { groupId: 0, trajId: "0/1", score: 0, episodeReturn: 0 },
    { groupId: 1, trajId: "1/0", score: -0.1, episodeReturn: 0 },
  ]);
  const a = grpoAdvantages(samples, { eps: 0 }).advantages;
  close(a[0]!, 1);
  close(a[2]!, -1);
});
