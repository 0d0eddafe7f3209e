/**
 * Statistics for reports and the questions the paper leaves open (docs/RESULTS.md §5): means,
 * standard deviations, 95% confidence intervals with Student's t (every paper number is one run;
 * our multi-seed tables have n = 3-5), Wilson intervals for success rates, seeded percentile
 * bootstrap, Pearson and Spearman correlation (gate value vs action value, Eq. 8).
 * Special functions (log-gamma, regularised incomplete beta and gamma) are written here, to
 * double precision, so nothing depends on a numerics package.
 */
import { Rng } from "../core/rng.ts";

/** Arithmetic mean; NaN for an empty list. */
export function mean(xs: ArrayLike<number>): number {
  if (xs.length === 0) return Number.NaN;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

/** Variance, population (÷ n) or sample (Bessel, ÷ (n − 1)); NaN when undefined. */
export function variance(xs: ArrayLike<number>, convention: "population" | "bessel" = "bessel"): number {
  const n = xs.length;
  const dof = convention === "bessel" ? n - 1 : n;
  if (dof <= 0) return Number.NaN;
  const m = mean(xs);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (xs[i]! - m) ** 2;
  return ss / dof;
}

/** Standard deviation (see `variance`). @default convention "bessel" */
export function std(xs: ArrayLike<number>, convention: "population" | "bessel" = "bessel"): number {
  return Math.sqrt(variance(xs, convention));
}

/** Linear-interpolation quantile (type 7) of a list, 0 ≤ p ≤ 1. */
export function quantile(xs: ArrayLike<number>, p: number): number {
  if (xs.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 1)) throw new RangeError(`a quantile level lies in [0, 1], got ${p}`);
  const sorted = Array.from(xs).sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

// ---------- special functions ----------

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7; about 15 significant digits). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const y = x - 1;
  let a = LANCZOS[0]!;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
  // The fraction converges fast for x < (a + 1)/(a + b + 2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaFraction(x, a, b)) / a;
  return 1 - (Math.exp(lnFront) * betaFraction(1 - x, b, a)) / b;
}

/** The regularised lower incomplete gamma function P(a, x), a > 0, x ≥ 0. */
export function incompleteGamma(a: number, x: number): number {
  if (x <= 0) return 0;
  const lnFront = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(lnFront);
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return 1 - Math.exp(lnFront) * h;
}

/** Standard normal CDF Φ(x) = ½(1 + sign(x)·P(½, x²/2)). */
export function normalCdf(x: number): number {
  const p = incompleteGamma(0.5, (x * x) / 2);
  return x >= 0 ? 0.5 + 0.5 * p : 0.5 - 0.5 * p;
}

