/**
 * The loss catalogue by name, and the sum of weighted terms into one per-token weight array.
 * Every term shares one signature, `(LossInput, LossSettings) => TokenLoss`, so a method is data
 * (which terms, with which coefficients: the table below), never a branch in the trainer:
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
 * absent. Entropy is not in the catalogue: it needs the full vocabulary, which sampled-token
 * log-probs do not carry.
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

/** The per-token log-probs a term reads besides ℓ_θ (the update scores only what the active terms read). */
export type TermInput = "oldLogprobs" | "referenceLogprobs" | "teacherLogprobs" | "advantages";

/** A catalogue entry: the term, what it reads, and how a formula writes it (`describeMethod`). */
export type CatalogueTerm = LossTerm & {
  readonly reads: readonly TermInput[];
  /** The term in a one-line formula, e.g. `L_kl(k3)`. */
  readonly symbol: (settings: LossSettings) => string;
};

/** Attaches what a term reads and its formula symbol to its function (one catalogue entry). */
export function catalogueTerm(reads: readonly TermInput[], symbol: (settings: LossSettings) => string, loss: LossTerm): CatalogueTerm {
  return Object.assign((x: LossInput, s: LossSettings) => loss(x, s), { reads, symbol });
}

function need<K extends TermInput>(input: LossInput, key: K, term: string): TokenArray {
  const v = input[key];
  if (v === undefined) throw new ShapeError(`loss term '${term}' needs ${key}, which the input lacks`);
  return v;
}

/**
 * The catalogue, each entry tagged with the paper's equation: (RL) the clipped surrogate and the
 * KL penalty, (SEED) the gated distillation, (SFT) the NLL. Look a string up with `checkLossName`.
 */
export const lossTerms = {
  /** (RL) clipped policy gradient on the advantages the estimator gives (RL-Adv). */
  "policy-gradient": catalogueTerm(["oldLogprobs", "advantages"], (s) => `L_pg(clip ${s.clip.low}/${s.clip.high}${s.clip.dual === null ? "" : `, dual ${s.clip.dual}`})`, (x, s) =>
    clippedPolicyLoss({
      batch: x.batch,
      policyLogprobs: x.policyLogprobs,
      oldLogprobs: need(x, "oldLogprobs", "policy-gradient"),
      advantages: need(x, "advantages", "policy-gradient"),
      clip: s.clip,
      aggregation: s.aggregation,
    })),
  /** (RL) KL penalty against the starting weights. */
  kl: catalogueTerm(["referenceLogprobs"], (s) => `L_kl(${s.kl.estimator})`, (x, s) =>
    klPenalty({ batch: x.batch, policyLogprobs: x.policyLogprobs, referenceLogprobs: need(x, "referenceLogprobs", "kl"), estimator: s.kl.estimator, aggregation: s.aggregation })),
  /** (SEED) gated on-policy distillation toward the skill-conditioned teacher. */
  opd: catalogueTerm(["teacherLogprobs"], (s) => `Agg(σ(${s.opd.beta}Δ)·(ℓ_T − ℓ_θ))`, (x, s) =>
    gatedDistillation({
      batch: x.batch,
      policyLogprobs: x.policyLogprobs,
      teacherLogprobs: need(x, "teacherLogprobs", "opd"),
      ...(x.skillValid === undefined ? {} : { skillValid: x.skillValid }),
      ...(x.detached === undefined ? {} : { detached: x.detached }),
      opd: s.opd,
      aggregation: s.aggregation,
    })),
  /** Skill-SD: importance-weighted k3 pull toward the teacher. */
  "skill-sd": catalogueTerm(["oldLogprobs", "teacherLogprobs"], () => "Agg(ρ·k3(ℓ_θ − ℓ_T))", (x, s) =>
    skillSdLoss({
      batch: x.batch,
      policyLogprobs: x.policyLogprobs,
      oldLogprobs: need(x, "oldLogprobs", "skill-sd"),
      teacherLogprobs: need(x, "teacherLogprobs", "skill-sd"),
      aggregation: s.aggregation,
    })),
  /** (SFT) negative log-likelihood of the sampled (or demonstrated) tokens. */
  nll: catalogueTerm([], () => "L_nll", (x, s) => nllLoss({ batch: x.batch, policyLogprobs: x.policyLogprobs, aggregation: s.aggregation })),
} as const satisfies Record<string, CatalogueTerm>;

/** A catalogue of terms by name: `lossTerms`, or `lossTerms` plus terms of one's own (`planMethod`'s catalogue). */
export type LossCatalogue = Readonly<Record<string, CatalogueTerm>>;

/** Name of a loss term; a misspelt name in TypeScript is a compile error. */
export type LossName = keyof typeof lossTerms;

/** A loss name from an untyped string (a JSON preset), or an issue listing the valid names. */
export function checkLossName(name: string, path = "loss.terms"): Result<LossName, ConfigIssue> {
  return checkName(lossTerms, name, path, "loss term");
}

/**
 * One term of a method and its coefficient (c_pg, β_KL, λ_opd, ...): a catalogue name, or any
 * name with its function (`ResolvedTerm`, what a method plan holds).
 */
export type WeightedTerm = { readonly name: LossName; readonly coef: number } | ResolvedTerm;

/** A term with its catalogue entry already looked up. */
export type ResolvedTerm = { readonly name: string; readonly coef: number; readonly loss: CatalogueTerm };

/** What `combineLosses` returns: the sum, and each term's own weights c_k·dL_k/dℓ_θ by name. */
export type CombinedLoss = TokenLoss & { readonly termWeights: Readonly<Record<string, Float64Array>> };

/**
 * Σ_k c_k·L_k and its per-token weights Σ_k c_k·dL_k/dℓ_θ, which the trainer passes to
 * `policy.backward` (the flat layout is the policy's packed scored layout). Metrics: each term's
 * own (namespaced), plus `loss/<name>` = c·value and `loss/total`. Terms with c = 0 are skipped
 * entirely. `termWeights` holds each term's share, so a trace needs no second pass.
 * @example combineLosses([{ name: "policy-gradient", coef: 1 }, { name: "kl", coef: 0.01 }, { name: "opd", coef: 0.01 }], input)
 */
export function combineLosses(terms: readonly WeightedTerm[], input: LossInput, settings: Partial<LossSettings> = {}): CombinedLoss {
  validateBatch(input.batch, { policyLogprobs: input.policyLogprobs });
  const s: LossSettings = { ...defaultLossSettings, ...settings };
  const n = input.batch.lossMask.length;
  const dLogprobs = new Float64Array(n);
  const termWeights: Record<string, Float64Array> = {};
  const metrics: Record<string, number> = {};
  let value = 0;
  for (const t of terms) {
    if (t.coef === 0) continue;
    const { name, coef } = t;
    const term: LossTerm = "loss" in t ? t.loss : lossTerms[t.name];
    const out = term(input, s);
    value += coef * out.value;
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      w[i] = 0 + coef * out.dLogprobs[i]!; // 0 + x turns a -0 into 0, as the running sum does
      dLogprobs[i] = dLogprobs[i]! + w[i]!;
    }
    termWeights[name] = w;
    Object.assign(metrics, out.metrics);
    metrics[`loss/${name}`] = coef * out.value;
  }
  metrics["loss/total"] = value;
  return { value, dLogprobs, metrics, termWeights };
}
