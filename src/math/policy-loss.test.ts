import { test } from "node:test";
import assert from "node:assert/strict";
import { clippedPolicyLoss, clippedTokenLoss, defaultClip } from "./policy-loss.ts";
import { batchFromLengths } from "./batch.ts";

const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

// Values computed independently in double precision: eps = 0.2, dual clip c = 3.
const cases: Array<[a: number, r: number, loss: number, grad: number]> = [
  [1, 1.5, -1.2, 0], // A > 0, above 1 + eps: clipped, no gradient
  [1, 0.5, -0.5, -0.5], // A > 0, below 1 - eps: the lower clip never binds for A > 0
  [-1, 0.5, 0.8, 0], // A < 0, below 1 - eps: clipped
  [-1, 1.5, 1.5, 1.5], // A < 0, above 1 + eps: the upper clip never binds for A < 0
  [-1, 5, 3.0, 0], // A < 0, ratio beyond c: dual clip caps the loss at -A·c
  [1, 1.1, -1.1, -1.1], // inside the clip range
  [-1, 0.9, 0.9, 0.9],
];

test("per-token clipped loss and gradient match the reference values", () => {
  for (const [a, r, loss, grad] of cases) {
    const out = clippedTokenLoss(a, r, defaultClip);
    close(out.loss, loss);
    close(out.grad, grad);
  }
});

test("the batch loss gives the same per-token values through log-ratios and token-mean", () => {
  const n = cases.length;
  const batch = batchFromLengths(Array(n).fill(1));
  const old = cases.map(() => -1.3);
  const policy = cases.map(([, r]) => -1.3 + Math.log(r));
  const out = clippedPolicyLoss({ batch, policyLogprobs: policy, oldLogprobs: old, advantages: cases.map(([a]) => a) });
  close(out.value, cases.reduce((s, c) => s + c[2], 0) / n, 1e-12);
  cases.forEach(([, , , grad], i) => close(out.dLogprobs[i]!, grad / n, 1e-12));
  close(out.metrics["pg/clip_frac"]!, 2 / n); // (1, 1.5) and (-1, 0.5): the clipped branch is the larger one
  close(out.metrics["pg/clip_frac_lower"]!, 1 / n); // only (-1, 5) hits the dual clip
  close(out.metrics["pg/ratio_max"]!, 5, 1e-12);
});

test("on the first mini-batch (r = 1) the gradient is -A per token while the value is about 0", () => {
  const batch = batchFromLengths([2, 2]);
  const lp = [-0.5, -1.5, -2, -0.1];
  const out = clippedPolicyLoss({ batch, policyLogprobs: lp, oldLogprobs: lp, advantages: [1, 1, -1, -1] });
  assert.equal(out.value, 0);
  assert.deepEqual(Array.from(out.dLogprobs), [-0.25, -0.25, 0.25, 0.25]);
  assert.equal(out.metrics["pg/ppo_kl"], 0);
});

test("without the dual clip a large ratio with A < 0 is not capped; c must exceed 1", () => {
  close(clippedTokenLoss(-1, 5, { ...defaultClip, dual: null }).loss, 5);
  const batch = batchFromLengths([1]);
  assert.throws(() => clippedPolicyLoss({ batch, policyLogprobs: [0], oldLogprobs: [0], advantages: [1], clip: { dual: 1 } }), RangeError);
});

test("tokens with mask 0 get exactly zero gradient even with non-finite log-probs", () => {
  const batch = { segments: [{ start: 0, length: 3 }], lossMask: [1, 0, 1] };
  const out = clippedPolicyLoss({ batch, policyLogprobs: [-1, -Infinity, -2], oldLogprobs: [-1, Number.NaN, -2], advantages: [1, 1, 1] });
  assert.equal(out.dLogprobs[1], 0);
  assert.ok(Number.isFinite(out.value));
});
