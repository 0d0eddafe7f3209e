/**
 * The environment side of a training run, resolved from the config once: how to build an
 * environment instance, the task pool of a split, the step limit and the invalid-action penalty.
 * ALFWorld is built from its module directly (generated games by default, the real game files
 * with `env.data`), because the generated games' size is a training setting; every other
 * environment goes through the registry. Not here: experts and hints (Stage 0).
 */
import { UsageError } from "../core/errors.ts";
import type { Env, TaskSpec } from "../envs/env.ts";
import { AlfworldEnv, alfworldGeneratedTasks, alfworldTasks, GENERATED_SPLITS, type AlfworldGenOptions, type GeneratedSplit } from "../envs/alfworld/index.ts";
import { makeEnv, taskSource } from "../envs/registry.ts";
import { PROTOCOL, isEnvId } from "../agent/protocol.ts";
import type { SeedConfig } from "../config/config.ts";

/** An environment as a training run uses it. */
export type TrainingEnv = {
  readonly name: string;
  /** Step limit of an episode. */
  readonly maxSteps: number;
  /** c_inv of ALGORITHMS.md §1. */
  readonly invalidPenalty: number;
  /** A fresh environment instance. */
  makeEnv(): Env;
  /**
   * `count` tasks of a split: the first `count` generated games (deterministic in the run's world
   * seed), or `count` evenly spaced games of a real ALFWorld split (see {@link spreadTasks}).
   */
  tasks(split: string, count: number): TaskSpec[];
  /** Generator options of generated ALFWorld games (for the expert's priors), undefined otherwise. */
  readonly alfworldGen?: AlfworldGenOptions;
};

/** Generated ALFWorld game options of a config: `receptacles` per room (±2, at least 4: the generator's floor). */
export function alfworldGenOptions(config: SeedConfig): AlfworldGenOptions {
  const r = config.env.receptacles;
  const lo = Math.max(4, r - 2);
  return { receptacles: [lo, Math.max(lo, r + 2)] };
}

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

/** The training environment of a config. */
export function trainingEnv(config: SeedConfig): TrainingEnv {
  const name = config.env.name;
  const protocol = isEnvId(name) ? PROTOCOL[name] : undefined;
  const maxSteps = config.env.maxSteps > 0 ? config.env.maxSteps : (protocol?.maxSteps ?? 30);
  const invalidPenalty = config.env.invalidPenalty >= 0 ? config.env.invalidPenalty : (protocol?.invalidPenalty ?? 0.1);
  if (name === "alfworld") {
    const gen = alfworldGenOptions(config);
    return {
      name, maxSteps, invalidPenalty,
      makeEnv: () => new AlfworldEnv({ maxSteps }),
      tasks: (split, count) => {
        if (config.env.data !== "") return spreadTasks(alfworldTasks(config.env.data, split), count);
        if (!(GENERATED_SPLITS as readonly string[]).includes(split)) throw new UsageError(`generated alfworld has no split '${split}' (one of ${GENERATED_SPLITS.join(", ")})`);
        return alfworldGeneratedTasks(split as GeneratedSplit, count, { ...gen, seed: 0 });
      },
      ...(config.env.data === "" ? { alfworldGen: gen } : {}),
    };
  }
  const options = { maxSteps, ...(config.env.data === "" ? {} : { dataPath: config.env.data }) };
  return {
    name, maxSteps, invalidPenalty,
    makeEnv: () => makeEnv(name, options),
    tasks: (split, count) => taskSource(name, split, { ...options, count }),
  };
}
