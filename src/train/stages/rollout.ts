/**
 * Stage `rollout`: θ_old plays one group of N episodes per task. The student sees a library skill
 * in its prompt only for the Skill-GRPO / Skill-Prompt presets (`skills.student`); that text is
 * then part of the recorded prompt ids, so the update trains on exactly what was sampled.
 */
import type { Trajectory } from "../../core/trajectory.ts";
import { collectGroups } from "../../agent/rollout.ts";
import { rolloutOptions } from "../../run/rollout-options.ts";
import type { UpdateContext } from "../context.ts";

/** Runs the rollout stage. */
export async function rollout(ctx: UpdateContext): Promise<Trajectory[]> {
  return collectGroups(ctx.policy, () => ctx.env.makeEnv(), ctx.tasks, rolloutOptions(ctx, ctx.update));
}
