/**
 * KL estimators on sampled tokens (verl's `kl_penalty`, `verl/trainer/ppo/core_algos.py`), used as
 * a loss term
 * against the reference policy (the starting weights; for SEED the Stage-1 SFT checkpoint).
 * KL-in-reward is not offered. Upstream's `k3+` (k3 value, k2 gradient, straight-through) is
 * left out on purpose: its gradient is not the derivative of its value, so it would need its own
 * exemption from the finite-difference check, and no SEED-family script uses it.
 */
import { aggregationWeights, defaultAggregation, weightedSum, type AggregationSpec } from "./aggregate.ts";
import { maskedMean, segmentMask, validateBatch, type StepBatch, type TokenArray, type TokenLoss } from "./batch.ts";
import { lookupName } from "./registry.ts";

/** One estimator: value and d(value)/d(ℓ_θ) on one token. */
export type KlEstimator = (policyLogprob: number, referenceLogprob: number) => { value: number; grad: number };

/** k3's value clamp, as in the reference (only the upper side can bind since k3 ≥ 0). */
const K3_CLAMP = 10;
/** Upstream clamps x to [−20, 20] before the exponential; inside the value clamp it only avoids overflow. */
const K3_EXP_CLAMP = 20;

/**
 * The estimators, by name, with x = ℓ_ref − ℓ_θ:
 * - `k1` = ℓ_θ − ℓ_ref, gradient 1 (unbiased, high variance, can be negative);
 * - `abs` = |ℓ_θ − ℓ_ref|, gradient sign(ℓ_θ − ℓ_ref);
 * - `k2` = ½(ℓ_θ − ℓ_ref)², gradient ℓ_θ − ℓ_ref;
 * - `k3` = clamp(e^x − x − 1, −10, 10), gradient 1 − e^x where unclamped, else 0
 *   (the reference's `low_var_kl`; a token more than 2.610869 nats below the reference, or
 *   10.999983 above it, gets no KL pull).
 */
export const klEstimators = {
  k1: (lp: number, ref: number) => ({ value: lp - ref, grad: 1 }),
  abs: (lp: number, ref: number) => ({ value: Math.abs(lp - ref), grad: Math.sign(lp - ref) }),
  k2: (lp: number, ref: number) => ({ value: 0.5 * (lp - ref) ** 2, grad: lp - ref }),
  k3: (lp: number, ref: number) => {
    const x = Math.min(Math.max(ref - lp, -K3_EXP_CLAMP), K3_EXP_CLAMP);
    const ex = Math.exp(x);
    const raw = ex - x - 1;
    if (raw > K3_CLAMP) return { value: K3_CLAMP, grad: 0 };
    return { value: raw, grad: 1 - ex };
  },
} as const satisfies Record<string, KlEstimator>;

/** Name of a KL estimator. */
export type KlEstimatorName = keyof typeof klEstimators;

/** verl's names for the same estimators, accepted from presets. */
export const klAliases = { kl: "k1", mse: "k2", low_var_kl: "k3" } as const satisfies Record<string, KlEstimatorName>;

/** An estimator from an untyped name or alias, or a `ConfigError` listing the valid names. */
export function parseKlEstimator(name: string): KlEstimatorName {
  if (Object.hasOwn(klAliases, name)) return klAliases[name as keyof typeof klAliases];
  return lookupName(klEstimators, name, "kl.estimator", "KL estimator");
}

/** Inputs of `klPenalty`. */
export type KlInput = {
  readonly batch: StepBatch;
  /** `[N]` ℓ_θ, live. */
  readonly policyLogprobs: TokenArray;
  /** `[N]` ℓ_ref under the frozen reference policy. */
  readonly referenceLogprobs: TokenArray;
  /** @default "k3" */
  readonly estimator?: KlEstimatorName;
  /** @default token-mean */
  readonly aggregation?: AggregationSpec;
};

/**
 * L_kl = Agg(estimator(ℓ_θ, ℓ_ref)), Eq. (RL)'s second term; the trainer scales it by β_KL (0.01 in the paper).
 * Metrics: `kl/loss` (aggregated), `kl/mean` (mean over trained tokens), `kl/clamped_frac` (k3 only).
 */
export function klPenalty(input: KlInput): TokenLoss {
  const { batch, policyLogprobs, referenceLogprobs } = input;
  validateBatch(batch, { policyLogprobs, referenceLogprobs });
  const name = input.estimator ?? "k3";
  const estimator: KlEstimator = klEstimators[lookupName(klEstimators, name, "kl.estimator", "KL estimator")];
  const mask = segmentMask(batch);
  const w = aggregationWeights(batch.segments, mask, input.aggregation ?? defaultAggregation);
  const n = mask.length;
  const perToken = new Float64Array(n);
  const dLogprobs = new Float64Array(n);
  const clamped = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    if (mask[t] === 0) continue;
    const { value, grad } = estimator(policyLogprobs[t]!, referenceLogprobs[t]!);
    perToken[t] = value;
    dLogprobs[t] = w[t]! * grad;
    if (name === "k3" && value === K3_CLAMP) clamped[t] = 1;
  }
  const value = weightedSum(perToken, w);
  const metrics: Record<string, number> = { "kl/loss": value, "kl/mean": maskedMean(perToken, mask) };
  if (name === "k3") metrics["kl/clamped_frac"] = maskedMean(clamped, mask);
  return { value, dLogprobs, metrics };
}
