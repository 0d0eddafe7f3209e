// The packed SFT loss mask: trained positions weigh 1, the rest the example's context weight.
import { test } from "node:test";
import assert from "node:assert/strict";
import { weightedNllLoss } from "../../math/sft.ts";
import { batchFromLengths } from "../../math/batch.ts";
import { sftLossMask, type SftExample } from "./sft.ts";

const ex = (mask: number[], contextWeight?: number): SftExample => ({
  request: { tokens: Array.from({ length: mask.length + 1 }, (_, i) => i), start: 1 }, mask: Uint8Array.from(mask), ...(contextWeight === undefined ? {} : { contextWeight }),
});

test("sft loss mask: 1 on trained positions, contextWeight elsewhere, per example; NLL weights normalise by the sum", () => {
  const { segments, lossMask, tokenWeights } = sftLossMask([ex([0, 1, 1]), ex([1, 0, 0, 1], 0.25)]);
  assert.deepEqual(segments, [{ start: 0, length: 3 }, { start: 3, length: 4 }]);
  assert.deepEqual(Array.from(tokenWeights), [0, 1, 1, 1, 0.25, 0.25, 1]);
  assert.deepEqual(Array.from(lossMask), [0, 1, 1, 1, 1, 1, 1]);
  const { dLogprobs } = weightedNllLoss({ batch: { segments, lossMask }, policyLogprobs: new Float64Array(7), tokenWeights });
  // −m/Σm with Σm = 4.5: a context token gets a quarter of a trained token's gradient.
  assert.ok(Math.abs(dLogprobs[1]! + 1 / 4.5) < 1e-12 && Math.abs(dLogprobs[4]! + 0.25 / 4.5) < 1e-12 && dLogprobs[0] === 0);
});

test("weighted NLL: a weighted token mean; with 0/1 weights the plain token-mean NLL", () => {
  const r = weightedNllLoss({ batch: batchFromLengths([2]), policyLogprobs: [-1, -3], tokenWeights: [1, 0.5] });
  assert.ok(Math.abs(r.value - 5 / 3) < 1e-12);
  assert.deepEqual(Array.from(r.dLogprobs).map((x) => +x.toFixed(12)), [-0.666666666667, -0.333333333333]);
  assert.throws(() => weightedNllLoss({ batch: batchFromLengths([1]), policyLogprobs: [-1], tokenWeights: [-0.5] }), RangeError);
  assert.equal(weightedNllLoss({ batch: batchFromLengths([2]), policyLogprobs: [-1, -3], tokenWeights: [0, 1] }).value, 3);
});
