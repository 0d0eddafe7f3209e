/**
 * Stage `rollout`: θ_old plays one group of N episodes per task. The student sees a library skill
 * in its prompt only for the Skill-GRPO / Skill-Prompt presets (`skills.student`); that text is
 * then part of the recorded prompt ids, so the update trains on exactly what was sampled.
 */
import type { Trajectory } from "../../core/trajectory.ts";
import { rendererFor } from "../../agent/prompts/index.ts";
import { collectGroups, type RolloutOptions } from "../../agent/rollout.ts";
import { studentSkillTransform } from "../../skills/library.ts";
import type { UpdateContext } from "../context.ts";

/** Rollout options of a config for update `update` (shared with evaluation-style rollouts). */
export function rolloutOptions(ctx: Pick<UpdateContext, "config" | "chat" | "env" | "tasks" | "onRolloutStep">, update: number): RolloutOptions {
  const c = ctx.config;
  const student = c.skills.student === "library";
  const tasks = ctx.tasks;
  return {
    seed: c.run.seed,
    update,
    groupSize: c.rollout.groupSize,
    history: c.rollout.history === "full" ? { mode: "full" } : c.rollout.window >= 0 ? { mode: "window", k: c.rollout.window } : { mode: "window" },
    maxSteps: ctx.env.maxSteps,
    maxActionTokens: c.rollout.maxActionTokens,
    ...(c.rollout.maxContext > 0 ? { maxContext: c.rollout.maxContext } : {}),
    temperature: c.rollout.temperature,
    topP: c.rollout.topP,
    topK: c.rollout.topK,
    actionMask: c.rollout.actionMask,
    renderer: rendererFor(ctx.env.name, c.rollout.prompt),
    chat: ctx.chat,
    ...(student
      ? { promptTransform: studentSkillTransform(ctx.env.name, c.skills.context, tasks) }
      : {}),
    ...(ctx.onRolloutStep ? { onStep: ctx.onRolloutStep } : {}),
  };
}

/** Runs the rollout stage. */
export async function rollout(ctx: UpdateContext): Promise<Trajectory[]> {
  return collectGroups(ctx.policy, () => ctx.env.makeEnv(), ctx.tasks, rolloutOptions(ctx, ctx.update));
}
