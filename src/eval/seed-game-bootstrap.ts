/**
 * A two-level bootstrap over training seeds and evaluation games: the interval of a metric
 * averaged over seeds when each seed's number is itself an estimate from a finite panel of games.
 * The t-interval over seeds (`aggregate.ts`) carries the seed-to-seed spread, evaluation draws
 * included, but three draws that happen to agree on a small task type give it zero width; this
 * bootstrap resamples the seeds, then the games inside each seed's task-type strata, so a cell can
 * only be exact when no game could have gone the other way. Merged results report the union of
 * the two intervals (`unionEstimate`).
 */
import { Rng } from "../core/rng.ts";
import { mean, quantile, wilsonInterval } from "../math/stats.ts";
import type { Estimate } from "./breakdown.ts";

/** The per-game outcomes of one evaluation (one seed): success 0/1, or a WebShop score. */
export type GameOutcomes = {
  readonly outcomes: readonly number[];
  /** Task-type (or dataset) column of each game. */
  readonly groups: readonly string[];
};

/**
 * How a breakdown column is computed from per-game outcomes: a group's mean, the macro average
 * over groups (ALFWorld `All`, Search-QA `Avg`), the mean over every game (`micro`, WebShop
 * `Score`), or the share of games with outcome 1 (WebShop `Success`, whose outcomes are scores).
 */
export type ColumnRule = { readonly kind: "group"; readonly group: string } | { readonly kind: "macro" } | { readonly kind: "all" } | { readonly kind: "perfect" };

/** The rule of each column of a breakdown, from its environment and column names. */
export function columnRules(env: string, columns: readonly string[], headline: string): Record<string, ColumnRule> {
  const rules: Record<string, ColumnRule> = {};
  if (env === "webshop") return { Score: { kind: "all" }, Success: { kind: "perfect" } };
  for (const c of columns) rules[c] = c === headline && (env === "alfworld" || env === "search") ? { kind: "macro" } : env === "alfworld" || env === "search" ? { kind: "group", group: c } : { kind: "all" };
  if (env === "alfworld") rules["micro"] = { kind: "all" };
  return rules;
}

type Strata = { readonly names: readonly string[]; readonly values: readonly (readonly number[])[] };

function strata(g: GameOutcomes, transform: (x: number) => number): Strata {
  if (g.outcomes.length !== g.groups.length) throw new RangeError(`outcomes and groups differ in length: ${g.outcomes.length} and ${g.groups.length}`);
  const by = new Map<string, number[]>();
  g.outcomes.forEach((x, i) => {
    const k = g.groups[i]!;
    let list = by.get(k);
    if (list === undefined) by.set(k, (list = []));
    list.push(transform(x));
  });
  const names = [...by.keys()].sort();
  return { names, values: names.map((n) => by.get(n)!) };
}

/** The column's value on one seed, given its per-group means and sizes (resampled or not). */
function columnValue(rule: ColumnRule, s: Strata, means: Float64Array): number {
  if (rule.kind === "group") {
    const i = s.names.indexOf(rule.group);
    return i < 0 ? Number.NaN : means[i]!;
  }
  if (rule.kind === "macro") {
    let t = 0;
    for (let i = 0; i < means.length; i++) t += means[i]!;
    return means.length === 0 ? Number.NaN : t / means.length;
  }
  let t = 0, n = 0;
  s.values.forEach((v, i) => ((t += means[i]! * v.length), (n += v.length)));
  return n === 0 ? Number.NaN : t / n;
}

function groupMeans(s: Strata, rng: Rng | null): Float64Array {
  const out = new Float64Array(s.values.length);
  s.values.forEach((v, i) => {
    let t = 0;
    for (let j = 0; j < v.length; j++) t += rng === null ? v[j]! : v[rng.int(v.length)]!;
    out[i] = v.length === 0 ? Number.NaN : t / v.length;
  });
  return out;
}

function meanOf(xs: readonly number[]): number {
  const f = xs.filter((x) => Number.isFinite(x));
  return f.length === 0 ? Number.NaN : mean(f);
}

