/**
 * The gated on-policy distillation term: SEED's L_opd (paper Eq. 1) and SDAR's loss
 * (`compute_sdar_loss`, `ZJU-REAL/SDAR:verl/trainer/ppo/sdar_utils.py`). One function serves four
 * methods, which differ only in data and β:
 * - SEED: the trajectory's own on-policy skill as teacher context, β = 5, λ = 0.01;
 * - SDAR: a static library skill as teacher context, β = 5, λ = 0.01;
 * - OPSD (agentic): as SDAR with the RL term switched off (c_pg = 0 in the trainer);
 * - GRPO+OPSD: β = 0, so every gate is 0.5 (uniform self-imitation, not the original OPSD
 *   gradient −Δ·∇ℓ_θ, which is a JSD over the vocabulary and is not implemented here).
 * The teacher log-probs are inputs: whether they were scored `live` or `frozen` is the
 * trainer's schedule (`opd.teacherScoring`), invisible to this function.
 */
import { aggregationWeights, defaultAggregation, weightedSum, type AggregationSpec } from "./aggregate.ts";
import { segmentMask, validateBatch, type StepBatch, type TokenArray, type TokenLoss } from "./batch.ts";
import { ShapeError } from "../core/errors.ts";

/**
 * The gate g = σ(β_opd·Δ) of Eq. (1), numerically stable for large |β·Δ|.
 * @example gate(0.3, 5) // 0.81757
 */
