/**
 * Negative log-likelihood on sampled (or target) tokens: Stage-0 behaviour cloning and Stage-1
 * hindsight-skill SFT (L_sft = −Σ log π(s_l | x, s_<l)). The same per-token-weight seam as every
 * RL term: with token-mean the weight is −m_t/Σm.
 */
import { aggregationWeights, defaultAggregation, weightedSum, type AggregationSpec } from "./aggregate.ts";
import { segmentMask, validateBatch, type StepBatch, type TokenArray, type TokenLoss } from "./batch.ts";

/** Inputs of `nllLoss`. */
export type NllInput = {
  readonly batch: StepBatch;
  /** `[N]` ℓ_θ of the target tokens; `lossMask` 1 on the tokens to learn (the skill, the expert action). */
  readonly policyLogprobs: TokenArray;
  /** @default token-mean */
  readonly aggregation?: AggregationSpec;
};

/**
 * L = −Agg(ℓ_θ): Eq. (SFT) of Stage 1 (and Stage 0's behaviour cloning). Metrics: `sft/nll` (the value), `sft/tokens` (trained tokens).
 * @example nllLoss({ batch: batchFromLengths([2]), policyLogprobs: [-1, -3] }) // value 2, dLogprobs [-0.5, -0.5]
 */
export function nllLoss(input: NllInput): TokenLoss {
  const { batch, policyLogprobs } = input;
  validateBatch(batch, { policyLogprobs });
  const mask = segmentMask(batch);
  const w = aggregationWeights(batch.segments, mask, input.aggregation ?? defaultAggregation);
  const dLogprobs = new Float64Array(mask.length);
  let tokens = 0;
  for (let t = 0; t < mask.length; t++) {
    if (mask[t] === 0) continue;
    dLogprobs[t] = -w[t]!;
    tokens++;
  }
  const value = -weightedSum(policyLogprobs, w);
  return { value, dLogprobs, metrics: { "sft/nll": value, "sft/tokens": tokens } };
}

/** Inputs of `weightedNllLoss`. */
export type WeightedNllInput = {
  /** Its `lossMask` is 1 where `tokenWeights` is positive. */
  readonly batch: StepBatch;
  readonly policyLogprobs: TokenArray;
  /** `[N]` relative weight of each token, ≥ 0 (1 on the expert's tokens, less on context tokens). */
  readonly tokenWeights: ArrayLike<number>;
};

/**
 * L = −Σ_t c_t ℓ_θ,t / Σ_t c_t: the NLL as a weighted token mean over the whole batch (with every
 * c_t ∈ {0, 1} it is `nllLoss` with token-mean). Stage 0 uses it to add a little language
 * modelling of the context to behaviour cloning. Metrics as `nllLoss` (`sft/tokens` counts c_t > 0).
 * @example weightedNllLoss({ batch: batchFromLengths([2]), policyLogprobs: [-1, -3], tokenWeights: [1, 0.5] }) // value 5/3, dLogprobs [-2/3, -1/3]
 */
export function weightedNllLoss(input: WeightedNllInput): TokenLoss {
  const { batch, policyLogprobs, tokenWeights } = input;
  validateBatch(batch, { policyLogprobs, tokenWeights });
  const mask = segmentMask(batch);
  let total = 0, tokens = 0;
  for (let t = 0; t < mask.length; t++) {
    const c = tokenWeights[t]!;
    if (!(c >= 0) || !Number.isFinite(c)) throw new RangeError(`tokenWeights[${t}] = ${c}; token weights are finite and >= 0`);
    if (mask[t] === 0 || c === 0) continue;
    total += c;
    tokens++;
  }
  const dLogprobs = new Float64Array(mask.length);
  let value = 0;
  if (total > 0) {
    for (let t = 0; t < mask.length; t++) {
      if (mask[t] === 0 || tokenWeights[t] === 0) continue;
      dLogprobs[t] = -tokenWeights[t]! / total;
      value -= (tokenWeights[t]! / total) * policyLogprobs[t]!;
    }
  }
  return { value, dLogprobs, metrics: { "sft/nll": value, "sft/tokens": tokens } };
}
