/**
 * Benchmark evaluation of a policy the way a training run acts: the run's history mode, action
 * budget, action mask and evaluation skill (Skill-GRPO* and Skill-Prompt keep the library skill
 * in the prompt; every other method acts from the plain history), over whole splits:
 *
 *   ALFWorld   real games: every game of `valid_seen` (140) or `valid_unseen` (134), enumerated
 *              in id order, never sampled; generated games: the first N of the generated split
 *   WebShop    the 128 fixed test goals
 *   Search-QA  one or more question sets (the split is a dataset name; `all` takes every set of
 *              the data folder, or the synthetic test questions without one)
 *
 * A `count` takes the split's first N tasks, or with `panelSeed` a seeded draw of N (`panel.ts`);
 * every result carries its panel's hash. Decoding is greedy or sampled at a temperature, with
 * every sample seeded from (seed, "eval", task index) by `evaluate`. Not here: tables and reports.
 */
import { existsSync, readdirSync } from "node:fs";
import { UsageError } from "../core/errors.ts";
import type { Trajectory } from "../core/trajectory.ts";
import type { Env, TaskSpec } from "../envs/env.ts";
import { envEntry, makeEnv } from "../envs/registry.ts";
import { appendTrajectories } from "../agent/jsonl.ts";
import type { Policy } from "../policy/policy.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import type { RolloutOptions } from "../agent/rollout.ts";
import type { SeedConfig } from "../config/config.ts";
import { trainingEnv } from "../run/training-env.ts";
import { rolloutOptions } from "../run/rollout-options.ts";
import { breakdown, groupOf, type Breakdown } from "./breakdown.ts";
import { evaluate, type EvalSummary } from "./evaluate.ts";
import { describePanel, selectPanel, type Panel } from "./panel.ts";

/** Tasks of one evaluation split and how to build their environment. */
export type EvalSuite = {
  readonly env: string;
  readonly split: string;
  readonly tasks: readonly TaskSpec[];
  /** Seed the tasks were drawn with (`selectPanel`), absent for a split's first tasks. */
  readonly panelSeed?: number;
  makeEnv(): Env;
};

/** Greedy decoding (temperature 0) or sampling at a temperature. */
export type Decoding = { readonly kind: "greedy" } | { readonly kind: "sampled"; readonly temperature: number };

/** What one benchmark evaluation returns. */
export type BenchmarkResult = {
  readonly breakdown: Breakdown;
  readonly summary: EvalSummary;
  readonly decoding: Decoding;
  readonly seed: number;
  readonly trajectories: Trajectory[];
  /** The column (task type, dataset) of each task, in task order. */
  readonly groups: readonly string[];
  /** Which tasks were evaluated (count, draw seed, content hash). */
  readonly panel: Panel;
};

/** Options of {@link evalSuite}. */
export type SuiteOptions = {
  /** Real data root (`../shared/data/alfworld`, the WebShop folder, the Search-QA folder); "" or absent: generated. */
  readonly data?: string;
  /** Evaluate only the first N tasks (generated ALFWorld: the number of games), or N drawn with `panelSeed`. */
  readonly count?: number;
  /** Draw the `count` tasks from the whole split with this seed instead of taking the first ones. */
  readonly panelSeed?: number;
  /** Search-QA: a `/retrieve` endpoint to search instead of the data folder's corpus. */
  readonly retrieverUrl?: string;
};

/** The split `seed eval` uses when none is given: the environment's first evaluation split (with real data, its real-data one). */
export function defaultEvalSplit(envName: string, data: string): string {
  const entry = envEntry(envName);
  return ((data !== "" ? entry.realEvalSplits : undefined) ?? entry.evalSplits)[0]!;
}

/** Default number of generated ALFWorld games per split (the real split sizes). */
export const GENERATED_ALFWORLD_COUNTS: Readonly<Record<string, number>> = { valid_seen: 140, valid_unseen: 134, train: 256 };

/**
 * Search-QA question-set files of a data folder, as split names (file name up to the first `_`
 * or `.`). The corpus (`wiki*`) and FlashRAG's 16-question samples (`flashrag_*`, a slice of a set
 * present in full) are not evaluation sets.
 */
export function searchDatasets(dir: string): string[] {
  if (!existsSync(dir)) throw new UsageError(`no Search-QA data folder at ${dir}`);
  return readdirSync(dir)
    .filter((f) => /\.jsonl?$/.test(f) && !f.startsWith("wiki") && !f.startsWith("flashrag"))
    .map((f) => f.split(/[_.]/)[0]!)
    .filter((name, i, all) => all.indexOf(name) === i)
    .sort();
}

/**
 * The evaluation suite of `split` for a training config's environment (its generated world, or
 * `data` when given). Real ALFWorld splits are enumerated completely unless `count` cuts them.
 * @example evalSuite(config, "valid_seen", { data: "../shared/data/alfworld" }).tasks.length // 140
 */
