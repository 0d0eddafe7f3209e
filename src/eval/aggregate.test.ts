import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregate, pairedBootstrapDifference, pairedDifference, seedEstimate } from "./aggregate.ts";
import type { Breakdown } from "./breakdown.ts";

const b = (all: number, pick: number): Breakdown => ({
  env: "alfworld", split: "valid_seen", episodes: 10, columns: ["Pick", "All"], headline: "All", counts: { Pick: 10 },
  metrics: {
    All: { value: all, low: all - 0.1, high: all + 0.1, n: 10, interval: "bootstrap" },
    Pick: { value: pick, low: 0, high: 1, n: 10, interval: "wilson" },
  },
});

test("seeds: the mean with a Student-t interval (t_{0.975, 2} = 4.3027 for three seeds)", () => {
  const e = seedEstimate([0.2, 0.3, 0.4]);
  // s = 0.1, half width = 4.302653 * 0.1 / sqrt(3) = 0.248414.
  assert.ok(Math.abs(e.value - 0.3) < 1e-12);
  assert.ok(Math.abs(e.high - e.value - 0.248414) < 1e-5);
  assert.equal(e.interval, "t");
  assert.equal(e.n, 3);
  const one = seedEstimate([0.5]);
  assert.ok(Number.isNaN(one.low) && one.interval === "none", "one seed has no spread");
});

test("aggregate: several seeds give t-intervals of per-seed values; one seed keeps its episode interval", () => {
  const agg = aggregate([b(0.2, 0.5), b(0.3, 0.6), b(0.4, 0.7)]);
  assert.equal(agg.seeds, 3);
  assert.deepEqual(agg.perSeed["All"], [0.2, 0.3, 0.4]);
  assert.equal(agg.metrics["All"]!.interval, "t");
  assert.ok(Math.abs(agg.metrics["Pick"]!.value - 0.6) < 1e-12);
  const single = aggregate([b(0.25, 0.5)]);
  assert.deepEqual(single.metrics["All"], b(0.25, 0.5).metrics["All"]);
  assert.throws(() => aggregate([]), /at least one/);
  assert.throws(() => aggregate([b(0.1, 0.1), { ...b(0.1, 0.1), split: "valid_unseen" }]), /cannot merge/);
});

test("paired differences over seeds and the paired stratified bootstrap over games", () => {
  const d = pairedDifference([0.5, 0.6, 0.7], [0.4, 0.4, 0.4]);
  assert.ok(Math.abs(d.value - 0.2) < 1e-12 && d.low < 0.2 && d.high > 0.2);
  // Identical outcomes: the difference is exactly 0 with a zero-width interval.
  const same = pairedBootstrapDifference([1, 0, 1, 0], [1, 0, 1, 0], ["a", "a", "b", "b"], 1);
  assert.deepEqual([same.value, same.low, same.high], [0, 0, 0]);
  // A wins every game of type a, ties on b: macro difference (1 + 0) / 2 = 0.5, interval [0.5, 0.5].
  const a = pairedBootstrapDifference([1, 1, 0, 1], [0, 0, 0, 1], ["a", "a", "b", "b"], 1);
  assert.deepEqual([a.value, a.low, a.high], [0.5, 0.5, 0.5]);
  // Mixed: the interval covers the estimate and is seeded.
  const x = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1], y = [0, 0, 1, 0, 1, 0, 0, 1, 0, 1], g = x.map((_, i) => (i < 5 ? "a" : "b"));
  const m1 = pairedBootstrapDifference(x, y, g, 7), m2 = pairedBootstrapDifference(x, y, g, 7);
  assert.deepEqual(m1, m2);
  assert.ok(m1.low <= m1.value && m1.value <= m1.high && m1.low < m1.high);
  assert.throws(() => pairedBootstrapDifference([1], [1, 0], ["a"], 0), /differ in length/);
});

test("intervals of rates over seeds are cut to [0, 1]", () => {
  const agg = aggregate([b(0.0, 0.9), b(0.5, 1.0), b(0.1, 1.0)]);
  assert.ok(agg.metrics["All"]!.low === 0 && agg.metrics["All"]!.high < 1);
  assert.equal(agg.metrics["Pick"]!.high, 1);
});
