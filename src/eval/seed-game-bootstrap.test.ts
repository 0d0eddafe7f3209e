import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregate } from "./aggregate.ts";
import type { Breakdown } from "./breakdown.ts";
import { columnRules, pairedSeedGameBootstrap, pooledRate, seedGameBootstrap, unionEstimate, type GameOutcomes } from "./seed-game-bootstrap.ts";
import { powerStatement } from "./power.ts";

// Two task types, 10 games each: Pick wins 3 of 10 and Look 6 of 10 in every seed (three
// evaluation draws that agree exactly, the case that printed zero-width cells).
const games = (pick: number, look: number): GameOutcomes => ({
  outcomes: [...Array.from({ length: 10 }, (_, i) => (i < pick ? 1 : 0)), ...Array.from({ length: 10 }, (_, i) => (i < look ? 1 : 0))],
  groups: [...Array(10).fill("Pick"), ...Array(10).fill("Look")],
});
const breakdownOf = (g: GameOutcomes): Breakdown => {
  const rate = (k: string) => g.outcomes.filter((_, i) => g.groups[i] === k).reduce((a, b) => a + b, 0) / 10;
  const e = (v: number) => ({ value: v, low: v, high: v, n: 10, interval: "wilson" as const });
  return { env: "alfworld", split: "valid_seen", episodes: 20, columns: ["Pick", "Look", "All"], headline: "All", counts: { Pick: 10, Look: 10 },
    metrics: { Pick: e(rate("Pick")), Look: e(rate("Look")), All: e((rate("Pick") + rate("Look")) / 2), micro: e((rate("Pick") + rate("Look")) / 2) } };
};

test("column rules: ALFWorld types are groups, All the macro average, micro every game; WebShop success is a perfect score", () => {
  const r = columnRules("alfworld", ["Pick", "Look", "All"], "All");
  assert.deepEqual(r["Pick"], { kind: "group", group: "Pick" });
  assert.deepEqual(r["All"], { kind: "macro" });
  assert.deepEqual(r["micro"], { kind: "all" });
  assert.deepEqual(columnRules("webshop", ["Score", "Success"], "Success"), { Score: { kind: "all" }, Success: { kind: "perfect" } });
});

test("seed-and-game bootstrap: agreeing seeds still get an interval from their games; the estimate is the mean over seeds", () => {
  const seeds = [games(3, 6), games(3, 6), games(3, 6)];
  const pick = seedGameBootstrap(seeds, { kind: "group", group: "Pick" }, 7);
  assert.ok(Math.abs(pick.value - 0.3) < 1e-12);
  // 3 x 10 Bernoulli(0.3) games: sd of the mean ~ 0.084, so the 95% interval spans ~ +-0.16.
  assert.ok(pick.low < 0.2 && pick.high > 0.4, `Pick interval [${pick.low}, ${pick.high}] should reflect 30 games`);
  const all = seedGameBootstrap(seeds, { kind: "macro" }, 7);
  assert.ok(Math.abs(all.value - 0.45) < 1e-12 && all.low < 0.45 && all.high > 0.45);
  // Seeded: the same seed gives the same interval.
  assert.deepEqual(seedGameBootstrap(seeds, { kind: "macro" }, 7), all);
  // Games that cannot vary (all lost) give an exact zero: nothing could have gone the other way.
  const none = seedGameBootstrap([games(0, 0), games(0, 0)], { kind: "macro" }, 1);
  assert.deepEqual([none.value, none.low, none.high], [0, 0, 0]);
  assert.throws(() => seedGameBootstrap([{ outcomes: [1], groups: [] }], { kind: "all" }, 0), /differ in length/);
});

