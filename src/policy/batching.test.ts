// The one chunker and the flat scored layout: chunks never split a request and respect the
// budget; the flat layout the losses use is exactly the transformer's packed [M] layout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { packBatch } from "../model/batch.ts";
import { chunks, scoredOffsets, splitScored } from "./batching.ts";

const requests = [
  { tokens: [1, 2, 3, 4], start: 1 },
  { tokens: [5, 6], start: 1 },
  { tokens: [7, 8, 9, 10, 11, 12], start: 4 },
];

test("the losses' flat layout equals the packed batch's scored layout", () => {
  assert.deepEqual(scoredOffsets(requests), Array.from(packBatch(requests, 16, 64).scoreOffsets));
  const parts = splitScored([0.5, 1, 1.5, 2, 2.5, 3], scoredOffsets(requests));
  assert.deepEqual(parts.map((p) => Array.from(p)), [[0.5, 1, 1.5], [2], [2.5, 3]]);
  assert.equal(parts[0]!.buffer, parts[2]!.buffer, "views of one array, not copies");
});

test("chunks keep request order, never split a request, and stay within the budget", () => {
  assert.deepEqual(chunks(requests, 6), [[0, 2], [2, 3]]);
  assert.deepEqual(chunks(requests, 3), [[0, 1], [1, 2], [2, 3]]);
  assert.deepEqual(chunks(requests, 100), [[0, 3]]);
  assert.deepEqual(chunks([], 10), []);
});
