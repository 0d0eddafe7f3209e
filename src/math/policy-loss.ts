/**
 * The clipped policy-gradient surrogate with dual clip (PPO's objective as
 * verl's `compute_policy_loss` writes it). The paper writes the plain clipped objective; the
 * reference always applies the dual clip, and so do we by default (`dual: null` turns it off).
 * No value model, no entropy term (entropy needs the full vocabulary: it is not a function of
 * the sampled-token log-probs, so it cannot live behind this seam).
 */
import { aggregationWeights, defaultAggregation, weightedSum, type AggregationSpec } from "./aggregate.ts";
import { maskedMean, segmentMask, validateBatch, type StepBatch, type TokenArray, type TokenLoss } from "./batch.ts";

/** Clip range of the importance ratio and the dual-clip cap. */
export type ClipOptions = {
  /** Lower clip ε_low: the ratio is clipped below at 1 − ε_low. @default 0.2 */
  readonly low: number;
  /** Upper clip ε_high: the ratio is clipped above at 1 + ε_high. @default 0.2 */
  readonly high: number;
  /**
   * Dual-clip constant c (> 1): for A < 0 the per-token loss is capped at −A·c, so a token whose
   * ratio exploded cannot dominate the batch. `null` turns it off (the paper's plain objective).
   * @default 3
   */
  readonly dual: number | null;
};

/** The reference defaults: ε_low = ε_high = 0.2, dual clip c = 3. */
export const defaultClip: ClipOptions = { low: 0.2, high: 0.2, dual: 3 };

/** Inputs of `clippedPolicyLoss`. */
export type PolicyLossInput = {
  readonly batch: StepBatch;
  /** `[N]` ℓ_θ, live; the only differentiated input. */
  readonly policyLogprobs: TokenArray;
  /** `[N]` ℓ_old under θ_old, recomputed by the trainer with the same numerics (ratio exactly 1 on the first mini-batch). */
  readonly oldLogprobs: TokenArray;
  /** `[N]` per-token advantage (a GRPO advantage broadcast with `broadcastToTokens`, or RLSD's Â_t). */
  readonly advantages: TokenArray;
  readonly clip?: Partial<ClipOptions>;
  /** @default token-mean */
  readonly aggregation?: AggregationSpec;
};

/**
 * Per-token loss and its derivative with respect to ℓ_θ for advantage `a` and ratio `r`.
 * The derivative is −A·r where the unclipped branch is selected, 0 where a clip binds.
 */
export function clippedTokenLoss(a: number, r: number, clip: ClipOptions): { loss: number; grad: number; clipped: boolean; dualClipped: boolean } {
  const pg1 = -a * r;
  const clippedRatio = Math.min(Math.max(r, 1 - clip.low), 1 + clip.high);
  const pg2 = -a * clippedRatio;
  let loss: number, grad: number;
  if (pg1 >= pg2) {
    loss = pg1;
    grad = -a * r;
  } else {
    loss = pg2;
    grad = clippedRatio === r ? -a * r : 0;
  }
  let dualClipped = false;
  if (clip.dual !== null && a < 0 && loss > -a * clip.dual) {
    loss = -a * clip.dual;
    grad = 0;
    dualClipped = true;
  }
  return { loss, grad, clipped: pg2 > pg1, dualClipped };
}

/**
 * Eq. (RL), first term: the clipped surrogate −E[min(ρ·A, clip(ρ, 1 − ε, 1 + ε)·A)].
 * L_pg = Agg(max(−A·r, −A·clip(r, 1 − ε_low, 1 + ε_high))), capped at −A·c for A < 0, with
 * r = exp(ℓ_θ − ℓ_old).
 *
 * **The value reads about 0 while the model trains**: on the first mini-batch of an update r = 1,
 * so the value is −Agg(A), which is about 0 for group-centred advantages, while the gradient is
 * −A per token. Progress shows in `reward/mean`, `group/frac_zero_std` and the gradient norm,
 * not in this number.
 *
 * Metrics: `pg/loss`; `pg/clip_frac` (tokens where the clipped branch is larger);
 * `pg/clip_frac_lower` (A < 0 tokens capped by the dual clip); `pg/ppo_kl` (mean ℓ_old − ℓ_θ);
 * `pg/ratio_mean`, `pg/ratio_max`. Means are over trained tokens, whatever the aggregation.
 */
export function clippedPolicyLoss(input: PolicyLossInput): TokenLoss {
  const { batch, policyLogprobs, oldLogprobs, advantages } = input;
  validateBatch(batch, { policyLogprobs, oldLogprobs, advantages });
  const clip: ClipOptions = { ...defaultClip, ...input.clip };
  if (clip.dual !== null && !(clip.dual > 1)) throw new RangeError(`the dual-clip constant must be > 1, got ${clip.dual}`);
  const mask = segmentMask(batch);
  const w = aggregationWeights(batch.segments, mask, input.aggregation ?? defaultAggregation);
  const n = mask.length;
  const perToken = new Float64Array(n);
  const dLogprobs = new Float64Array(n);
  const clipped = new Float64Array(n);
  const dual = new Float64Array(n);
  const ratio = new Float64Array(n);
  const drift = new Float64Array(n);
  let ratioMax = 0;
  for (let t = 0; t < n; t++) {
    if (mask[t] === 0) continue;
    const r = Math.exp(policyLogprobs[t]! - oldLogprobs[t]!);
    const tok = clippedTokenLoss(advantages[t]!, r, clip);
    perToken[t] = tok.loss;
    dLogprobs[t] = w[t]! * tok.grad;
    clipped[t] = tok.clipped ? 1 : 0;
    dual[t] = tok.dualClipped ? 1 : 0;
    ratio[t] = r;
    drift[t] = oldLogprobs[t]! - policyLogprobs[t]!;
    ratioMax = Math.max(ratioMax, r);
  }
  const value = weightedSum(perToken, w);
  return {
    value,
    dLogprobs,
    metrics: {
      "pg/loss": value,
      "pg/clip_frac": maskedMean(clipped, mask),
      "pg/clip_frac_lower": maskedMean(dual, mask),
      "pg/ppo_kl": maskedMean(drift, mask),
      "pg/ratio_mean": maskedMean(ratio, mask),
      "pg/ratio_max": ratioMax,
    },
  };
}