test("aggregate with per-game outcomes: the t-interval of agreeing seeds (zero width) widens to the bootstrap's", () => {
  const seeds = [games(3, 6), games(3, 6), games(3, 6)];
  const plain = aggregate(seeds.map(breakdownOf));
  assert.equal(plain.metrics["Pick"]!.high - plain.metrics["Pick"]!.low, 0, "the t-interval alone is zero-width here");
  const merged = aggregate(seeds.map(breakdownOf), seeds);
  const pick = merged.metrics["Pick"]!;
  assert.equal(pick.interval, "t+bootstrap");
  assert.ok(pick.high - pick.low > 0.2, `merged Pick interval [${pick.low}, ${pick.high}]`);
  assert.ok(Math.abs(pick.value - 0.3) < 1e-12);
  // No game of a type won in any seed: the bootstrap stays at [0, 0], the pooled Wilson interval
  // of 0 wins in 30 games reaches 11.4%.
  const lost = [games(0, 6), games(0, 6), games(0, 6)];
  const zero = aggregate(lost.map(breakdownOf), lost).metrics["Pick"]!;
  assert.equal(zero.value, 0);
  assert.ok(zero.low === 0 && Math.abs(zero.high - 0.1135) < 1e-3, `[${zero.low}, ${zero.high}]`);
  // Missing outcomes for one seed: the plain t-interval is kept.
  assert.equal(aggregate(seeds.map(breakdownOf), [seeds[0], undefined, seeds[2]]).metrics["Pick"]!.interval, "t");
  // Seeds that disagree widely keep the wider t-interval: the union never narrows it.
  const spread = [games(0, 0), games(5, 5), games(10, 10)];
  const t = aggregate(spread.map(breakdownOf)).metrics["All"]!, u = aggregate(spread.map(breakdownOf), spread).metrics["All"]!;
  assert.ok(u.low <= t.low && u.high >= t.high);
});

test("pooled rate: k wins of every seed's games of the column; none for macro averages or scores", () => {
  const seeds = [games(3, 6), games(4, 6)];
  const p = pooledRate(seeds, { kind: "group", group: "Pick" })!;
  assert.deepEqual([p.value, p.n, p.interval], [7 / 20, 20, "wilson"]);
  assert.equal(pooledRate(seeds, { kind: "all" })!.n, 40);
  assert.equal(pooledRate(seeds, { kind: "macro" }), null);
  assert.equal(pooledRate([{ outcomes: [0.5, 1], groups: ["a", "a"] }], { kind: "all" }), null, "WebShop scores are not a rate");
  assert.equal(pooledRate([{ outcomes: [0.5, 1], groups: ["a", "a"] }], { kind: "perfect" })!.value, 0.5);
});

test("paired seed-and-game bootstrap of a difference, and the union of intervals", () => {
  const a = [games(6, 6), games(6, 6), games(6, 6)], b = [games(3, 3), games(3, 3), games(3, 3)];
  const d = pairedSeedGameBootstrap(a, b, { kind: "macro" }, 3);
  assert.ok(Math.abs(d.value - 0.3) < 1e-12 && d.low > 0 && d.high < 0.6, `[${d.low}, ${d.high}]`);
  const same = pairedSeedGameBootstrap(a, a, { kind: "macro" }, 3);
  assert.deepEqual([same.value, same.low, same.high], [0, 0, 0], "identical outcomes differ by exactly 0");
  assert.throws(() => pairedSeedGameBootstrap(a, b.slice(1), { kind: "macro" }, 0), /differ in length/);
  const u = unionEstimate({ value: 0.3, low: 0.25, high: 0.35, n: 3, interval: "t" }, { value: 0.31, low: 0.1, high: 0.5, n: 3, interval: "bootstrap" });
  assert.deepEqual(u, { value: 0.3, low: 0.1, high: 0.5, n: 3, interval: "t+bootstrap" });
});

test("power statement: the half-width of the paired t-interval and the 80%-power effect", () => {
  // n = 3, sd = 0.05: se = 0.028868; t_{0.975,2} = 4.302653, t_{0.80,2} = 1.060660.
  const p = powerStatement(3, 0.05);
  assert.ok(Math.abs(p.resolvable - 4.302653 * 0.028868) < 1e-5, String(p.resolvable));
  assert.ok(Math.abs(p.detectable80 - (4.302653 + 1.06066) * 0.028868) < 1e-5, String(p.detectable80));
  // A wider bootstrap floor sets what the design resolves.
  assert.equal(powerStatement(3, 0.05, 0.3).resolvable, 0.3);
  assert.ok(Number.isNaN(powerStatement(1, 0.05).resolvable));
});
