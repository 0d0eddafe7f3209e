/**
 * Token-advantage estimators by name, beside the loss terms of `losses.ts`: what turns the
 * per-step-sample group advantage (RL-Adv) into the per-token advantages the policy-gradient
 * term (RL) reads. `grpo` broadcasts it unchanged; `rlsd` rescales it per token with a
 * privileged self-teacher. A method names its estimator (`pg.advantage`), so RLSD is one key,
 * not a branch. GiGPO is not here: its step advantage needs anchor observations that the
 * update's step-samples do not carry (`gigpoAdvantages` stays a catalogue function).
 */
import { broadcastToTokens, type StepBatch, type TokenArray } from "./batch.ts";
import { rlsdLambda, rlsdTokenAdvantages, type RlsdOptions } from "./rlsd.ts";

/** What an estimator reads, per mini-batch. */
export type EstimatorInput = {
  readonly batch: StepBatch;
  /** `[S]` the group advantage of each step-sample (Eq. RL-Adv). */
  readonly sampleAdvantages: ArrayLike<number>;
  /** `[N]` ℓ_old. */
  readonly oldLogprobs: TokenArray;
  /** `[N]` ℓ_T scored once with θ_old; present when the estimator `needsTeacher`. */
  readonly teacherLogprobs?: TokenArray;
  /** 1-based index of the update (decay schedules). */
  readonly update: number;
};

/** Settings the estimators share. */
export type EstimatorSettings = { readonly rlsd: RlsdOptions };

/** One estimator: per-token advantages `[N]`, 0 outside segments. */
export type AdvantageEstimator = ((input: EstimatorInput, settings: EstimatorSettings) => Float64Array) & {
  /** Whether it reads teacher log-probs (scored once per update, before the mini-batch loop). */
  readonly needsTeacher: boolean;
  /** The advantage in a one-line formula. */
  readonly symbol: (settings: EstimatorSettings) => string;
  /** Metrics of one update (logged once, not per mini-batch). */
  readonly updateMetrics: (update: number, settings: EstimatorSettings) => Record<string, number>;
};

/** Builds a catalogue entry from its function and what it needs. */
export function estimator(
  spec: { readonly needsTeacher: boolean; readonly symbol: AdvantageEstimator["symbol"]; readonly updateMetrics?: AdvantageEstimator["updateMetrics"] },
  estimate: (input: EstimatorInput, settings: EstimatorSettings) => Float64Array,
): AdvantageEstimator {
  return Object.assign((x: EstimatorInput, s: EstimatorSettings) => estimate(x, s), { needsTeacher: spec.needsTeacher, symbol: spec.symbol, updateMetrics: spec.updateMetrics ?? (() => ({})) });
}

function teacherOf(x: EstimatorInput, name: string): TokenArray {
  if (x.teacherLogprobs === undefined) throw new RangeError(`the '${name}' advantage needs teacher log-probs, which the input lacks`);
  return x.teacherLogprobs;
}

/** The estimators. */
export const advantageEstimators = {
  /** (RL-Adv) the group advantage on every token of its step-sample. */
  grpo: estimator({ needsTeacher: false, symbol: () => "GRPO" }, (x) => broadcastToTokens(x.batch, x.sampleAdvantages)),
  /** RLSD: A·((1 − λ_k) + λ_k·clip(exp(sign(A)·(ℓ_T − ℓ_old)), 1 − ε_w, 1 + ε_w)). */
  rlsd: estimator(
    {
      needsTeacher: true,
      symbol: (s) => `RLSD(λ0 ${s.rlsd.lambda0}, over ${s.rlsd.warmDown} updates, ε_w ${s.rlsd.epsW})`,
      updateMetrics: (update, s) => ({ "rlsd/lambda": rlsdLambda(update, s.rlsd) }),
    },
    (x, s) => rlsdTokenAdvantages({
      batch: x.batch, advantages: x.sampleAdvantages, teacherLogprobs: teacherOf(x, "rlsd"), oldLogprobs: x.oldLogprobs, lambda: rlsdLambda(x.update, s.rlsd), epsW: s.rlsd.epsW,
    }),
  ),
} as const satisfies Record<string, AdvantageEstimator>;

/** Name of an estimator. */
export type AdvantageName = keyof typeof advantageEstimators;

/** A catalogue of estimators by name (the built-in map, or it plus one's own). */
export type EstimatorCatalogue = Readonly<Record<string, AdvantageEstimator>>;
