/**
 * Benchmark metrics of one evaluation, laid out as the paper's tables read them, each with a 95%
 * interval over the evaluation episodes:
 *
 *   ALFWorld   success per task type (Pick, Look, Clean, Heat, Cool, Pick2) and `All`, the macro
 *              average over the six types (`micro` = success over all games is kept beside it)
 *   WebShop    `Score` (mean task score) and `Success`
 *   Search-QA  exact match per dataset and `Avg`, the mean over datasets
 *   others     `Success`
 *
 * Rates get Wilson intervals. Averages over groups of success rates (ALFWorld's macro average,
 * Search-QA's dataset average) get a seeded Monte-Carlo interval from independent Jeffreys
 * posteriors Beta(k + ½, n − k + ½) per group: unlike a percentile bootstrap it does not collapse
 * to [0, 0] when no episode succeeds (the Jeffreys interval has close to nominal coverage for
 * binomial rates). Mean scores (WebShop) get a seeded percentile bootstrap over episodes.
 * Values are fractions in [0, 1]; tables multiply by 100. Not here: intervals over training
 * seeds (`aggregate.ts`).
 */
import { Rng, deriveSeed } from "../core/rng.ts";
import type { Trajectory } from "../core/trajectory.ts";
import type { TaskSpec } from "../envs/env.ts";
import { TASK_LABELS, TASK_TYPES, bucketOfPath, type TaskType } from "../envs/alfworld/tasks.ts";
import { quantile, wilsonInterval } from "../math/stats.ts";

/** A point estimate with a two-sided 95% interval and how the interval was made. */
export type Estimate = {
  readonly value: number;
  readonly low: number;
  readonly high: number;
  /** Observations behind the estimate: episodes, or seeds for multi-seed aggregates. */
  readonly n: number;
  /** `t+bootstrap`: the union of the t-interval over seeds, the seed-and-game bootstrap and, for a rate, the pooled games' Wilson interval (`seed-game-bootstrap.ts`). */
  readonly interval: "wilson" | "jeffreys" | "bootstrap" | "t" | "t+bootstrap" | "none";
};

/** Metrics of one evaluation, in table-column order. */
export type Breakdown = {
  readonly env: string;
  readonly split: string;
  readonly episodes: number;
  /** Column names in the paper's order; the last (or `headline`) is the summary column. */
  readonly columns: readonly string[];
  /** The column a one-number comparison uses (`All`, `Success`, `Avg`). */
  readonly headline: string;
  readonly metrics: Readonly<Record<string, Estimate>>;
  /** Episodes per group column (task type, dataset). */
  readonly counts: Readonly<Record<string, number>>;
  /** What a reader must know about the summary column (Search-QA: which of the paper's sets it averages). */
  readonly note?: string;
};

/** Dataset labels of Search-QA in the paper's column order. */
export const SEARCH_DATASETS: readonly (readonly [string, string])[] = [
  ["nq", "NQ"], ["triviaqa", "TriviaQA"], ["popqa", "PopQA"], ["hotpotqa", "HotpotQA"],
  ["2wikimultihopqa", "2Wiki"], ["musique", "MuSiQue"], ["bamboogle", "Bamboogle"],
];

/**
 * For a Search-QA average over `present` dataset columns: a note saying which of the paper's
 * seven sets are absent (TriviaQA and PopQA are not in ../shared/data), or undefined when all
 * seven are present or none of them is (generated questions).
 */
export function searchAverageNote(present: readonly string[]): string | undefined {
  const paper = SEARCH_DATASETS.map(([, label]) => label);
  const real = present.filter((p) => paper.includes(p));
  const missing = paper.filter((p) => !present.includes(p));
  if (real.length === 0 || missing.length === 0) return undefined;
  return `Avg is the mean over the ${real.length} present sets (${real.join(", ")}), not the paper's seven: ${missing.join(", ")} absent${
    missing.includes("TriviaQA") && missing.includes("PopQA") ? " (TriviaQA and PopQA are not in ../shared/data)" : ""}`;
}

/** The ALFWorld task type of a task: the generated game's own type, else the game path's bucket. */
export function alfworldTypeOf(task: TaskSpec): TaskType | undefined {
  const payload = task.payload as { game?: { taskType?: TaskType }; file?: string } | undefined;
  return payload?.game?.taskType ?? bucketOfPath(payload?.file ?? task.id);
}

/** The Search-QA dataset label of a task (`synthetic` for generated questions). */
export function searchDatasetOf(task: TaskSpec): string {
  const name = (task.payload as { dataset?: string } | undefined)?.dataset ?? "unknown";
  const known = SEARCH_DATASETS.find(([key]) => name.toLowerCase().replace(/[^a-z0-9]/g, "").startsWith(key));
  return known?.[1] ?? name;
}

/** The group column of a task for an environment: task type, dataset, or `all`. */
export function groupOf(env: string, task: TaskSpec): string {
  if (env === "alfworld") {
    const t = alfworldTypeOf(task);
    return t === undefined ? "unknown" : TASK_LABELS[t];
  }
  if (env === "search") return searchDatasetOf(task);
  return "all";
}

const NONE = (value: number, n: number): Estimate => ({ value, low: Number.NaN, high: Number.NaN, n, interval: "none" });

/** Wilson estimate of a success rate. */
export function rateEstimate(successes: number, n: number): Estimate {
  if (n === 0) return NONE(Number.NaN, 0);
  const w = wilsonInterval(successes, n);
  return { value: w.estimate, low: w.low, high: w.high, n, interval: "wilson" };
}

