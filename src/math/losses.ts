/**
 * The loss catalogue by name, and the sum of weighted terms into one per-token weight array.
 * Every term shares one signature, `(LossInput, LossSettings) => TokenLoss`, so a method is data
 * (which terms, with which coefficients: ALGORITHMS.md §12), never a branch in the trainer:
 *
 * | method | terms (coefficient) |
 * |---|---|
 * | GRPO, Skill-GRPO | policy-gradient (1), kl (β_KL) |
 * | SEED, SDAR | policy-gradient (1), kl (β_KL), opd (λ = 0.01, β = 5) |
 * | GRPO+OPSD | same with opd β = 0 |
 * | OPSD | kl (β_KL), opd (λ) |
 * | Skill-SD | policy-gradient (1), kl (β_KL), skill-sd (λ = 0.001) |
 * | RLSD | policy-gradient (1) on `rlsdTokenAdvantages`, kl (β_KL) |
 * | Stage-0 / Stage-1 SFT | nll (1) |
 *
 * A term with coefficient 0 is not computed, so its inputs (teacher log-probs for `opd`) may be
 * absent. Entropy is not in the catalogue: it needs the full vocabulary (ALGORITHMS.md §6).
 */
import { defaultAggregation, type AggregationSpec } from "./aggregate.ts";
import { validateBatch, type StepBatch, type TokenArray, type TokenLoss } from "./batch.ts";
import { defaultOpd, gatedDistillation, type OpdOptions } from "./distill.ts";
import { klPenalty, type KlEstimatorName } from "./kl.ts";
import { clippedPolicyLoss, defaultClip, type ClipOptions } from "./policy-loss.ts";
import { checkName } from "./registry.ts";
import { nllLoss } from "./sft.ts";
import { skillSdLoss } from "./skill-sd.ts";
import { ShapeError, type ConfigIssue } from "../core/errors.ts";
import type { Result } from "../core/result.ts";

/** Everything a term may read; each term names what it needs and reports what is missing. */
export type LossInput = {
  readonly batch: StepBatch;
  /** `[N]` ℓ_θ, live: the only differentiated input. */
  readonly policyLogprobs: TokenArray;
  /** `[N]` ℓ_old (policy-gradient, skill-sd). */
  readonly oldLogprobs?: TokenArray;
  /** `[N]` ℓ_ref (kl). */
  readonly referenceLogprobs?: TokenArray;
  /** `[N]` ℓ_T (opd, skill-sd). */
  readonly teacherLogprobs?: TokenArray;
  /** `[N]` per-token advantages (policy-gradient); broadcast a per-sample GRPO advantage first. */
  readonly advantages?: TokenArray;
  /** `[S]` v_τ per step-sample (opd). @default all 1 */
  readonly skillValid?: ArrayLike<number>;
  /** Stop-gradient quantities to hold fixed (finite-difference checks only). */
  readonly detached?: { readonly gates?: TokenArray };
};

/** Options shared by the terms. */
export type LossSettings = {
  /** One aggregation for every term, as in the reference (PG, KL and OPD share the actor's mode). */
  readonly aggregation: AggregationSpec;
  readonly clip: ClipOptions;
  /** @default { estimator: "k3" } */
  readonly kl: { readonly estimator: KlEstimatorName };
  readonly opd: OpdOptions;
};

/** The paper/reference defaults: token-mean, clip 0.2/0.2 with dual clip 3, k3, β_opd = 5. */
export const defaultLossSettings: LossSettings = { aggregation: defaultAggregation, clip: defaultClip, kl: { estimator: "k3" }, opd: defaultOpd };

/** One term of the catalogue. */
export type LossTerm = (input: LossInput, settings: LossSettings) => TokenLoss;

function need<K extends "oldLogprobs" | "referenceLogprobs" | "teacherLogprobs" | "advantages">(input: LossInput, key: K, term: string): TokenArray {
  const v = input[key];
  if (v === undefined) throw new ShapeError(`loss term '${term}' needs ${key}, which the input lacks`);
  return v;
}

