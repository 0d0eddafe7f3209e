/**
 * The Skill-SD term (`ZJU-REAL/SDAR:verl/trainer/ppo/skillsd_utils.py`):
 * a reverse-KL estimator between student and skill-conditioned teacher on the student's own
 * sample, weighted by an importance ratio that keeps its gradient. The Skill-SD paper writes its
 * skills from the agent's own trajectories; the reproduction (and our preset) uses the static
 * library. No warm-down.
 */
import { aggregationWeights, defaultAggregation, weightedSum, type AggregationSpec } from "./aggregate.ts";
import { maskedMean, segmentMask, validateBatch, type StepBatch, type TokenArray, type TokenLoss } from "./batch.ts";

/** Upper clamp of ℓ_θ − ℓ_old inside ρ (reference value). */
const RHO_LOG_CLAMP = 10;
/** Upper clamp of −d inside the exponential of k3 (reference value). */
const K3_EXP_CLAMP = 20;

/** Inputs of `skillSdLoss`. */
export type SkillSdInput = {
  readonly batch: StepBatch;
  /** `[N]` ℓ_θ, live; differentiated through both ρ and k3. */
  readonly policyLogprobs: TokenArray;
  /** `[N]` ℓ_old under θ_old. */
  readonly oldLogprobs: TokenArray;
  /** `[N]` ℓ_T under the skill-conditioned context; never differentiated. */
  readonly teacherLogprobs: TokenArray;
  /** @default token-mean */
  readonly aggregation?: AggregationSpec;
};

/**
 * Per token, with d = ℓ_θ − ℓ_T: k3 = exp(min(−d, 20)) − 1 + d, ρ = exp(min(ℓ_θ − ℓ_old, 10)),
 * loss = Agg(ρ·k3). Where neither clamp binds d(ρ·k3)/dℓ_θ = ρ·d: tokens the student
 * over-weights relative to the teacher are pushed down, the others up. λ = 0.001 in the scripts.
 * Metrics: `skill_sd/loss`, `skill_sd/k3_mean`, `skill_sd/rho_mean`.
 */
export function skillSdLoss(input: SkillSdInput): TokenLoss {
  const { batch, policyLogprobs, oldLogprobs, teacherLogprobs } = input;
  validateBatch(batch, { policyLogprobs, oldLogprobs, teacherLogprobs });
  const mask = segmentMask(batch);
  const w = aggregationWeights(batch.segments, mask, input.aggregation ?? defaultAggregation);
  const n = mask.length;
  const perToken = new Float64Array(n);
  const dLogprobs = new Float64Array(n);
  const k3s = new Float64Array(n);
  const rhos = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    if (mask[t] === 0) continue;
    const d = policyLogprobs[t]! - teacherLogprobs[t]!;
    const e = Math.exp(Math.min(-d, K3_EXP_CLAMP));
    const k3 = e - 1 + d;
    const dk3 = (-d < K3_EXP_CLAMP ? -e : 0) + 1;
    const logRatio = policyLogprobs[t]! - oldLogprobs[t]!;
    const rho = Math.exp(Math.min(logRatio, RHO_LOG_CLAMP));
    const drho = logRatio < RHO_LOG_CLAMP ? rho : 0;
    perToken[t] = rho * k3;
    dLogprobs[t] = w[t]! * (drho * k3 + rho * dk3);
    k3s[t] = k3;
    rhos[t] = rho;
  }
  const value = weightedSum(perToken, w);
  return {
    value,
    dLogprobs,
    metrics: { "skill_sd/loss": value, "skill_sd/k3_mean": maskedMean(k3s, mask), "skill_sd/rho_mean": maskedMean(rhos, mask) },
  };
}