/** Student's t CDF with `df` degrees of freedom (df = Infinity gives the normal CDF). */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`degrees of freedom must be positive, got ${df}`);
  if (df === Infinity) return normalCdf(t);
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Inverts a increasing CDF on (−∞, ∞) by bracketing and bisection to double precision. */
function invert(cdf: (x: number) => number, p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a probability in (0, 1) is needed, got ${p}`);
  let lo = -1, hi = 1;
  while (cdf(lo) > p) lo *= 2;
  while (cdf(hi) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-14 * Math.max(1, Math.abs(lo)); i++) {
    const mid = 0.5 * (lo + hi);
    if (cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** The p-quantile of Student's t with `df` degrees of freedom. @example studentTQuantile(0.975, 4) // 2.776445 */
export function studentTQuantile(p: number, df: number): number {
  return invert((t) => studentTCdf(t, df), p);
}

/** The p-quantile of the standard normal. @example normalQuantile(0.975) // 1.959964 */
export function normalQuantile(p: number): number {
  return invert(normalCdf, p);
}

// ---------- intervals ----------

/** A two-sided interval around an estimate. */
export type Interval = { readonly estimate: number; readonly low: number; readonly high: number; readonly level: number; readonly n: number };

/**
 * The t-interval for a mean: x̄ ± t_{(1+level)/2, n−1}·s/√n. Right for small n (3-5 seeds),
 * where the normal 1.96 would be far too narrow (t = 4.30 for n = 3). With n < 2 the bounds
 * are NaN: one run has no spread to report.
 */
export function meanInterval(xs: ArrayLike<number>, level = 0.95): Interval {
  const n = xs.length;
  const m = mean(xs);
  if (n < 2) return { estimate: m, low: Number.NaN, high: Number.NaN, level, n };
  const half = (studentTQuantile((1 + level) / 2, n - 1) * std(xs)) / Math.sqrt(n);
  return { estimate: m, low: m - half, high: m + half, level, n };
}

/**
 * The Wilson score interval for a success rate (k successes in n episodes); unlike the normal
 * approximation it stays inside [0, 1] and is sensible at 0% and 100%.
 */
export function wilsonInterval(successes: number, n: number, level = 0.95): Interval {
  if (!(n > 0) || successes < 0 || successes > n) throw new RangeError(`need 0 ≤ successes ≤ n and n > 0, got ${successes}/${n}`);
  const z = normalQuantile((1 + level) / 2);
  const p = successes / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), level, n };
}

/** Options of the bootstrap. */
export type BootstrapOptions = {
  /** Seed of the resampling stream (required: every random draw has an explicit seed). */
  readonly seed: number;
  /** Number of resamples. @default 2000 */
  readonly resamples?: number;
  /** @default 0.95 */
  readonly level?: number;
};

/**
 * Percentile bootstrap interval of `statistic` over resampled indices 0..n−1 (resampling whole
 * rows, so paired data such as (gate, value) stay paired). Deterministic for a seed.
 * @example bootstrapInterval(xs.length, (idx) => mean(idx.map((i) => xs[i]!)), { seed: 1 })
 */
export function bootstrapInterval(n: number, statistic: (indices: readonly number[]) => number, options: BootstrapOptions): Interval {
  if (!(n > 0)) throw new RangeError(`the bootstrap needs at least one observation, got ${n}`);
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const rng = Rng.from(options.seed);
  const all = Array.from({ length: n }, (_, i) => i);
  const stats = new Float64Array(resamples);
  const idx = new Array<number>(n);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) idx[i] = rng.int(n);
    stats[b] = statistic(idx);
  }
  const alpha = (1 - level) / 2;
  return { estimate: statistic(all), low: quantile(stats, alpha), high: quantile(stats, 1 - alpha), level, n };
}

/** Percentile bootstrap interval of the mean of a list. */
export function bootstrapMeanInterval(xs: ArrayLike<number>, options: BootstrapOptions): Interval {
  return bootstrapInterval(xs.length, (idx) => idx.reduce((s, i) => s + xs[i]!, 0) / idx.length, options);
}

// ---------- correlation ----------

function checkPaired(xs: ArrayLike<number>, ys: ArrayLike<number>): void {
  if (xs.length !== ys.length) throw new RangeError(`paired lists differ in length: ${xs.length} and ${ys.length}`);
}

/** Pearson's correlation coefficient; NaN when either list is constant or shorter than 2. */
export function pearson(xs: ArrayLike<number>, ys: ArrayLike<number>): number {
  checkPaired(xs, ys);
  const n = xs.length;
  if (n < 2) return Number.NaN;
  const mx = mean(xs), my = mean(ys);
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx, dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return Number.NaN;
  return sxy / Math.sqrt(sxx * syy);
}

/** 1-based ranks with ties given their average rank. */
export function ranks(xs: ArrayLike<number>): Float64Array {
  const order = Array.from({ length: xs.length }, (_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const out = new Float64Array(xs.length);
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && xs[order[j + 1]!] === xs[order[i]!]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) out[order[k]!] = rank;
    i = j + 1;
  }
  return out;
}

/** Spearman's rank correlation (Pearson on average ranks, so ties are handled). */
export function spearman(xs: ArrayLike<number>, ys: ArrayLike<number>): number {
  checkPaired(xs, ys);
  return pearson(ranks(xs), ranks(ys));
}
