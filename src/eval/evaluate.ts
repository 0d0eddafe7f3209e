/**
 * Basic episode evaluation: one rollout per task (group size 1) at the SEED validation
 * temperature 0.4, in batches of tasks, and the summary every report starts from: episodes,
 * success rate, valid-action rate, mean return, mean length, mean score and how episodes ended.
 * Environment seeds derive from (seed, "eval", task index), so two evaluations of the same task
 * list see the same episodes whatever the batching. Confidence intervals, per-type tables and
 * reports build on this elsewhere.
 */
import { deriveSeed } from "../core/rng.ts";
import { UsageError } from "../core/errors.ts";
import type { EndReason, Trajectory } from "../core/trajectory.ts";
import type { Env, TaskSpec } from "../envs/env.ts";
import type { Policy } from "../policy/policy.ts";
import { collectGroups, type RolloutOptions } from "../agent/rollout.ts";
import { EVAL_TEMPERATURE } from "../agent/protocol.ts";

/** Options of {@link evaluate}. */
export type EvaluateOptions = Omit<RolloutOptions, "groupSize" | "envSeeds" | "update" | "seed"> & {
  /** Base seed of environment seeds and sampling. @default 0 */
  readonly seed?: number;
  /** Evaluate only the first N tasks. @default all */
  readonly episodes?: number;
  /** Tasks rolled out together (one batched sampling call per step). @default 32 */
  readonly batchTasks?: number;
  /** Called after each batch with the number of episodes done. */
  readonly onBatch?: (done: number, total: number) => void;
};

/** The summary of an evaluation. Keys are stable (they are the `seed eval --json` output). */
export type EvalSummary = {
  env: string;
  episodes: number;
  success_rate: number;
  /** Valid responses (`agent/parse-action.ts`) over all responses. */
  valid_action_rate: number;
  mean_return: number;
  /** Mean number of turns (policy calls) per episode. */
  mean_length: number;
  /** Mean raw task score (WebShop's [0, 1] score; else the success flag). */
  mean_score: number;
  ended_by: Record<EndReason, number>;
  seconds: number;
};

/** Summarise trajectories (an empty list gives zero rates and 0 episodes). */
export function summarize(env: string, trajs: readonly Trajectory[], seconds = 0): EvalSummary {
  const n = trajs.length;
  const turns = trajs.reduce((s, t) => s + t.turns.length, 0);
  const valid = trajs.reduce((s, t) => s + t.turns.filter((x) => x.valid).length, 0);
  const mean = (f: (t: Trajectory) => number) => (n === 0 ? 0 : trajs.reduce((s, t) => s + f(t), 0) / n);
  const ended: Record<EndReason, number> = { terminated: 0, truncated: 0, "context-limit": 0 };
  for (const t of trajs) ended[t.endedBy]++;
  return {
    env,
    episodes: n,
    success_rate: mean((t) => (t.success ? 1 : 0)),
    valid_action_rate: turns === 0 ? 0 : valid / turns,
    mean_return: mean((t) => t.return),
    mean_length: mean((t) => t.turns.length),
    mean_score: mean((t) => t.score),
    ended_by: ended,
    seconds,
  };
}

/**
 * Play every task once and summarise.
 * @example
 * const { summary } = await evaluate(policy, () => new SokobanEnv(), sokobanTasks("validation", 128), { episodes: 8 });
 */
export async function evaluate(
  policy: Policy,
  makeEnv: () => Env,
  tasks: readonly TaskSpec[],
  options: EvaluateOptions = {},
): Promise<{ summary: EvalSummary; trajectories: Trajectory[] }> {
  const seed = options.seed ?? 0;
  const count = options.episodes ?? tasks.length;
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`episodes must be a positive integer, got ${count}`);
  if (count > tasks.length) throw new UsageError(`asked for ${count} episodes but the split has ${tasks.length} task(s)`);
  const batch = options.batchTasks ?? 32;
  const { episodes: _e, batchTasks: _b, onBatch, seed: _s, ...rollout } = options;
  const t0 = performance.now();
  const trajectories: Trajectory[] = [];
  let envId = "";
  for (let i = 0; i < count; i += batch) {
    const chunk = tasks.slice(i, Math.min(count, i + batch));
    const trajs = await collectGroups(policy, makeEnv, chunk, {
      temperature: EVAL_TEMPERATURE,
      ...rollout,
      seed,
      update: 0,
      groupSize: 1,
      groupOffset: i,
      envSeeds: chunk.map((_, j) => deriveSeed(seed, "eval", i + j)),
    });
    trajectories.push(...trajs);
    envId ||= trajs[0]?.envId ?? "";
    onBatch?.(trajectories.length, count);
  }
  return { summary: summarize(envId, trajectories, (performance.now() - t0) / 1000), trajectories };
}