/**
 * The mean over seeds of a column, with a percentile interval from resampling seeds (with
 * replacement) and, inside each drawn seed, games within their strata. `seeds[i]` holds one
 * evaluation's outcomes; WebShop's `perfect` rule reads score 1 as a success.
 */
export function seedGameBootstrap(seeds: readonly GameOutcomes[], rule: ColumnRule, seed: number, resamples = 2000): Estimate {
  const transform = rule.kind === "perfect" ? (x: number) => (x === 1 ? 1 : 0) : (x: number) => x;
  const st = seeds.map((g) => strata(g, transform));
  const value = meanOf(st.map((s) => columnValue(rule, s, groupMeans(s, null))));
  if (st.length === 0 || !Number.isFinite(value)) return { value, low: Number.NaN, high: Number.NaN, n: st.length, interval: "none" };
  const rng = Rng.from(seed);
  const stats: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const vals: number[] = [];
    for (let k = 0; k < st.length; k++) {
      const s = st[rng.int(st.length)]!;
      vals.push(columnValue(rule, s, groupMeans(s, rng)));
    }
    const m = meanOf(vals);
    if (Number.isFinite(m)) stats.push(m);
  }
  return { value, low: quantile(stats, 0.025), high: quantile(stats, 0.975), n: st.length, interval: "bootstrap" };
}

/**
 * The paired difference a − b of a column over shared seeds, each seed's two evaluations on the
 * same games (same task ids, in order): seeds are resampled with replacement, then games inside
 * the strata with both outcomes kept together.
 */
export function pairedSeedGameBootstrap(a: readonly GameOutcomes[], b: readonly GameOutcomes[], rule: ColumnRule, seed: number, resamples = 2000): Estimate {
  if (a.length !== b.length) throw new RangeError(`paired seed lists differ in length: ${a.length} and ${b.length}`);
  const transform = rule.kind === "perfect" ? (x: number) => (x === 1 ? 1 : 0) : (x: number) => x;
  const diffs: GameOutcomes[] = a.map((ga, i) => {
    const gb = b[i]!;
    if (ga.outcomes.length !== gb.outcomes.length) throw new RangeError(`seed ${i}: the two evaluations hold ${ga.outcomes.length} and ${gb.outcomes.length} games`);
    return { outcomes: ga.outcomes.map((x, j) => transform(x) - transform(gb.outcomes[j]!)), groups: ga.groups };
  });
  // The differences are already transformed; a `perfect` rule would transform them again.
  const plain: ColumnRule = rule.kind === "perfect" ? { kind: "all" } : rule;
  return seedGameBootstrap(diffs, plain, seed, resamples);
}

/**
 * The Wilson interval of a rate column over every seed's games pooled (k wins of n), or null for
 * a macro average or outcomes that are not 0/1. A percentile bootstrap cannot widen a cell no game
 * of which was won (0 of 36 stays [0, 0]); the pooled Wilson interval says how high a rate such a
 * count still allows.
 */
export function pooledRate(seeds: readonly GameOutcomes[], rule: ColumnRule): Estimate | null {
  if (rule.kind === "macro") return null;
  let k = 0, n = 0;
  for (const g of seeds) {
    g.outcomes.forEach((x, i) => {
      if (rule.kind === "group" && g.groups[i] !== rule.group) return;
      const v = rule.kind === "perfect" ? (x === 1 ? 1 : 0) : x;
      if (v !== 0 && v !== 1) n = Number.NaN;
      k += v;
      n += 1;
    });
  }
  if (!(n > 0)) return null;
  const w = wilsonInterval(k, n);
  return { value: k / n, low: w.low, high: w.high, n, interval: "wilson" };
}

/**
 * The union of two intervals around the first estimate's value: a merged result is never
 * narrower than either the seed-to-seed t-interval or the seed-and-game bootstrap.
 */
export function unionEstimate(t: Estimate, boot: Estimate): Estimate {
  if (!Number.isFinite(boot.low) || !Number.isFinite(boot.high)) return t;
  if (!Number.isFinite(t.low) || !Number.isFinite(t.high)) return { ...boot, value: t.value, n: t.n };
  return { value: t.value, low: Math.min(t.low, boot.low), high: Math.max(t.high, boot.high), n: t.n, interval: "t+bootstrap" };
}