/** The catalogue. Look a string up with `checkLossName`. */
export const lossTerms = {
  "policy-gradient": (x: LossInput, s: LossSettings) =>
    clippedPolicyLoss({
      batch: x.batch,
      policyLogprobs: x.policyLogprobs,
      oldLogprobs: need(x, "oldLogprobs", "policy-gradient"),
      advantages: need(x, "advantages", "policy-gradient"),
      clip: s.clip,
      aggregation: s.aggregation,
    }),
  kl: (x: LossInput, s: LossSettings) =>
    klPenalty({ batch: x.batch, policyLogprobs: x.policyLogprobs, referenceLogprobs: need(x, "referenceLogprobs", "kl"), estimator: s.kl.estimator, aggregation: s.aggregation }),
  opd: (x: LossInput, s: LossSettings) =>
    gatedDistillation({
      batch: x.batch,
      policyLogprobs: x.policyLogprobs,
      teacherLogprobs: need(x, "teacherLogprobs", "opd"),
      ...(x.skillValid === undefined ? {} : { skillValid: x.skillValid }),
      ...(x.detached === undefined ? {} : { detached: x.detached }),
      opd: s.opd,
      aggregation: s.aggregation,
    }),
  "skill-sd": (x: LossInput, s: LossSettings) =>
    skillSdLoss({
      batch: x.batch,
      policyLogprobs: x.policyLogprobs,
      oldLogprobs: need(x, "oldLogprobs", "skill-sd"),
      teacherLogprobs: need(x, "teacherLogprobs", "skill-sd"),
      aggregation: s.aggregation,
    }),
  nll: (x: LossInput, s: LossSettings) => nllLoss({ batch: x.batch, policyLogprobs: x.policyLogprobs, aggregation: s.aggregation }),
} as const satisfies Record<string, LossTerm>;

/** Name of a loss term; a misspelt name in TypeScript is a compile error. */
export type LossName = keyof typeof lossTerms;

/** A loss name from an untyped string (a JSON preset), or an issue listing the valid names. */
export function checkLossName(name: string, path = "loss.terms"): Result<LossName, ConfigIssue> {
  return checkName(lossTerms, name, path, "loss term");
}

/** One term of a method and its coefficient (c_pg, β_KL, λ_opd, ...). */
export type WeightedTerm = { readonly name: LossName; readonly coef: number };

/**
 * Σ_k c_k·L_k and its per-token weights Σ_k c_k·dL_k/dℓ_θ, which the trainer passes to
 * `policy.backward` (after `splitBySegments`). Metrics: each term's own (namespaced), plus
 * `loss/<name>` = c·value and `loss/total`. Terms with c = 0 are skipped entirely.
 * @example combineLosses([{ name: "policy-gradient", coef: 1 }, { name: "kl", coef: 0.01 }, { name: "opd", coef: 0.01 }], input)
 */
export function combineLosses(terms: readonly WeightedTerm[], input: LossInput, settings: Partial<LossSettings> = {}): TokenLoss {
  validateBatch(input.batch, { policyLogprobs: input.policyLogprobs });
  const s: LossSettings = { ...defaultLossSettings, ...settings };
  const dLogprobs = new Float64Array(input.batch.lossMask.length);
  const metrics: Record<string, number> = {};
  let value = 0;
  for (const { name, coef } of terms) {
    if (coef === 0) continue;
    const term: LossTerm = lossTerms[name];
    const out = term(input, s);
    value += coef * out.value;
    for (let t = 0; t < dLogprobs.length; t++) dLogprobs[t] = dLogprobs[t]! + coef * out.dLogprobs[t]!;
    Object.assign(metrics, out.metrics);
    metrics[`loss/${name}`] = coef * out.value;
  }
  metrics["loss/total"] = value;
  return { value, dLogprobs, metrics };
}
