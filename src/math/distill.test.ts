import { test } from "node:test";
import assert from "node:assert/strict";
import { gate, gatedDistillation } from "./distill.ts";
import { gateDifference } from "./identities.ts";
import { batchFromLengths } from "./batch.ts";
import { combineLosses } from "./losses.ts";

const close = (a: number, b: number, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

// The gate case, beta = 5 (values computed independently in double precision):
// teacher [-0.5, -2, -1], student [-1, -1, -1].
const teacher = [-0.5, -2, -1];
const student = [-1, -1, -1];
const batch = batchFromLengths([3]);

test("gates, g·Δ, token-mean value and gradient match the reference values", () => {
  const out = gatedDistillation({ batch, policyLogprobs: student, teacherLogprobs: teacher, opd: { beta: 5 } });
  close(gate(0.5, 5), 0.924142);
  close(gate(-1, 5), 0.006693);
  close(gate(0, 5), 0.5);
  close(out.value, 0.151793); // mean of g·Δ = [0.462071, -0.006693, 0]
  [-0.308047, -0.002231, -0.166667].forEach((e, i) => close(out.dLogprobs[i]!, e));
  close(out.metrics["opd/gate_mean"]!, (0.924142 + 0.006693 + 0.5) / 3);
  close(out.metrics["opd/gate_active_frac"]!, 1 / 3);
  close(out.metrics["opd/teacher_gap_mean"]!, (0.5 - 1 + 0) / 3);
  assert.equal(out.metrics["opd/mask_frac"], 1);
});

test("SEED distillation weights with lambda_opd = 0.01: [-0.003080, -0.0000223, -0.001667]", () => {
  const out = combineLosses([{ name: "opd", coef: 0.01 }], { batch, policyLogprobs: student, teacherLogprobs: teacher });
  [-0.00308, -0.0000223, -0.001667].forEach((e, i) => close(out.dLogprobs[i]!, e, 1e-6));
});

test("GRPO+OPSD (beta = 0): every gate 0.5, loss -0.083333, gradient -0.166667 on every token", () => {
  const out = gatedDistillation({ batch, policyLogprobs: student, teacherLogprobs: teacher, opd: { beta: 0 } });
  close(out.value, -0.083333);
  for (const d of out.dLogprobs) close(d, -0.166667);
  assert.equal(out.metrics["opd/gate_std"], 0);
});

test("the gradient never changes sign with Δ: every sampled token is pushed up", () => {
  for (const delta of [-30, -2, -0.1, 0, 0.1, 2, 30]) {
    const out = gatedDistillation({ batch: batchFromLengths([1]), policyLogprobs: [-1], teacherLogprobs: [-1 + delta] });
    assert.ok(out.dLogprobs[0]! < 0 || (delta <= -30 && out.dLogprobs[0]! <= 0), `delta ${delta}: ${out.dLogprobs[0]}`);
  }
});

test("gate values at beta = 5: +0.02 -> 0.52498, -0.5 -> 0.07586, -1.5 -> 0.000553", () => {
  close(gate(0.02, 5), 0.52498, 1e-5);
  close(gate(-0.5, 5), 0.07586, 1e-5);
  close(gate(-1.5, 5), 0.000553, 1e-6);
});

test("gate Lipschitz check: 0.98201 and 0.81757, difference 0.16444 <= 0.625", () => {
  close(gate(0.8, 5), 0.98201, 1e-5);
  close(gate(0.3, 5), 0.81757, 1e-5);
  const { difference, bound } = gateDifference(0.8, 0.3, 5);
  close(difference, 0.16444, 1e-5);
  close(bound, 0.625, 1e-12);
  assert.ok(difference <= bound);
});

test("the gate table sigma(beta·Δ) for beta = 1, 5, 10, 20", () => {
  const table: Array<[delta: number, b1: number, b5: number, b10: number, b20: number]> = [
    [0.1, 0.525, 0.622, 0.731, 0.881],
    [0.3, 0.574, 0.818, 0.953, 0.998],
    [0.5, 0.622, 0.924, 0.993, 1.0],
    [0.8, 0.69, 0.982, 1.0, 1.0],
  ];
  for (const [delta, ...row] of table) {
    [1, 5, 10, 20].forEach((beta, j) => close(gate(delta, beta), row[j]!, 5e-4));
  }
});

test("the gate is stable at extreme arguments", () => {
  assert.equal(gate(-1e6, 5), 0);
  assert.equal(gate(1e6, 5), 1);
  assert.ok(Number.isFinite(gate(-700, 1)) && gate(-700, 1) > 0);
});

test("a failed analysis (v = 0) zeroes that step-sample's term; the denominator is the response mask by default", () => {
  const b = batchFromLengths([2, 2]);
  const lp = [-1, -1, -1, -1];
  const tl = [-1, -1, -1, -1]; // every gate 0.5
  const resp = gatedDistillation({ batch: b, policyLogprobs: lp, teacherLogprobs: tl, skillValid: [1, 0] });
  assert.deepEqual(Array.from(resp.dLogprobs), [-0.125, -0.125, 0, 0]); // −0.5/4: Σm counts all 4 tokens
  assert.equal(resp.metrics["opd/mask_frac"], 0.5);
  const act = gatedDistillation({ batch: b, policyLogprobs: lp, teacherLogprobs: tl, skillValid: [1, 0], opd: { denominator: "active" } });
  assert.deepEqual(Array.from(act.dLogprobs), [-0.25, -0.25, 0, 0]); // reference: product-mask denominator
  const none = gatedDistillation({ batch: b, policyLogprobs: lp, teacherLogprobs: tl, skillValid: [0, 0], opd: { denominator: "active" } });
  assert.ok(none.dLogprobs.every((d) => d === 0));
  assert.equal(none.value, 0);
  assert.throws(() => gatedDistillation({ batch: b, policyLogprobs: lp, teacherLogprobs: tl, skillValid: [1, 0.5] }), /0 or 1/);
});
