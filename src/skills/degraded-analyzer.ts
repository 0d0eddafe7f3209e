/**
 * A deliberately worse analyzer, for the analyzer ablation (docs/RESULTS.md §5, analyzer quality):
 * it wraps another analyzer and, for each trajectory with probability `rate`, replaces its valid
 * skill by one of three corruptions, drawn uniformly from `kinds`:
 * - `generic`: a content-free skill ("think carefully ...") from the library;
 * - `shuffled`: the skill written for another trajectory of the same batch (true of some episode,
 *   just not this one); falls back to `generic` when no other valid skill exists;
 * - `wrong-outcome`: the inner analyzer's skill for the same text with the outcome flipped (a
 *   workflow for a failure, an avoidance rule for a success).
 * Failed analyses stay failed. The draw for a trajectory is seeded by (seed, its text), so it is
 * independent of batch order; the expected share of corrupted valid skills is `rate`, and the
 * realised counts appear as `skills/degraded/<kind>` in `analysisMetrics`.
 */
import { Rng, deriveSeed } from "../core/rng.ts";
import type { Analysis, Analyzer, DegradationKind } from "./analyzer.ts";
import { genericSkills } from "./library.ts";
import type { SerializedTrajectory } from "./serialize.ts";

/** Options of the degraded analyzer. */
export type DegradedOptions = {
  /** Probability that a valid skill is corrupted, in [0, 1]. */
  readonly rate: number;
  /** Seed of the corruption draws. */
  readonly seed: number;
  /** Corruptions to draw from. @default ["generic", "shuffled", "wrong-outcome"] */
  readonly kinds?: readonly DegradationKind[];
};

/** The same trajectory with its outcome flipped, in the text and in the fields. */
function flipOutcome(t: SerializedTrajectory): SerializedTrajectory {
  const outcome = t.outcome === "success" ? "failure" : "success";
  return { ...t, outcome, text: t.text.replace(/Outcome: (success|failure)$/, `Outcome: ${outcome}`) };
}

/** Wraps `inner` so that about `rate` of its valid skills are corrupted. */
export function degradedAnalyzer(inner: Analyzer, options: DegradedOptions): Analyzer {
  const kinds = options.kinds ?? ["generic", "shuffled", "wrong-outcome"];
  if (!(options.rate >= 0 && options.rate <= 1)) throw new RangeError(`a degradation rate lies in [0, 1], got ${options.rate}`);
  if (kinds.length === 0) throw new RangeError("the degraded analyzer needs at least one kind of corruption");
  return {
    name: `degraded(${inner.name}, ${options.rate})`,
    async analyze(trajectories: readonly SerializedTrajectory[]): Promise<Analysis[]> {
      const base = await inner.analyze(trajectories);
      const plan = trajectories.map((t, i) => {
        const rng = Rng.from(deriveSeed(options.seed, "degrade", t.text));
        const hit = base[i]!.ok && rng.float() < options.rate;
        return { rng, kind: hit ? rng.choice(kinds) : undefined };
      });
      const flippedIdx = plan.flatMap((p, i) => (p.kind === "wrong-outcome" ? [i] : []));
      const flipped = await inner.analyze(flippedIdx.map((i) => flipOutcome(trajectories[i]!)));
      const valid = base.flatMap((a, i) => (a.ok ? [i] : []));
      return base.map((a, i) => {
        const { rng, kind } = plan[i]!;
        if (!a.ok || kind === undefined) return a;
        let skill: string;
        let applied: DegradationKind = kind;
        const others = valid.filter((j) => j !== i);
        if (kind === "wrong-outcome") {
          const f = flipped[flippedIdx.indexOf(i)]!;
          skill = f.ok ? f.skill : rng.choice(genericSkills);
          if (!f.ok) applied = "generic";
        } else if (kind === "shuffled" && others.length > 0) {
          const other = base[rng.choice(others)]!;
          skill = other.ok ? other.skill : rng.choice(genericSkills);
        } else {
          skill = rng.choice(genericSkills);
          applied = "generic";
        }
        return { ...a, skill, degradation: applied };
      });
    },
  };
}
