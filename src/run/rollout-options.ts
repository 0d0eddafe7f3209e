/**
 * The agent's rollout options of a config: history mode and window, step and token limits,
 * sampling, the prompt renderer of the environment and style, and the student's library skill
 * (Skill-GRPO, Skill-Prompt), shared by training rollouts, evaluation and the gate-value probe.
 */
import { rendererFor } from "../agent/prompts/index.ts";
import type { RolloutOptions } from "../agent/rollout.ts";
import type { ChatFormat } from "../policy/chat-format.ts";
import { studentSkillTransform } from "../skills/library.ts";
import type { SeedConfig } from "../config/config.ts";
import { resolveRunSettings } from "../config/resolve.ts";
import { protocolOf } from "../agent/protocol.ts";
import type { TrainingEnv } from "./training-env.ts";

/** What rollout options are built from. */
export type RolloutSource = {
  readonly config: SeedConfig;
  readonly chat: ChatFormat;
  readonly env: Pick<TrainingEnv, "name" | "maxSteps">;
  /** The tasks of the groups, in group order (the student skill is looked up by the group's task). */
  readonly tasks: readonly { readonly id: string }[];
  /** Called after each rollout step (progress). */
  readonly onRolloutStep?: (step: number, running: number) => void;
};

/** Rollout options of a config for update `update` (shared with evaluation-style rollouts). */
export function rolloutOptions(ctx: RolloutSource, update: number): RolloutOptions {
  const c = ctx.config;
  const settings = resolveRunSettings(c, protocolOf(ctx.env.name));
  const student = c.skills.student === "library";
  const tasks = ctx.tasks;
  return {
    seed: c.run.seed,
    update,
    groupSize: c.rollout.groupSize,
    history: c.rollout.history === "full" ? { mode: "full" } : { mode: "window", k: settings.window },
    maxSteps: ctx.env.maxSteps,
    maxActionTokens: c.rollout.maxActionTokens,
    ...(settings.maxContext !== undefined ? { maxContext: settings.maxContext } : {}),
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