export function evalSuite(config: SeedConfig, split: string, options: SuiteOptions = {}): EvalSuite {
  const data = options.data ?? config.env.data;
  const env = trainingEnv({ ...config, env: { ...config.env, data } });
  if (options.count !== undefined && (!Number.isInteger(options.count) || options.count < 1)) throw new UsageError(`the task count must be a positive integer, got ${options.count}`);
  let tasks: TaskSpec[];
  // A seeded draw needs the whole split (all sets for Search-QA's "all"); a plain count cuts each list.
  // Generated ALFWorld games, Sokoban levels and EZPoints hands are made per index, so their
  // first `count` already form a fixed panel and there is no finite split to draw from.
  const perIndex = (config.env.name === "alfworld" && data === "") || config.env.name === "sokoban" || config.env.name === "ezpoints";
  const seeded = options.panelSeed !== undefined && options.count !== undefined && !perIndex;
  const cut = seeded ? Number.MAX_SAFE_INTEGER : options.count ?? Number.MAX_SAFE_INTEGER;
  if (config.env.name === "alfworld" && data === "") {
    tasks = env.tasks(split, options.count ?? GENERATED_ALFWORLD_COUNTS[split] ?? 128);
  } else if (config.env.name === "search" && split === "all") {
    const sets = data === "" ? ["test"] : searchDatasets(data);
    tasks = sets.flatMap((s) => env.tasks(s, cut));
  } else {
    tasks = env.tasks(split, cut);
  }
  if (seeded) tasks = selectPanel(tasks, options.count, options.panelSeed);
  if (tasks.length === 0) throw new UsageError(`${config.env.name} has no tasks in split '${split}'${data ? ` under ${data}` : ""}`);
  const url = options.retrieverUrl;
  if (url !== undefined && !envEntry(config.env.name).options.includes("retrieverUrl")) throw new UsageError(`--retriever-url applies to --env search only`);
  const envOptions = url === undefined ? undefined : { retrieverUrl: url, ...(data ? { dataPath: data } : {}) };
  const makeSuiteEnv = envOptions === undefined ? () => env.makeEnv() : () => makeEnv(config.env.name, envOptions);
  return { env: config.env.name, split, tasks, ...(seeded ? { panelSeed: options.panelSeed } : {}), makeEnv: makeSuiteEnv };
}

/**
 * Rollout options of an evaluation under `config`: the run's history mode, action budget, mask
 * and context, its evaluation skill (`eval.skill`), one episode per task, the given decoding.
 */
export function evalRolloutOptions(config: SeedConfig, chat: ChatFormat, suite: EvalSuite, decoding: Decoding): Omit<RolloutOptions, "groupSize" | "envSeeds" | "update" | "seed"> {
  const asEval: SeedConfig = { ...config, skills: { ...config.skills, student: config.eval.skill } };
  const env = trainingEnv(config);
  const { seed: _s, update: _u, groupSize: _g, ...opts } = rolloutOptions({ config: asEval, chat, env, tasks: suite.tasks }, 0);
  return { ...opts, maxSteps: env.maxSteps, temperature: decoding.kind === "greedy" ? 0 : decoding.temperature };
}

/** Options of {@link evaluateBenchmark}. */
export type BenchmarkOptions = {
  readonly decoding?: Decoding;
  /** Seed of sampling and environment resets. @default 0 */
  readonly seed?: number;
  /** Tasks rolled out together. @default 32 */
  readonly batchTasks?: number;
  readonly onBatch?: (done: number, total: number) => void;
  /** Append the trajectories to this JSONL file (decoded text and token ids). */
  readonly samplesFile?: string;
};

/**
 * Evaluate `policy` on every task of `suite` as a run with `config` would act, and break the
 * result down by the benchmark's columns.
 * @example
 * const r = await evaluateBenchmark(policy, config, evalSuite(config, "valid_seen", { data }), { decoding: { kind: "greedy" } });
 * r.breakdown.metrics.All.value   // macro-average success over the six task types
 */
export async function evaluateBenchmark(policy: Policy, config: SeedConfig, suite: EvalSuite, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const decoding = options.decoding ?? { kind: "sampled", temperature: config.eval.temperature };
  const seed = options.seed ?? 0;
  const chat = new ChatFormat(policy.tokenizer);
  const { summary, trajectories } = await evaluate(policy, () => suite.makeEnv(), suite.tasks, {
    ...evalRolloutOptions(config, chat, suite, decoding),
    seed,
    ...(options.batchTasks !== undefined ? { batchTasks: options.batchTasks } : {}),
    ...(options.onBatch ? { onBatch: options.onBatch } : {}),
  });
  if (options.samplesFile !== undefined) appendTrajectories(options.samplesFile, trajectories);
  const groups = suite.tasks.slice(0, trajectories.length).map((t) => groupOf(suite.env, t));
  const panel = describePanel(suite.env, suite.split, suite.tasks.slice(0, trajectories.length), suite.panelSeed ?? null);
  return { breakdown: breakdown(suite.env, suite.split, suite.tasks, trajectories, seed), summary, decoding, seed, trajectories, groups, panel };
}

/** The JSON form of a result (what `seed eval --json` prints and `eval/*.json` files hold), without trajectories. */
export function benchmarkJson(result: BenchmarkResult, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const b = result.breakdown;
  const metrics: Record<string, unknown> = {};
  for (const [k, e] of Object.entries(b.metrics)) metrics[k] = { value: e.value, low: e.low, high: e.high, n: e.n, interval: e.interval };
  return {
    ...result.summary,
    split: b.split,
    decoding: result.decoding,
    seed: result.seed,
    columns: b.columns,
    headline: b.headline,
    headline_value: b.metrics[b.headline]?.value ?? null,
    metrics,
    counts: b.counts,
    panel: result.panel,
    ...(b.note ? { note: b.note } : {}),
    // Per task, in task order: the id and the score (1/0 success; WebShop's score): what paired
    // comparisons between methods evaluated on the same tasks resample.
    task_ids: result.trajectories.map((t) => t.taskId),
    outcomes: result.trajectories.map((t) => (result.breakdown.env === "webshop" ? t.score : t.success ? 1 : 0)),
    task_groups: result.groups,
    ...extra,
  };
}
