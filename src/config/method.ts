/**
 * The method of a config, read in one place: `planMethod` turns a resolved `SeedConfig` into the
 * loss terms that run (with their catalogue functions), the token-advantage estimator, the
 * teacher (skill source, context H, scoring schedule) or none, and the student's rollout skill.
 * Every stage reads the plan, never the coefficients, so "which terms, which teacher" is decided
 * here and nowhere else; `describeMethod` renders the formula from the same plan (so it cannot go
 * stale under overrides). Pure: no I/O, no engine.
 *
 * A new loss term costs one function, one entry in the catalogue (`math/losses.ts`) and one
 * preset that sets `loss.terms.<name>`; a new estimator one function, one entry in
 * `math/estimators.ts` and a preset that sets `pg.advantage` (see `test/method-extension.test.ts`).
 */
import { advantageEstimators, type AdvantageEstimator, type EstimatorCatalogue, type EstimatorSettings } from "../math/estimators.ts";
import { lossTerms, type LossCatalogue, type LossSettings, type ResolvedTerm } from "../math/losses.ts";
import type { GrpoOptions } from "../math/advantages.ts";
import type { Choice, SeedConfig, SkillSource } from "./config.ts";

/** The catalogues a plan draws from: the built-in ones, or those plus one's own entries. */
export type MethodCatalogue = { readonly terms: LossCatalogue; readonly advantages: EstimatorCatalogue };

/** The built-in catalogues. */
export const builtinCatalogue: MethodCatalogue = { terms: lossTerms, advantages: advantageEstimators };

/** Config sections whose `coef` switches a catalogue term on (every other term: `loss.terms`). */
const TERM_SECTIONS = { "policy-gradient": "pg", kl: "kl", opd: "opd", "skill-sd": "skillSd" } as const;

/** The teacher of a method: where its skill comes from, how H inserts it, when it is scored. */
export type TeacherPlan = {
  readonly source: Exclude<SkillSource, "none">;
  readonly context: Choice<"skills.context">;
  /** `live`: rescored before every mini-batch; `frozen`: once per update with θ_old (always for an estimator that reads it). */
  readonly schedule: Choice<"opd.teacherScoring">;
  /** For `self`: the analyzer's weights are refreshed every this many updates (1: θ_old, SEED; 0: never, the start). */
  readonly refreshEvery: number;
};

/** What a method computes. */
export type MethodPlan = {
  readonly name: string;
  /** Active terms (coefficient > 0), in catalogue order, each with its function. */
  readonly terms: readonly ResolvedTerm[];
  readonly settings: LossSettings;
  readonly advantage: { readonly name: string; readonly estimate: AdvantageEstimator; readonly settings: EstimatorSettings };
  readonly grpo: GrpoOptions;
  /** The teacher, when some term or the estimator reads teacher log-probs; null otherwise. */
  readonly teacher: TeacherPlan | null;
  /** The skill source analysed every update ("none": no analysis). Analysed even without a teacher term, for the logged skills. */
  readonly skillSource: SkillSource;
  /** The skill in the student's rollout context (Skill-GRPO, Skill-Prompt). */
  readonly studentSkill: Choice<"skills.student">;
  /** Whether any term trains the policy (Vanilla and Skill-Prompt train nothing). */
  readonly trains: boolean;
  /** Whether some term reads ℓ_ref (the frozen starting weights are kept). */
  readonly needsReference: boolean;
};

/** The loss settings of a config. */
export function lossSettings(c: SeedConfig): LossSettings {
  return {
    aggregation: { mode: c.loss.aggregation, normLength: c.loss.normLength },
    clip: { low: c.pg.clipLow, high: c.pg.clipHigh, dual: c.pg.dualClip === 0 ? null : c.pg.dualClip },
    kl: { estimator: c.kl.estimator },
    opd: { beta: c.opd.beta, denominator: c.opd.denominator },
  };
}

/** The coefficient of a catalogue term in a config (0 when off). */
function coefOf(c: SeedConfig, name: string): number {
  const section = (TERM_SECTIONS as Record<string, keyof SeedConfig | undefined>)[name];
  if (section !== undefined) return (c[section] as { coef: number }).coef;
  return c.loss.terms[name] ?? 0;
}

