/**
 * One policy update as named, timed stages: the paper's Algorithm 1 (Stage 2), minimising
 * Eq. (SEED) for SEED and the plan's terms for every other method (docs/PAPER.md):
 *
 *   rollout    θ_old (the current weights: nothing has stepped yet) plays N episodes per task
 *   advantage  GRPO advantages per step-sample; score = R(τ) − c_inv·(1 − valid) (Eq. (RL-Adv))
 *   analyze    the teacher skill per trajectory: θ_old's analyzer role (SEED), a library, or none
 *   teacher    H(h, s) rebuilt per sequence, sampled ids untouched
 *   score      ℓ_old (θ_old), ℓ_ref (start), ℓ_T (θ_old, `frozen` schedule / RLSD) — before any step
 *   update     mini-batches: live ℓ_T (`live`), ℓ_θ, combineLosses, backward, AdamW step
 *
 * Which terms run, which skill the teacher sees and whether the student sees one are read from
 * the method plan (`config/method.ts`); the update has no per-method branch. A preset with every coefficient
 * 0 (Vanilla, Skill-Prompt) rolls out and measures only.
 */
import type { Trajectory } from "../core/trajectory.ts";
import { grpoAdvantages } from "../math/advantages.ts";
import type { UpdateContext } from "./context.ts";
import type { TeacherSkills } from "../skills/sources.ts";
import { rolloutMetrics } from "./metrics.ts";
import { advantageSamples, buildSequences } from "./sequences.ts";
import { optimize } from "./stages/optimize.ts";
import { rollout } from "./stages/rollout.ts";
import { scoreOldRefTeacher } from "./stages/score.ts";
import { teacherSkills, teacherViews } from "./stages/teacher.ts";

/** What one update returns. */
export type UpdateResult = {
  readonly trajectories: Trajectory[];
  /** Teacher skill per trajectory ("" where none) and v_τ. */
  readonly skills: TeacherSkills;
  /** Per-token gates of each trajectory's sequences (first epoch), for the sample files. */
  readonly gates: (Float64Array | undefined)[][];
  readonly metrics: Record<string, number>;
  /** Mini-batches or steps skipped for non-finite numbers. */
  readonly nonFinite: number;
  /** Whether the update tried to train (some term active) but every step was skipped. */
  readonly failed: boolean;
};

/** Runs one update. */
export async function runUpdate(ctx: UpdateContext): Promise<UpdateResult> {
  const plan = ctx.plan;
  const t = ctx.timer;
  const trajectories = await t.time("rollout", () => rollout(ctx));
  const all = buildSequences(trajectories);
  const adv = await t.time("advantage", () => grpoAdvantages(advantageSamples(trajectories, all.samples, ctx.env.invalidPenalty), plan.grpo));
  const metrics: Record<string, number> = { ...rolloutMetrics(trajectories), ...adv.metrics };
  const useTeacher = plan.teacher !== null;
  const skills = useTeacher || plan.skillSource !== "none"
    ? await t.time("analyze", () => teacherSkills(ctx, trajectories))
    : { skills: trajectories.map(() => ""), valid: trajectories.map(() => 0), metrics: {} };
  Object.assign(metrics, skills.metrics);
  const gates: (Float64Array | undefined)[][] = trajectories.map(() => []);
  if (!plan.trains) return { trajectories, skills, gates, metrics, nonFinite: 0, failed: false };

  const views = useTeacher ? await t.time("teacher", () => teacherViews(ctx, trajectories, all, skills)) : { views: all.sequences.map(() => undefined), valid: skills.valid, unfit: 0 };
  if (useTeacher) {
    metrics["opd/teacher_unfit"] = views.unfit;
    // Share of teacher views the context limit cut (after the task line and the skill, never through them).
    if ("viewed" in views) metrics["opd/teacher_truncated_frac"] = views.viewed === 0 ? 0 : views.truncated / views.viewed;
  }
  const skillValid = Float64Array.from(all.samples, (s) => views.valid[s.traj] ?? 0);
  const cached = await t.time("score", () => scoreOldRefTeacher(ctx, all, views.views));
  const result = await t.time("update", () => optimize(ctx, { all, teacher: views.views, cached, advantages: adv.advantages, skillValid }));
  Object.assign(metrics, result.metrics);
  result.gates.forEach((g, i) => gates[all.sequences[i]!.traj]!.push(g));
  return { trajectories, skills, gates, metrics, nonFinite: result.nonFinite, failed: result.steps === 0 && result.nonFinite > 0 };
}
