import { test } from "node:test";
import assert from "node:assert/strict";
import { closest, didYouMean, editDistance } from "./suggest.ts";

test("edit distance counts insertions, deletions, substitutions and neighbour swaps as one", () => {
  assert.equal(editDistance("quik", "quick"), 1);
  assert.equal(editDistance("grop", "grpo"), 1);
  assert.equal(editDistance("seed", "seed"), 0);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

test("closest suggests a near candidate or a unique prefix, and nothing for a far one", () => {
  assert.equal(closest("quik", ["quick", "quiet", "json"]), "quick");
  assert.equal(closest("sed", ["seed", "grpo"]), "seed");
  assert.equal(closest("grop", ["grpo", "opsd"]), "grpo");
  assert.equal(closest("tra", ["train", "report"]), "train");
  assert.equal(closest("constructor", ["train", "eval", "serve"]), undefined);
  assert.equal(didYouMean("greedyy", ["greedy"], (c) => `--${c}`), " (did you mean --greedy?)");
  assert.equal(didYouMean("zzz", ["greedy"]), "");
});
