/**
 * The analyzer contract: a serialized trajectory in, one validated skill (or
 * the reason there is none) out. Implementations: the rule-based hindsight analyzer (plays the
 * paper's external GLM in the embedded pipeline), the LLM analyzer over any `complete` function
 * (an OpenAI-compatible endpoint, or the policy itself in its Stage-2 analyzer role), and the
 * degraded analyzer of the analyzer ablation. A failed analysis is a value, not an exception:
 * the trainer gives that trajectory v_τ = 0 (no distillation term) and counts it.
 */
import type { SkillIssue, SkillIssueKind } from "./parse-skill.ts";
import type { SerializedTrajectory } from "./serialize.ts";

/** How the degraded analyzer corrupted a skill (analyzer ablation). */
export type DegradationKind = "generic" | "shuffled" | "wrong-outcome";

/** What one analysis produced. */
export type Analysis =
  | {
      readonly ok: true;
      readonly skill: string;
      readonly attempts: number;
      readonly answers: readonly string[];
      /** Set only by the degraded analyzer, on skills it replaced. */
      readonly degradation?: DegradationKind;
    }
  | { readonly ok: false; readonly issues: readonly SkillIssue[]; readonly attempts: number; readonly answers: readonly string[] };

/** A batch analyzer: one `Analysis` per trajectory, in order. */
export interface Analyzer {
  /** Name recorded in the run config and in samples (`rule`, `llm`, `degraded(rule, 0.3)`). */
  readonly name: string;
  analyze(trajectories: readonly SerializedTrajectory[]): Promise<Analysis[]>;
}

/** v_τ of each analysis: 1 for a valid skill, 0 otherwise (the distillation mask per trajectory). */
export function skillValidity(analyses: readonly Analysis[]): number[] {
  return analyses.map((a) => (a.ok ? 1 : 0));
}

/** The skill text of each analysis ("" for a failed one, which H leaves as the plain context). */
export function skillTexts(analyses: readonly Analysis[]): string[] {
  return analyses.map((a) => (a.ok ? a.skill : ""));
}

/**
 * `skills/valid_frac` (the Stage-2 validity rate, or the Stage-1 acceptance rate), the mean number
 * of attempts, the share repaired on retry, and `skills/issue/<kind>` counts of the final issue.
 */
export function analysisMetrics(analyses: readonly Analysis[]): Record<string, number> {
  const n = analyses.length;
  const valid = analyses.filter((a) => a.ok).length;
  const metrics: Record<string, number> = {
    "skills/count": n,
    "skills/valid_frac": n === 0 ? 0 : valid / n,
    "skills/attempts_mean": n === 0 ? 0 : analyses.reduce((s, a) => s + a.attempts, 0) / n,
    "skills/valid_after_retry_frac": n === 0 ? 0 : analyses.filter((a) => a.ok && a.attempts > 1).length / n,
    "skills/length_mean": valid === 0 ? 0 : analyses.reduce((s, a) => s + (a.ok ? a.skill.length : 0), 0) / valid,
  };
  for (const a of analyses) {
    if (a.ok) {
      if (a.degradation !== undefined) metrics[`skills/degraded/${a.degradation}`] = (metrics[`skills/degraded/${a.degradation}`] ?? 0) + 1;
      continue;
    }
    const kind: SkillIssueKind | "none" = a.issues.at(-1)?.kind ?? "none";
    metrics[`skills/issue/${kind}`] = (metrics[`skills/issue/${kind}`] ?? 0) + 1;
  }
  return metrics;
}
