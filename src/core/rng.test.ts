import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng, deriveSeed } from "./rng.ts";

test("the same seed gives the same stream; a different seed a different one", () => {
  const a = Rng.from(42), b = Rng.from(42), c = Rng.from(43);
  const xs = Array.from({ length: 8 }, () => a.nextU32());
  assert.deepEqual(Array.from({ length: 8 }, () => b.nextU32()), xs);
  assert.notDeepEqual(Array.from({ length: 8 }, () => c.nextU32()), xs);
});

test("state round-trips: a resumed generator continues the same stream", () => {
  const a = Rng.from(7);
  for (let i = 0; i < 5; i++) a.float();
  const b = Rng.fromState(a.state());
  assert.deepEqual(Array.from({ length: 16 }, () => b.float()), Array.from({ length: 16 }, () => a.float()));
});

test("floats are in [0, 1) with mean near 1/2; ints cover their range uniformly", () => {
  const r = Rng.from(1);
  let sum = 0;
  const counts = new Array(6).fill(0);
  for (let i = 0; i < 60000; i++) {
    const f = r.float();
    assert.ok(f >= 0 && f < 1);
    sum += f;
    counts[r.int(6)]++;
  }
  assert.ok(Math.abs(sum / 60000 - 0.5) < 0.01);
  for (const c of counts) assert.ok(Math.abs(c - 10000) < 500, `bucket ${c}`);
});

test("normal draws have mean ~0 and variance ~1", () => {
  const r = Rng.from(3);
  let s = 0, s2 = 0;
  const n = 50000;
  for (let i = 0; i < n; i++) {
    const x = r.normal();
    s += x;
    s2 += x * x;
  }
  assert.ok(Math.abs(s / n) < 0.02);
  assert.ok(Math.abs(s2 / n - 1) < 0.03);
});

test("deriveSeed separates labels and positions", () => {
  const seeds = new Set([
    deriveSeed(1, "rollout", 1, 2),
    deriveSeed(1, "rollout", 2, 1),
    deriveSeed(1, "rollout", 12),
    deriveSeed(1, "rollout", "12"),
    deriveSeed(2, "rollout", 1, 2),
    deriveSeed(1, "analyze", 1, 2),
  ]);
  assert.equal(seeds.size, 6);
  assert.equal(deriveSeed(5, "x", 3), deriveSeed(5, "x", 3));
});

test("a bad state is rejected", () => {
  assert.throws(() => Rng.fromState([1, 2, 3] as unknown as [number, number, number, number]), RangeError);
  assert.throws(() => Rng.fromState([1, 2, 3, -1]), RangeError);
});