export function gate(delta: number, beta: number): number {
  const z = beta * delta;
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

/** Options of the gated term. */
export type OpdOptions = {
  /**
   * Gate sharpness β in g = σ(β·Δ). 0 makes every gate 0.5 (the GRPO+OPSD baseline); larger
   * values separate tokens more but react more to a stale teacher (σ(β·z) is β/4-Lipschitz).
   * @default 5
   * @example { beta: 0 }   // GRPO+OPSD
   */
  readonly beta: number;
  /**
   * Denominator of the mean modes when some trajectories have no valid skill. `response`: the
   * full response mask (our default; λ means the same as in the paper when every skill is
   * valid, and the term shrinks when some fail). `active`: only tokens with a valid skill (the
   * reference code's product mask, which re-weights the survivors).
   * @default "response"
   */
  readonly denominator: "response" | "active";
};

/** The paper's gate: β = 5, denominator over the full response mask. */
export const defaultOpd: OpdOptions = { beta: 5, denominator: "response" };

/** Inputs of `gatedDistillation`. */
export type DistillationInput = {
  readonly batch: StepBatch;
  /** `[N]` ℓ_θ of the sampled tokens under the plain context h; the only differentiated input. */
  readonly policyLogprobs: TokenArray;
  /** `[N]` ℓ_T of the same tokens under H(h, s); never differentiated. */
  readonly teacherLogprobs: TokenArray;
  /** `[S]` v_τ: 0 for every step-sample of a trajectory whose analysis failed. @default all 1 */
  readonly skillValid?: ArrayLike<number>;
  readonly opd?: Partial<OpdOptions>;
  /** @default token-mean */
  readonly aggregation?: AggregationSpec;
  /**
   * Stop-gradient quantities held fixed (for finite-difference checks, `testing/grad-check.ts`):
   * `[N]` gates
   * computed from the unperturbed log-probs. Omitted in training, where they are computed here.
   */
  readonly detached?: { readonly gates?: TokenArray };
};

/**
 * Eq. (1), L_opd = E[m·g·stopgrad(ℓ_skill − ℓ_θ)] with the gradient the paper derives,
 * −E[m·g·∇ℓ_θ]; the teacher ℓ_skill is Eq. (Teacher), the student ℓ_θ Eq. (Student).
 * L_opd = Agg(v·g·(ℓ_T − ℓ_θ)) with Δ = ℓ_T − sg[ℓ_θ] and g = sg[σ(β·Δ)].
 *
 * **Test and read the gradient, not the value.** The gradient is exactly −v·g·w_t per token
 * (w_t the aggregation weight: −g·m/Σm for token-mean): every sampled token is pushed up, harder
 * where the skill-conditioned teacher agrees, and the sign never changes with Δ. Relative credit
 * comes through the softmax (paper Prop. 2). The printed value g·Δ is the paper's Eq. 1 and has
 * no optimisation meaning: watch `opd/gate_mean` instead.
 *
 * Metrics, over tokens with a valid skill: `opd/loss`, `opd/gate_mean`, `opd/gate_std`,
 * `opd/gate_active_frac` (g > 0.5), `opd/teacher_gap_mean` (mean Δ), `opd/mask_frac` (share of
 * trained tokens with a valid skill).
 */
export function gatedDistillation(input: DistillationInput): TokenLoss {
  const { batch, policyLogprobs, teacherLogprobs, skillValid } = input;
  validateBatch(batch, { policyLogprobs, teacherLogprobs, gates: input.detached?.gates }, { skillValid });
  const opd: OpdOptions = { ...defaultOpd, ...input.opd };
  const responseMask = segmentMask(batch);
  const active = skillValid === undefined ? responseMask : activeMask(batch, responseMask, skillValid);
  const denominatorMask = opd.denominator === "active" ? active : responseMask;
  const w = aggregationWeights(batch.segments, denominatorMask, input.aggregation ?? defaultAggregation);
  const n = responseMask.length;
  const perToken = new Float64Array(n);
  const dLogprobs = new Float64Array(n);
  let count = 0, gateSum = 0, gateSq = 0, gateActive = 0, gapSum = 0, trained = 0;
  for (let t = 0; t < n; t++) {
    if (responseMask[t] !== 0) trained++;
    if (active[t] === 0) continue;
    const delta = teacherLogprobs[t]! - policyLogprobs[t]!;
    const g = input.detached?.gates?.[t] ?? gate(delta, opd.beta);
    perToken[t] = g * delta;
    dLogprobs[t] = -g * w[t]!;
    count++;
    gateSum += g;
    gateSq += g * g;
    if (g > 0.5) gateActive++;
    gapSum += delta;
  }
  const value = weightedSum(perToken, w);
  const gateMean = count === 0 ? 0 : gateSum / count;
  return {
    value,
    dLogprobs,
    metrics: {
      "opd/loss": value,
      "opd/gate_mean": gateMean,
      "opd/gate_std": count === 0 ? 0 : Math.sqrt(Math.max(0, gateSq / count - gateMean * gateMean)),
      "opd/gate_active_frac": count === 0 ? 0 : gateActive / count,
      "opd/teacher_gap_mean": count === 0 ? 0 : gapSum / count,
      "opd/mask_frac": trained === 0 ? 0 : count / trained,
    },
  };
}

/** The detached gates of a batch, `[N]` (0 outside the trained tokens): what `detached.gates` expects. */
export function distillationGates(batch: StepBatch, policyLogprobs: TokenArray, teacherLogprobs: TokenArray, beta: number): Float64Array {
  validateBatch(batch, { policyLogprobs, teacherLogprobs });
  const mask = segmentMask(batch);
  const out = new Float64Array(mask.length);
  for (let t = 0; t < mask.length; t++) if (mask[t] !== 0) out[t] = gate(teacherLogprobs[t]! - policyLogprobs[t]!, beta);
  return out;
}

/** Response mask times the per-sample skill validity v_τ (0/1). */
function activeMask(batch: StepBatch, responseMask: Float64Array, skillValid: ArrayLike<number>): Float64Array {
  const out = new Float64Array(responseMask.length);
  batch.segments.forEach((seg, s) => {
    const v = skillValid[s]!;
    if (v !== 0 && v !== 1) throw new ShapeError(`skillValid[${s}] = ${v}; skill validity is 0 or 1`);
    if (v === 0) return;
    for (let t = seg.start; t < seg.start + seg.length; t++) out[t] = responseMask[t]!;
  });
  return out;
}
