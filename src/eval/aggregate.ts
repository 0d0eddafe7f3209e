/**
 * Results over training seeds: the mean of each metric over the seeds of a method with a
 * Student-t 95% interval (n = 3 seeds gives t = 4.30, so three seeds that disagree give wide
 * intervals, as they should). With a single seed the episode-level interval of that one
 * evaluation is kept and marked as such. Also the paired difference of two methods over shared
 * seeds (the demo's verdict). Not here: the intervals over episodes (`breakdown.ts`).
 */
import { deriveSeed } from "../core/rng.ts";
import { mean, meanInterval, std } from "../math/stats.ts";
import type { Breakdown, Estimate } from "./breakdown.ts";
import { columnRules, pairedSeedGameBootstrap, pooledRate, seedGameBootstrap, unionEstimate, type GameOutcomes } from "./seed-game-bootstrap.ts";

/** One method's breakdowns over seeds, merged. */
export type Aggregate = {
  readonly env: string;
  readonly split: string;
  readonly columns: readonly string[];
  readonly headline: string;
  /** Seeds (evaluations) behind every estimate. */
  readonly seeds: number;
  readonly metrics: Readonly<Record<string, Estimate>>;
  /** Per-seed values of each metric, in the order given. */
  readonly perSeed: Readonly<Record<string, readonly number[]>>;
};

/** t-interval estimate of a list of per-seed values (no interval with one value). */
export function seedEstimate(values: readonly number[]): Estimate {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { value: Number.NaN, low: Number.NaN, high: Number.NaN, n: 0, interval: "none" };
  const iv = meanInterval(finite);
  return { value: iv.estimate, low: iv.low, high: iv.high, n: finite.length, interval: finite.length > 1 ? "t" : "none" };
}

/**
 * Merge the breakdowns of one method's seeds (same env and split). One seed: its own episode
 * intervals; several: the t-interval of the per-seed values, widened to the seed-and-game
 * bootstrap's interval and, for a rate column, the Wilson interval of the pooled games, when every
 * seed's per-game outcomes are given (`games[i]` for `breakdowns[i]`): agreeing evaluation draws on
 * a few games, or no game won at all, never print a zero-width cell.
 */
export function aggregate(breakdowns: readonly Breakdown[], games?: readonly (GameOutcomes | undefined)[]): Aggregate {
  const first = breakdowns[0];
  if (first === undefined) throw new RangeError("aggregate needs at least one breakdown");
  for (const b of breakdowns) {
    if (b.env !== first.env || b.split !== first.split) throw new RangeError(`cannot merge ${b.env}/${b.split} with ${first.env}/${first.split}`);
  }
  const names = [...new Set(breakdowns.flatMap((b) => Object.keys(b.metrics)))];
  const perSeed: Record<string, number[]> = {};
  const metrics: Record<string, Estimate> = {};
  for (const k of names) {
    perSeed[k] = breakdowns.map((b) => b.metrics[k]?.value ?? Number.NaN);
    // Every breakdown metric is a rate or a score in [0, 1]; a t-interval over 3 seeds can
    // reach past the ends, and the part outside the range carries no information.
    metrics[k] = breakdowns.length === 1 ? first.metrics[k]! : clampEstimate(seedEstimate(perSeed[k]!), 0, 1);
  }
  const samples = games?.length === breakdowns.length && games.every((g) => g !== undefined) ? (games as readonly GameOutcomes[]) : null;
  if (samples !== null && breakdowns.length > 1) {
    const rules = columnRules(first.env, first.columns, first.headline);
    for (const k of names) {
      const rule = rules[k];
      if (rule === undefined) continue;
      const boot = seedGameBootstrap(samples, rule, deriveSeed(0, "aggregate", first.env, first.split, k));
      const pooled = pooledRate(samples, rule);
      const merged = unionEstimate(metrics[k]!, boot);
      metrics[k] = clampEstimate(pooled === null ? merged : unionEstimate(merged, pooled), 0, 1);
    }
  }
  const columns = [...new Set(breakdowns.flatMap((b) => b.columns))];
  return { env: first.env, split: first.split, columns, headline: first.headline, seeds: breakdowns.length, metrics, perSeed };
}

/** An estimate with its interval cut to [lo, hi] (the point estimate is left alone). */
export function clampEstimate(e: Estimate, lo: number, hi: number): Estimate {
  const c = (x: number) => (Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : x);
  return { ...e, low: c(e.low), high: c(e.high) };
}

/** Mean and t-interval of the paired differences a[i] − b[i] (seeds shared by both methods). */
export function pairedDifference(a: readonly number[], b: readonly number[]): Estimate & { readonly sd: number } {
  if (a.length !== b.length) throw new RangeError(`paired lists differ in length: ${a.length} and ${b.length}`);
  const d = a.map((x, i) => x - b[i]!);
  const e = seedEstimate(d);
  return { ...e, sd: d.length > 1 ? std(d) : Number.NaN };
}

/** Mean of per-step values (NaN-free), for curve summaries. */
export function finiteMean(xs: readonly number[]): number {
  const f = xs.filter((x) => Number.isFinite(x));
  return f.length === 0 ? Number.NaN : mean(f);
}

/**
 * Paired, stratified bootstrap of the difference of two methods' group-averaged scores on the
 * same tasks: `a[i]` and `b[i]` are the outcomes of task i (same environment seed), `groups[i]`
 * its column (task type); the statistic is mean over groups of the per-group mean of a − b (the
 * macro-average difference), resampling tasks inside each group with both outcomes kept together.
 * Use when there is one training seed: it measures evaluation noise, not seed-to-seed variance.
 */
export function pairedBootstrapDifference(a: readonly number[], b: readonly number[], groups: readonly string[], seed: number, resamples = 2000): Estimate {
  if (a.length !== b.length || a.length !== groups.length) throw new RangeError(`paired lists differ in length: ${a.length}, ${b.length}, ${groups.length}`);
  // One "seed" holding every game: the seed-and-game bootstrap then resamples games only.
  const d = pairedSeedGameBootstrap([{ outcomes: a, groups }], [{ outcomes: b, groups }], { kind: "macro" }, seed, resamples);
  return { ...d, n: a.length };
}
