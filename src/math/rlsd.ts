/**
 * RLSD token advantages (`ZJU-REAL/SDAR:verl/trainer/ppo/rlsd_utils.py`):
 * a privileged self-teacher rescales the GRPO advantage per token, the RL signal keeps the sign,
 * and the teacher's share decays to plain GRPO over K updates. Not a loss: the result replaces
 * the advantages fed to `clippedPolicyLoss`. The teacher is always scored once per update
 * (`frozen`), since it enters the advantage before the mini-batch loop.
 */
import { validateBatch, type StepBatch, type TokenArray } from "./batch.ts";

/** Options of the RLSD advantage. */
export type RlsdOptions = {
  /** Initial teacher share λ₀. @default 0.5 */
  readonly lambda0: number;
  /** Updates over which λ decays linearly to 0 (scripts 100; code default 50). @default 100 */
  readonly warmDown: number;
  /** Clip ε_w of the teacher ratio around 1. @default 0.2 */
  readonly epsW: number;
};

/** The scripts' values. */
export const defaultRlsd: RlsdOptions = { lambda0: 0.5, warmDown: 100, epsW: 0.2 };

/**
 * λ_k = λ₀·max(0, 1 − k/K). The reference counts updates from 1, so the first update uses 0.495.
 * @example rlsdLambda(50) // 0.25
 */
export function rlsdLambda(update: number, options: Partial<RlsdOptions> = {}): number {
  const { lambda0, warmDown } = { ...defaultRlsd, ...options };
  if (!(warmDown > 0)) throw new RangeError(`the RLSD warm-down must be positive, got ${warmDown}`);
  return lambda0 * Math.max(0, 1 - update / warmDown);
}

/** Inputs of `rlsdTokenAdvantages`. */
export type RlsdInput = {
  readonly batch: StepBatch;
  /** `[S]` the GRPO advantage of each step-sample (read at its first valid token in the reference). */
  readonly advantages: ArrayLike<number>;
  /** `[N]` ℓ_T under the privileged context, scored with θ_old. */
  readonly teacherLogprobs: TokenArray;
  /** `[N]` ℓ_old under θ_old. */
  readonly oldLogprobs: TokenArray;
  /** λ_k of this update (`rlsdLambda`). */
  readonly lambda: number;
  /** @default 0.2 */
  readonly epsW?: number;
};

/**
 * Â_t = A·((1 − λ) + λ·clip(exp(sign(A)·(ℓ_T − ℓ_old)), 1 − ε_w, 1 + ε_w)), `[N]`, 0 outside
 * segments. For A > 0 tokens the teacher likes get more credit; for A < 0 tokens the teacher
 * dislikes get more blame; A = 0 stays 0.
 */
export function rlsdTokenAdvantages(input: RlsdInput): Float64Array {
  const { batch, advantages, teacherLogprobs, oldLogprobs, lambda } = input;
  validateBatch(batch, { teacherLogprobs, oldLogprobs }, { advantages });
  const epsW = input.epsW ?? defaultRlsd.epsW;
  const out = new Float64Array(batch.lossMask.length);
  batch.segments.forEach((seg, s) => {
    const a = advantages[s]!;
    for (let t = seg.start; t < seg.start + seg.length; t++) {
      const ratio = Math.exp(Math.sign(a) * (teacherLogprobs[t]! - oldLogprobs[t]!));
      const weight = Math.min(Math.max(ratio, 1 - epsW), 1 + epsW);
      out[t] = a * (1 - lambda + lambda * weight);
    }
  });
  return out;
}
