// Reference values were computed with SciPy 1.10 (scipy.stats.t.ppf / norm.ppf / pearsonr /
// spearmanr, scipy.special.betainc / gammainc / gammaln) in double precision.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bootstrapInterval, bootstrapMeanInterval, incompleteBeta, incompleteGamma, lnGamma, mean, meanInterval, normalCdf, normalQuantile,
  pearson, quantile, ranks, spearman, std, studentTCdf, studentTQuantile, variance, wilsonInterval,
} from "./stats.ts";
import { Rng } from "../core/rng.ts";

const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

test("mean, variance (both conventions), std, quantile", () => {
  close(mean([1, 2, 3, 4]), 2.5);
  close(variance([1, 0, 0, 1], "population"), 0.25);
  close(variance([1, 0, 0, 1], "bessel"), 1 / 3);
  close(std([2, 4, 4, 4, 5, 5, 7, 9], "population"), 2);
  assert.ok(Number.isNaN(variance([3], "bessel")));
  close(quantile([5, 1, 3, 2, 4], 0.5), 3);
  close(quantile([1, 2, 3, 4], 0.25), 1.75);
});

test("special functions agree with SciPy", () => {
  close(lnGamma(0.3), 1.0957979948180756, 1e-12);
  close(lnGamma(10.5), 13.940625219403763, 1e-12);
  close(lnGamma(5), Math.log(24), 1e-12);
  close(incompleteBeta(0.4, 2, 3), 0.5248, 1e-12);
  close(incompleteBeta(0.9, 0.5, 7.5), 0.9999999932897103, 1e-12);
  close(incompleteGamma(2.5, 1.7), 0.36143007689620493, 1e-12);
  close(normalCdf(-1.5), 0.06680720126885807, 1e-12);
  close(normalCdf(2.2), 0.9860965524865014, 1e-12);
});

test("Student t CDF and 0.975 quantiles for small n agree with SciPy", () => {
  close(studentTCdf(-1.3, 3), 0.14223375436394853, 1e-12);
  close(studentTCdf(2.1, 17), 0.974520076385433, 1e-12);
  const q: Array<[df: number, t: number]> = [[1, 12.706204736174694], [2, 4.302652729749462], [4, 2.7764451051977934], [9, 2.262157162798205], [29, 2.045229642132703]];
  for (const [df, t] of q) close(studentTQuantile(0.975, df), t, 1e-9);
  close(normalQuantile(0.975), 1.959963984540054, 1e-9);
  close(studentTQuantile(0.975, 1e7), 1.959964, 1e-5);
});

test("the t-interval of three seeds [0.82, 0.88, 0.79] is [0.716163, 0.943837]; one run has no interval", () => {
  const ci = meanInterval([0.82, 0.88, 0.79]);
  close(ci.estimate, 0.83, 1e-12);
  close(ci.low, 0.7161625089920973, 1e-9);
  close(ci.high, 0.9438374910079028, 1e-9);
  const one = meanInterval([0.5]);
  assert.ok(Number.isNaN(one.low) && Number.isNaN(one.high));
});

test("Wilson interval: 7/10 gives [0.396778, 0.892209]; 0/20 stays inside [0, 1]", () => {
  const w = wilsonInterval(7, 10);
  close(w.low, 0.39677814746114537, 1e-9);
  close(w.high, 0.8922087325936989, 1e-9);
  const z = wilsonInterval(0, 20);
  assert.equal(z.low, 0);
  close(z.high, 0.16112515805281938, 1e-9);
  assert.throws(() => wilsonInterval(3, 2), RangeError);
});

test("Pearson and Spearman (with ties) agree with SciPy", () => {
  const x = [0.2, 0.5, 0.1, 0.9, 0.7, 0.4];
  const y = [1.0, 2.5, 0.3, 2.0, 3.1, 0.8];
  close(pearson(x, y), 0.7597072232965891, 1e-12);
  close(spearman(x, y), 0.7714285714285715, 1e-12);
  assert.deepEqual(Array.from(ranks([1, 2, 2, 3, 4, 4, 4])), [1, 2.5, 2.5, 4, 6, 6, 6]);
  close(spearman([1, 2, 2, 3, 4, 4, 4], [3, 1, 4, 1, 5, 9, 2]), 0.3870681424252975, 1e-12);
  assert.ok(Number.isNaN(pearson([1, 1, 1], [1, 2, 3])));
  assert.throws(() => pearson([1, 2], [1]), RangeError);
});

test("the bootstrap is deterministic per seed, brackets the mean, and narrows with n", () => {
  const rng = Rng.from(9);
  const small = Array.from({ length: 20 }, () => rng.normal());
  const large = Array.from({ length: 500 }, () => rng.normal());
  const a = bootstrapMeanInterval(small, { seed: 1 });
  const b = bootstrapMeanInterval(small, { seed: 1 });
  const c = bootstrapMeanInterval(small, { seed: 2 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.ok(a.low < a.estimate && a.estimate < a.high);
  const big = bootstrapMeanInterval(large, { seed: 1 });
  assert.ok(big.high - big.low < a.high - a.low);
  // it roughly matches the t-interval for normal data
  const t = meanInterval(large);
  close(big.low, t.low, 0.03);
  close(big.high, t.high, 0.03);
});

test("a paired bootstrap of a correlation keeps pairs together", () => {
  const rng = Rng.from(5);
  const xs = Array.from({ length: 200 }, () => rng.normal());
  const ys = xs.map((x) => x + 0.5 * rng.normal());
  const ci = bootstrapInterval(xs.length, (idx) => pearson(idx.map((i) => xs[i]!), idx.map((i) => ys[i]!)), { seed: 3, resamples: 500 });
  assert.ok(ci.low > 0.8 && ci.high < 0.95, `${ci.low} ${ci.high}`); // true ρ = 1/sqrt(1.25) = 0.894
});