/**
 * The plan of a resolved config. Names the config cannot resolve (a term in `loss.terms` or an
 * estimator missing from the catalogue) are validation issues (`check.ts`); here they throw.
 */
export function planMethod(c: SeedConfig, catalogue: MethodCatalogue = builtinCatalogue): MethodPlan {
  const terms: ResolvedTerm[] = [];
  for (const name of Object.keys(c.loss.terms)) {
    if (!Object.hasOwn(catalogue.terms, name)) throw new RangeError(`loss.terms names '${name}', which is not a catalogue term`);
  }
  for (const [name, loss] of Object.entries(catalogue.terms)) {
    const coef = coefOf(c, name);
    if (coef > 0) terms.push({ name, coef, loss });
  }
  const estimate = catalogue.advantages[c.pg.advantage];
  if (estimate === undefined) throw new RangeError(`pg.advantage names '${c.pg.advantage}', which is not an advantage estimator`);
  const readsTeacher = estimate.needsTeacher || terms.some((t) => t.loss.reads.includes("teacherLogprobs"));
  const teacher: TeacherPlan | null = readsTeacher && c.skills.teacher !== "none"
    ? { source: c.skills.teacher, context: c.skills.context, schedule: estimate.needsTeacher ? "frozen" : c.opd.teacherScoring, refreshEvery: c.skills.refreshEvery }
    : null;
  return {
    name: c.method.name,
    terms,
    settings: lossSettings(c),
    advantage: { name: c.pg.advantage, estimate, settings: { rlsd: c.rlsd } },
    grpo: c.grpo,
    teacher,
    skillSource: c.skills.teacher,
    studentSkill: c.skills.student,
    trains: terms.length > 0,
    needsReference: terms.some((t) => t.loss.reads.includes("referenceLogprobs")),
  };
}

/** Whether some term or the estimator reads teacher log-probs (a config with no skill source then has no teacher: a validation issue). */
export function readsTeacher(c: SeedConfig, catalogue: MethodCatalogue = builtinCatalogue): boolean {
  const estimate = catalogue.advantages[c.pg.advantage];
  return (estimate?.needsTeacher ?? false) || Object.entries(catalogue.terms).some(([name, t]) => coefOf(c, name) > 0 && t.reads.includes("teacherLogprobs"));
}

function sourceText(t: TeacherPlan): string {
  switch (t.source) {
    case "self":
      return t.refreshEvery === 1 ? "analyzer(θ_old, τ)" : t.refreshEvery === 0 ? "analyzer(θ_0, τ)" : `analyzer(θ refreshed every ${t.refreshEvery} updates, τ)`;
    case "library":
      return "library skill";
    case "static-self":
      return "static self-written library";
    case "external":
      return "external analyzer(τ)";
  }
}

/**
 * The plan as a one-line formula, rendered, never stored: for SEED, Eq. (SEED) L = L_rl + λ_opd·L_opd
 * with L_rl from Eq. (RL) on Eq. (RL-Adv) advantages and L_opd Eq. (1).
 * @example describeMethod(planMethod(resolveConfig({ preset: "grpo" }))) // "L = 1·L_pg(clip 0.2/0.2, dual 3)[A: GRPO] + 0.01·L_kl(k3)"
 */
export function describeMethod(plan: MethodPlan): string {
  if (plan.terms.length === 0) return `no update (rollouts only)${plan.studentSkill === "none" ? "" : `; student prompt H_prepend(h, ${plan.studentSkill} skill)`}`;
  const parts = plan.terms.map((t) => {
    const sym = t.loss.symbol(plan.settings);
    return `${t.coef}·${sym}${t.loss.reads.includes("advantages") ? `[A: ${plan.advantage.estimate.symbol(plan.advantage.settings)}]` : ""}`;
  });
  let text = `L = ${parts.join(" + ")}`;
  if (plan.teacher !== null) text += `; ℓ_T under H_${plan.teacher.context}(h, ${sourceText(plan.teacher)}), scored ${plan.teacher.schedule}`;
  if (plan.studentSkill !== "none") text += `; student prompt H(h, ${plan.studentSkill} skill)`;
  return text;
}
