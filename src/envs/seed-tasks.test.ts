// Seed tasks: distinct seeds inside the split's range, deterministic, prefix-stable, fast.
import { test } from "node:test";
import assert from "node:assert/strict";
import { UsageError } from "../core/errors.ts";
import { SEED_SPLIT_RANGES, seedTasks, type SeedPayload } from "./seed-tasks.ts";

const seedsOf = (env: string, split: string, n: number, seed = 0) => seedTasks(env, split, n, seed).map((t) => (t.payload as SeedPayload).seed);

test("seeds are distinct, in range, deterministic and prefix-stable", () => {
  for (const split of ["train", "validation"] as const) {
    const [lo, hi] = SEED_SPLIT_RANGES[split];
    const s = seedsOf("x", split, 5000);
    assert.equal(new Set(s).size, s.length, split);
    assert.ok(s.every((v) => Number.isInteger(v) && v >= lo && v < hi), split);
    assert.deepEqual(seedsOf("x", split, 5000), s);
    assert.deepEqual(seedsOf("x", split, 50), s.slice(0, 50), `${split}: the first k are the same for any count`);
    assert.notDeepEqual(seedsOf("y", split, 50), s.slice(0, 50), "each environment draws its own seeds");
    assert.notDeepEqual(seedsOf("x", split, 50, 1), s.slice(0, 50), "the seed changes the draw");
  }
  // Validation seeds spread over the whole 32-bit range, not a corner of it.
  const v = seedsOf("x", "validation", 1000);
  assert.ok(v.filter((x) => x > 2 ** 31).length > 400);
});

test("the whole training range is a permutation, drawn quickly", () => {
  const t0 = performance.now();
  const all = seedsOf("sokoban", "train", 2 ** 16);
  assert.ok(performance.now() - t0 < 5000);
  assert.deepEqual([...all].sort((a, b) => a - b), Array.from({ length: 2 ** 16 }, (_, i) => i));
  assert.throws(() => seedTasks("x", "train", 2 ** 16 + 1), UsageError);
  assert.throws(() => seedTasks("x", "test", 1), UsageError);
});