/** A Gamma(shape, 1) draw (Marsaglia-Tsang; shape < 1 through the a + 1 boost). */
export function gammaSample(rng: Rng, shape: number): number {
  if (shape < 1) return gammaSample(rng, shape + 1) * Math.pow(rng.float() || Number.MIN_VALUE, 1 / shape);
  const d = shape - 1 / 3, c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = rng.normal();
    const v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const v = v0 * v0 * v0, u = rng.float();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * Mean over groups of per-group success rates with a 95% interval from independent Jeffreys
 * posteriors Beta(k + ½, n − k + ½) per group (Monte Carlo, seeded). Groups without episodes
 * are left out.
 */
export function rateAverageEstimate(groups: readonly (readonly number[])[], seed: number, draws = 4000): Estimate {
  const present = groups.filter((g) => g.length > 0).map((g) => ({ n: g.length, k: g.reduce((a, b) => a + b, 0) }));
  const n = present.reduce((s, g) => s + g.n, 0);
  if (present.length === 0) return NONE(Number.NaN, 0);
  const value = present.reduce((s, g) => s + g.k / g.n, 0) / present.length;
  const rng = Rng.from(seed);
  const stats = new Float64Array(draws);
  for (let r = 0; r < draws; r++) {
    let total = 0;
    for (const g of present) {
      const a = gammaSample(rng, g.k + 0.5), b = gammaSample(rng, g.n - g.k + 0.5);
      total += a / (a + b);
    }
    stats[r] = total / present.length;
  }
  return { value, low: Math.min(value, quantile(stats, 0.025)), high: Math.max(value, quantile(stats, 0.975)), n, interval: "jeffreys" };
}

/**
 * Mean over groups of the per-group mean of `value`, with a bootstrap that resamples episodes
 * inside each group (stratified). Groups without episodes are left out of the average.
 */
export function groupAverageEstimate(groups: readonly (readonly number[])[], seed: number, resamples = 1000): Estimate {
  const present = groups.filter((g) => g.length > 0);
  const n = present.reduce((s, g) => s + g.length, 0);
  if (present.length === 0) return NONE(Number.NaN, 0);
  const avg = (gs: readonly (readonly number[])[]) => gs.reduce((s, g) => s + g.reduce((a, b) => a + b, 0) / g.length, 0) / gs.length;
  const value = avg(present);
  const rng = Rng.from(seed);
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let total = 0;
    for (const g of present) {
      let s = 0;
      for (let i = 0; i < g.length; i++) s += g[rng.int(g.length)]!;
      total += s / g.length;
    }
    stats[r] = total / present.length;
  }
  const b = { low: quantile(stats, 0.025), high: quantile(stats, 0.975) };
  return { value, low: b.low, high: b.high, n, interval: "bootstrap" };
}

/**
 * The breakdown of an evaluation. `tasks[i]` must be the task of `trajectories[i]` (one episode
 * per task, as `evaluate` returns them). The bootstrap seed derives from `seed`.
 */
export function breakdown(env: string, split: string, tasks: readonly TaskSpec[], trajectories: readonly Trajectory[], seed = 0): Breakdown {
  if (tasks.length < trajectories.length) throw new RangeError(`breakdown needs the task of every trajectory: ${tasks.length} tasks, ${trajectories.length} trajectories`);
  const groups = new Map<string, Trajectory[]>();
  trajectories.forEach((t, i) => {
    const g = groupOf(env, tasks[i]!);
    let list = groups.get(g);
    if (list === undefined) groups.set(g, (list = []));
    list.push(t);
  });
  const counts: Record<string, number> = {};
  for (const [g, list] of groups) counts[g] = list.length;
  const metrics: Record<string, Estimate> = {};
  const success = (list: readonly Trajectory[]) => list.filter((t) => t.success).length;
  const bseed = deriveSeed(seed, "breakdown", env, split);
  if (env === "alfworld") {
    const columns = [...TASK_TYPES.map((t) => TASK_LABELS[t]), "All"];
    for (const label of columns.slice(0, -1)) {
      const list = groups.get(label) ?? [];
      metrics[label] = rateEstimate(success(list), list.length);
    }
    metrics["All"] = rateAverageEstimate(columns.slice(0, -1).map((l) => (groups.get(l) ?? []).map((t) => (t.success ? 1 : 0))), bseed);
    metrics["micro"] = rateEstimate(success(trajectories), trajectories.length);
    return { env, split, episodes: trajectories.length, columns, headline: "All", metrics, counts };
  }
  if (env === "search") {
    const known = SEARCH_DATASETS.map(([, label]) => label);
    const present = [...groups.keys()].sort((a, b) => (known.indexOf(a) + 1 || 99) - (known.indexOf(b) + 1 || 99) || a.localeCompare(b));
    for (const label of present) metrics[label] = rateEstimate(success(groups.get(label)!), groups.get(label)!.length);
    metrics["Avg"] = rateAverageEstimate(present.map((l) => groups.get(l)!.map((t) => (t.success ? 1 : 0))), bseed);
    const note = searchAverageNote(present);
    return { env, split, episodes: trajectories.length, columns: [...present, "Avg"], headline: "Avg", metrics, counts, ...(note ? { note } : {}) };
  }
  metrics["Success"] = rateEstimate(success(trajectories), trajectories.length);
  if (env === "webshop") {
    metrics["Score"] = groupAverageEstimate([trajectories.map((t) => t.score)], bseed);
    return { env, split, episodes: trajectories.length, columns: ["Score", "Success"], headline: "Success", metrics, counts };
  }
  return { env, split, episodes: trajectories.length, columns: ["Success"], headline: "Success", metrics, counts };
}
