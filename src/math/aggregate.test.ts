import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregate, aggregationWeights, aggregations, parseAggregationMode, rowCounts, type AggregationMode } from "./aggregate.ts";
import { batchFromLengths, broadcastToTokens, splitBySegments, validateBatch, type Segment } from "./batch.ts";
import { ConfigError, ShapeError } from "../core/errors.ts";

const close = (a: number, b: number, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

// Values computed independently in double precision. L = [[1,2,3,0],[4,5,6,0]],
// M = [[1,1,0,0],[1,0,0,0]], as two padded rows of width 4 laid out flat.
const segments: Segment[] = [{ start: 0, length: 4 }, { start: 4, length: 4 }];
const L = [1, 2, 3, 0, 4, 5, 6, 0];
const M = [1, 1, 0, 0, 1, 0, 0, 0];

test("aggregation values match the reference values", () => {
  close(aggregate(L, segments, M, { mode: "token-mean" }), 7 / 3); // (1+2+4)/3 = 2.333333
  close(aggregate(L, segments, M, { mode: "seq-mean-token-sum" }), 3.5); // (3 + 4)/2
  close(aggregate(L, segments, M, { mode: "seq-mean-token-mean" }), 2.75); // (1.5 + 4)/2
  close(aggregate(L, segments, M, { mode: "seq-mean-token-sum-norm", normLength: 4 }), 1.75); // 7/4
});

test("aggregation gradients match the reference values", () => {
  const expect: Record<AggregationMode, number[]> = {
    "token-mean": [1 / 3, 1 / 3, 0, 0, 1 / 3, 0, 0, 0],
    "seq-mean-token-sum": [0.5, 0.5, 0, 0, 0.5, 0, 0, 0],
    "seq-mean-token-mean": [0.25, 0.25, 0, 0, 0.5, 0, 0, 0],
    "seq-mean-token-sum-norm": [0.25, 0.25, 0, 0, 0.25, 0, 0, 0],
  };
  for (const mode of Object.keys(aggregations) as AggregationMode[]) {
    const w = aggregationWeights(segments, M, { mode, normLength: 4 });
    expect[mode].forEach((e, i) => close(w[i]!, e, 1e-12));
  }
});

test("token-mean equals seq-mean-token-mean when every row has the same length", () => {
  const segs: Segment[] = [{ start: 0, length: 3 }, { start: 3, length: 3 }, { start: 6, length: 3 }];
  const mask = [1, 1, 0, 0, 1, 1, 1, 0, 1];
  const x = [0.3, -1.2, 9, 9, 2.5, 0.7, 4.1, 9, -3];
  close(aggregate(x, segs, mask, { mode: "token-mean" }), aggregate(x, segs, mask, { mode: "seq-mean-token-mean" }), 1e-12);
});

test("seq-mean modes favour short rows per token (length bias) where token-mean does not", () => {
  const segs: Segment[] = [{ start: 0, length: 1 }, { start: 1, length: 4 }];
  const mask = [1, 1, 1, 1, 1];
  const tm = aggregationWeights(segs, mask, { mode: "token-mean" });
  const sm = aggregationWeights(segs, mask, { mode: "seq-mean-token-mean" });
  assert.equal(tm[0], tm[1]);
  assert.ok(sm[0]! > sm[1]!);
});

test("an empty mask gives value 0 and zero gradient, never NaN; empty rows are excluded and counted", () => {
  const mask = [0, 0, 0, 0, 0, 0, 0, 0];
  for (const mode of Object.keys(aggregations) as AggregationMode[]) {
    const w = aggregationWeights(segments, mask, { mode, normLength: 4 });
    assert.ok(w.every((v) => v === 0));
    assert.equal(aggregate(L, segments, mask, { mode, normLength: 4 }), 0);
  }
  const oneEmpty = [1, 1, 0, 0, 0, 0, 0, 0];
  assert.deepEqual(rowCounts(segments, oneEmpty), { rows: 1, emptyRows: 1 });
  close(aggregate(L, segments, oneEmpty, { mode: "seq-mean-token-sum" }), 3); // B' = 1, not 2
});

test("untrained positions holding NaN or -Infinity never reach the value", () => {
  const x = [1, 2, Number.NaN, -Infinity, 4, Number.NaN, 6, 0];
  close(aggregate(x, segments, M, { mode: "token-mean" }), 7 / 3);
});

test("unknown aggregation names and a missing C are ConfigErrors that list the valid names", () => {
  assert.throws(() => parseAggregationMode("token_mean"), (e: unknown) => e instanceof ConfigError && /valid: token-mean, seq-mean-token-sum/.test(e.message));
  assert.equal(parseAggregationMode("seq-mean-token-mean"), "seq-mean-token-mean");
  assert.throws(() => aggregationWeights(segments, M, { mode: "seq-mean-token-sum-norm" }), ConfigError);
});

test("the batch layout rejects overlapping segments, bad masks and mismatched lengths", () => {
  assert.throws(() => validateBatch({ segments: [{ start: 0, length: 3 }, { start: 2, length: 2 }], lossMask: [1, 1, 1, 1] }), ShapeError);
  assert.throws(() => validateBatch({ segments: [{ start: 0, length: 5 }], lossMask: [1, 1, 1, 1] }), ShapeError);
  assert.throws(() => validateBatch({ segments: [], lossMask: [0.5] }), ShapeError);
  assert.throws(() => validateBatch(batchFromLengths([2, 2]), { policyLogprobs: [1, 2, 3] }), /policyLogprobs has 3 entries/);
  assert.throws(() => validateBatch(batchFromLengths([2, 2]), {}, { skillValid: [1] }), /skillValid has 1 entries/);
});

test("broadcast and split move between per-sample, flat and per-request layouts", () => {
  const batch = batchFromLengths([2, 0, 3]);
  assert.deepEqual(Array.from(broadcastToTokens(batch, [1.5, 7, -2])), [1.5, 1.5, -2, -2, -2]);
  const parts = splitBySegments(batch, [1, 2, 3, 4, 5]);
  assert.deepEqual(parts.map((p) => Array.from(p)), [[1, 2], [], [3, 4, 5]]);
});
