/**
 * What a paired seeds design can resolve: from the spread of per-seed paired differences
 * (method A − method B on the same seeds), the smallest observed difference whose 95% interval
 * excludes zero, and the true difference the design would detect with 80% power (two-sided
 * paired t-test at 5%, the usual (t_{0.975} + t_{0.80}) · sd / √n approximation). An honest
 * null says which effects it rules out; these two numbers are that statement.
 */
import { studentTQuantile } from "../math/stats.ts";

/** The power statement of one comparison. */
export type PowerStatement = {
  /** Paired seeds behind it. */
  readonly seeds: number;
  /** Sample sd of the per-seed differences. */
  readonly sd: number;
  /** Half-width of the 95% interval: observed differences beyond it are resolved. */
  readonly resolvable: number;
  /** The true difference detected with 80% power at the 5% level. */
  readonly detectable80: number;
};

/**
 * The power statement of `n` paired seeds whose differences have sample sd `sd`. `floor` is the
 * half-width of another interval the verdict also honours (the seed-and-game bootstrap): the
 * design resolves nothing smaller than the wider of the two. NaN with fewer than 2 seeds.
 */
export function powerStatement(n: number, sd: number, floor = 0): PowerStatement {
  if (!(n >= 2) || !Number.isFinite(sd)) return { seeds: n, sd, resolvable: Number.NaN, detectable80: Number.NaN };
  const se = sd / Math.sqrt(n);
  const t975 = studentTQuantile(0.975, n - 1), t80 = studentTQuantile(0.8, n - 1);
  const f = Number.isFinite(floor) ? floor : 0;
  const resolvable = Math.max(t975 * se, f);
  // The floor, like the t half-width, scales with the z-sum when converting to an 80%-power effect.
  return { seeds: n, sd, resolvable, detectable80: Math.max((t975 + t80) * se, f * (t975 + t80) / t975) };
}
