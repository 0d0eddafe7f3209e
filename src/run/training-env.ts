/**
 * The environment side of a training run, resolved from the config once: how to build an
 * environment instance, the task pool of a split, the step limit and the invalid-action penalty.
 * Every environment goes through its registry entry, which owns its special cases (ALFWorld's
 * generated-game size, evenly spaced real games). Not here: experts and hints (Stage 0).
 */
import type { Env, TaskSpec } from "../envs/env.ts";
import type { AlfworldGenOptions } from "../envs/alfworld/index.ts";
import { alfworldGenOptions, envEntry, makeEnv, taskSource } from "../envs/registry.ts";
import type { SeedConfig } from "../config/config.ts";
import { resolveRunSettings } from "../config/resolve.ts";
import { UsageError } from "../core/errors.ts";

/** An environment as a training run uses it. */
export type TrainingEnv = {
  readonly name: string;
  /** Step limit of an episode. */
  readonly maxSteps: number;
  /** c_inv, the invalid-action penalty of a step (`stepScore` in `math/advantages.ts`). */
  readonly invalidPenalty: number;
  /** A fresh environment instance. */
  makeEnv(): Env;
  /**
   * `count` tasks of a split: the first `count` generated games (deterministic in the run's world
   * seed), or `count` evenly spaced games of a real ALFWorld split (see {@link spreadTasks}).
   * @throws UsageError when the split holds no task and `count` > 0
   */
  tasks(split: string, count: number): TaskSpec[];
  /** Generator options of generated ALFWorld games (for the expert's priors), undefined otherwise. */
  readonly alfworldGen?: AlfworldGenOptions;
};

/**
 * `count` evenly spaced elements of `xs` (all of them when `count` covers it). Real ALFWorld game
 * ids sort by task type, so a prefix of a split is one or two types; evenly spaced games keep
 * every type in its share and stay deterministic.
 * @example spreadTasks([0, 1, 2, 3, 4, 5], 3) // [0, 2, 4]
 */
export function spreadTasks<T>(xs: readonly T[], count: number): T[] {
  if (count >= xs.length) return [...xs];
  return Array.from({ length: Math.max(0, count) }, (_, i) => xs[Math.floor((i * xs.length) / count)]!);
}

/** The training environment of a config: the registry entry of `env.name`, with the config's sizes and sentinels resolved. */
export function trainingEnv(config: SeedConfig): TrainingEnv {
  const name = config.env.name;
  const entry = envEntry(name);
  const { maxSteps, invalidPenalty } = resolveRunSettings(config, entry.protocol);
  const real = config.env.data !== "";
  const sized = entry.options.includes("receptacles") && !real;
  const options = { maxSteps, ...(real ? { dataPath: config.env.data } : {}), ...(sized ? { receptacles: config.env.receptacles } : {}) };
  return {
    name, maxSteps, invalidPenalty,
    // WebShop's real tasks name catalogue products: its environments serve the same shop.
    makeEnv: () => makeEnv(name, { maxSteps, ...(real && entry.envReadsData === true ? { dataPath: config.env.data } : {}) }),
    tasks: (split, count) => {
      const tasks = real && entry.spreadRealTasks === true ? spreadTasks(taskSource(name, split, options), count) : taskSource(name, split, { ...options, count });
      // An empty pool would train or evaluate on nothing and report zeros as if they were results.
      if (tasks.length === 0 && count > 0) throw new UsageError(`no ${name} tasks in split '${split}'${real ? ` of ${config.env.data}` : ""}`);
      return tasks;
    },
    ...(sized ? { alfworldGen: alfworldGenOptions(config.env.receptacles) } : {}),
  };
}
