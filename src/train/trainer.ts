/**
 * The trainer: the cadence around `runUpdate` (docs/TRAINING.md §3): for each update run it, append its
 * metrics, checkpoint when due. The run directory's format is `run/run-dir.ts`'s and
 * `run/checkpoint.ts`'s. The trainer talks to a `TrainablePolicy` only, loaded from a directory
 * by `loadTrainablePolicy` (policy/load.ts), so another implementation (a remote trainer) plugs
 * in there without a change here.
 *
 * Exact resume: the same command on the same run directory continues from the newest
 * checkpoint; metrics lines past it are dropped and redone. Every random draw derives from
 * (run seed, update, ...), caches are cleared at every update start, and metrics are written
 * before the checkpoint, so a run killed with SIGKILL at any point ends with the same weights and
 * metrics (timings aside) as one never interrupted.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { CheckpointError, SeedError, UsageError } from "../core/errors.ts";
import { deriveSeed } from "../core/rng.ts";
import { Progress } from "../core/progress.ts";
import type { Trajectory } from "../core/trajectory.ts";
import type { TaskSpec } from "../envs/env.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import { collectGroups } from "../agent/rollout.ts";
import { policySequences } from "../agent/training-views.ts";
import { trajectoryJsonLine } from "../agent/jsonl.ts";
import { loadTrainablePolicy } from "../policy/load.ts";
import type { Policy, PolicySnapshot, TrainablePolicy } from "../policy/policy.ts";
import { ensureBase, type BaseOptions } from "./pretrain/base.ts";
import { listCheckpoints, pruneCheckpoints, readTrainerState, TRAINER_FORMAT_VERSION, writeTrainerCheckpoint, type TrainerState } from "../run/checkpoint.ts";
import { appendMetrics, claimRunDir, truncateMetrics, writeSamples as writeRunSamples, writeSkillLibrary } from "../run/run-dir.ts";
import type { SeedConfig } from "../config/config.ts";
import { planMethod, type MethodCatalogue } from "../config/method.ts";
import { contextLimit } from "../config/resolve.ts";
import type { MiniBatchTrace } from "./context.ts";
import { trainingEnv, type TrainingEnv } from "../run/training-env.ts";
import { metricsLine } from "./metrics.ts";
import { taskIndices } from "../run/schedule.ts";
import { analyzeWithPolicy, libraryFromAnalyses } from "../skills/sources.ts";
import { rolloutOptions } from "../run/rollout-options.ts";
import { StageTimer } from "./timer.ts";
import { runUpdate, type UpdateResult } from "./update.ts";

/** Options of `train`. */
export type TrainOptions = BaseOptions & {
  /** The run directory (created; resumed when it holds checkpoints). */
  readonly runDir: string;
  /** No progress bar. @default false */
  readonly quiet?: boolean;
  /** Called after every update with its metrics line. */
  readonly onUpdate?: (line: Record<string, unknown>) => void;
  /** Called for every mini-batch (tests: per-term weights). */
  readonly onMiniBatch?: (trace: MiniBatchTrace) => void;
  /** Catalogues of loss terms and estimators the method is planned from. @default the built-in ones */
  readonly catalogue?: MethodCatalogue;
  /** Where a warning goes (a corrupt checkpoint skipped on resume). @default one `[seed] WARNING:` line on stderr */
  readonly onWarning?: (message: string) => void;
};

/** What a finished run reports. */
export type TrainResult = {
  readonly runDir: string;
  /** Updates completed in total (resumed ones included). */
  readonly updates: number;
  /** Updates this call ran. */
  readonly ran: number;
  /** Update the run resumed after (0 for a fresh start). */
  readonly resumedFrom: number;
  /** The newest checkpoint's policy directory (the trained policy). */
  readonly policyDir: string;
  /** The last metrics line. */
  readonly last: Record<string, unknown> | null;
};

/**
 * Trains with `config` in `options.runDir`, resuming from its newest checkpoint when there is one.
 * @example
 * const result = await train(resolveConfig({ preset: "seed", quick: true }), { runDir: "runs/seed-quick" });
 */
export async function train(config: SeedConfig, options: TrainOptions): Promise<TrainResult> {
  const runDir = resolve(options.runDir);
  const plan = planMethod(config, options.catalogue);
  // One writer per run directory: a second `train` on it fails here, naming the first.
  const lock = claimRunDir(runDir, config);
  try {
    return await trainLocked(config, options, runDir, plan);
  } finally {
    lock.release();
  }
}

async function trainLocked(config: SeedConfig, options: TrainOptions, runDir: string, plan: ReturnType<typeof planMethod>): Promise<TrainResult> {
  const env = trainingEnv(config);
  const pool = env.tasks(config.env.split, config.env.data === "" ? config.env.generatedTasks : Number.MAX_SAFE_INTEGER);

  const warn = options.onWarning ?? ((m: string) => process.stderr.write(`[seed] WARNING: ${m}\n`));
  const usable = await newestUsableCheckpoint(runDir, warn);
  const latest = usable?.checkpoint;
  let state: TrainerState | null = usable?.state ?? null;
  const init = state?.init ?? (await ensureBase(config, options));
  const policy = usable?.policy ?? (await loadTrainablePolicy(init));
  const startPolicy: Policy = latest === undefined ? await policy.snapshot() : await loadTrainablePolicy(init);
  const chat = new ChatFormat(policy.tokenizer);
  const K = config.skills.refreshEvery;
  let analyzerSnapshot: PolicySnapshot | null = null;
  let analyzerFrom: number | null = state?.analyzerFrom ?? null;
  if (K > 1 && latest !== undefined && analyzerFrom !== null) {
    // Re-frozen after loading, so a resumed run saves it exactly as an uninterrupted one (weights only).
    analyzerSnapshot = existsSync(join(latest.dir, "analyzer")) ? await (await loadTrainablePolicy(join(latest.dir, "analyzer"))).snapshot() : null;
  }
  let staticLibrary = state?.staticLibrary ?? null;
  if (config.skills.teacher === "static-self" && staticLibrary === null) {
    staticLibrary = await buildStaticLibrary(config, policy, chat, env, pool);
    writeSkillLibrary(runDir, staticLibrary);
  }
  const resumedFrom = state?.update ?? 0;
  let last: Record<string, unknown> | null = truncateMetrics(runDir, resumedFrom);
  let bad = state?.badUpdates ?? 0;
  const bar = new Progress(`train ${config.method.name}`, config.run.updates, { silent: options.quiet ?? false });
  bar.tick(resumedFrom, resumedFrom > 0 ? `resumed after update ${resumedFrom}` : undefined);
  let ran = 0;

  for (let u = resumedFrom + 1; u <= config.run.updates; u++) {
    if (K > 1 && (u - 1) % K === 0) {
      analyzerSnapshot = await policy.snapshot();
      analyzerFrom = u;
    }
    const analyzer: Policy | null = config.skills.teacher !== "self" ? null : K === 1 ? policy : K === 0 ? startPolicy : analyzerSnapshot;
    policy.clearCaches();
    analyzer?.clearCaches();
    const timer = new StageTimer();
    const wall0 = performance.now();
    const tasks = taskIndices(config.run.seed, pool.length, u, config.rollout.tasksPerUpdate).map((i) => pool[i]!);
    const result = await runUpdate({
      config, plan, update: u, policy, reference: plan.needsReference ? startPolicy : null, analyzer, staticLibrary, chat, env, tasks, timer,
      ...(options.onMiniBatch ? { onMiniBatch: options.onMiniBatch } : {}),
    });
    await timer.time("samples", () => writeSamples(runDir, config, u, result));
    bad = result.failed ? bad + 1 : 0;
    const line = metricsLine(u, { ...result.metrics, "guard/bad_updates": bad }, timer.drain(), (performance.now() - wall0) / 1000);
    appendMetrics(runDir, line);
    last = line;
    options.onUpdate?.(line);
    ran++;
    if (u % config.run.checkpointEvery === 0 || u === config.run.updates || bad >= config.run.maxBadUpdates) {
      state = {
        formatVersion: TRAINER_FORMAT_VERSION, update: u, taskCursor: u * config.rollout.tasksPerUpdate, taskPool: pool.length, init,
        analyzerFrom: K > 1 ? analyzerFrom : null, staticLibrary, badUpdates: bad,
        nextSeeds: { rollout: deriveSeed(config.run.seed, "rollout", u + 1), minibatch: deriveSeed(config.run.seed, "minibatch", u + 1, 0) },
      };
      const saveAnalyzer = K > 1 && analyzerSnapshot !== null && (u % K !== 0) ? analyzerSnapshot : null;
      await writeTrainerCheckpoint(runDir, policy, state, saveAnalyzer);
      pruneCheckpoints(runDir, config.run.keepCheckpoints);
    }
    bar.tick(1, statusOf(line));
    if (bad >= config.run.maxBadUpdates) {
      bar.done();
      throw new SeedError(`training stopped: ${bad} consecutive updates (the last: ${u}) had only non-finite losses or gradients; lower optim.lr, check the starting checkpoint, or raise run.maxBadUpdates`);
    }
  }
  bar.done();
  const final = listCheckpoints(runDir).at(-1);
  return {
    runDir, updates: Math.max(resumedFrom, config.run.updates), ran, resumedFrom,
    policyDir: final === undefined ? init : join(final.dir, "policy"), last,
  };
}

/**
 * The newest checkpoint whose trainer state and policy load, with both; older ones are tried when
 * the newest is corrupt (a disk error, a bit flip caught by the weights' checksum), each skip
 * a warning. Null when the run has no checkpoint.
 * @throws SeedError when checkpoints exist but none loads
 */
async function newestUsableCheckpoint(runDir: string, warn: (m: string) => void): Promise<{ checkpoint: { update: number; dir: string }; state: TrainerState; policy: TrainablePolicy } | null> {
  const all = listCheckpoints(runDir);
  const problems: string[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const checkpoint = all[i]!;
    try {
      const state = readTrainerState(checkpoint.dir);
      const policy = await loadTrainablePolicy(join(checkpoint.dir, "policy"));
      // A K > 1 run also needs its analyzer snapshot; check it loads before settling here.
      if (existsSync(join(checkpoint.dir, "analyzer"))) await loadTrainablePolicy(join(checkpoint.dir, "analyzer"));
      if (problems.length > 0) warn(`resuming from ${checkpoint.dir} (update ${checkpoint.update}): ${problems.join("; ")}`);
      return { checkpoint, state, policy };
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      problems.push(`skipped the corrupt checkpoint ${checkpoint.dir} (${e.message})`);
    }
  }
  if (all.length > 0) throw new SeedError(`no checkpoint of ${runDir} loads (${problems.join("; ")}); move its checkpoints/ folder aside to start over`);
  return null;
}

function statusOf(line: Record<string, unknown>): string {
  const f = (k: string) => (typeof line[k] === "number" ? (line[k] as number).toFixed(2) : "-");
  return `success ${f("success_rate")} tie ${f("tie_rate")}${line["gate_mean"] !== undefined ? ` gate ${f("gate_mean")}` : ""}`;
}

/** The `static-self` library: θ_0 plays the first tasks of the pool and analyses its own episodes, once. */
async function buildStaticLibrary(config: SeedConfig, policy: TrainablePolicy, chat: ChatFormat, env: TrainingEnv, pool: readonly TaskSpec[]): Promise<Record<string, string>> {
  const tasks = pool.slice(0, Math.max(config.rollout.tasksPerUpdate, Math.min(pool.length, 12)));
  const opts = rolloutOptions({ config, chat, env, tasks }, 0);
  const trajectories = await collectGroups(policy, () => env.makeEnv(), tasks, { ...opts, seed: deriveSeed(config.run.seed, "static-library"), groupSize: config.skills.staticRollouts });
  const maxContext = contextLimit(config, policy.maxContext);
  const analyses = await analyzeWithPolicy(policy, chat, trajectories, { maxSkillTokens: config.skills.maxSkillTokens, maxContext, attempts: config.skills.analyzerAttempts, seed: deriveSeed(config.run.seed, "static-library-analyze") });
  policy.clearCaches();
  return libraryFromAnalyses(env.name, trajectories, analyses);
}

/** Writes `samples/update-XXXXXX.jsonl`: a few trajectories (spread over groups) with skill, v_τ and per-turn gates. */
function writeSamples(runDir: string, config: SeedConfig, update: number, result: UpdateResult): void {
  if (config.run.samplesEvery === 0 || update % config.run.samplesEvery !== 0 || config.run.samplesPerUpdate === 0) return;
  const n = result.trajectories.length;
  const k = Math.min(n, config.run.samplesPerUpdate);
  const picks = Array.from({ length: k }, (_, i) => Math.floor((i * n) / k));
  const lines = picks.map((i) => {
    const traj = result.trajectories[i]!;
    return trajectoryJsonLine(traj, { tokens: false, extra: () => ({ update, skill: result.skills.skills[i] ?? "", skillValid: result.skills.valid[i] ?? 0, gates: turnGates(traj, result.gates[i] ?? []) }) });
  });
  writeRunSamples(runDir, update, lines);
}

/** Per-turn gates (4 decimals) from per-sequence gate arrays; empty lists where no teacher ran. */
function turnGates(traj: Trajectory, perSequence: readonly (Float64Array | undefined)[]): number[][] {
  const out: number[][] = traj.turns.map(() => []);
  policySequences(traj).forEach((seq, s) => {
    const g = perSequence[s];
    if (g === undefined) return;
    for (const seg of seq.segments) out[seg.turn] = Array.from(g.subarray(seg.offset, seg.offset + seg.length), (x) => Math.round(x * 1e4) / 1e4);
  });
  return out;
}

/**
 * The trained policy of a run directory (its newest checkpoint), or the starting policy when no
 * update completed. For evaluation: `loadRunPolicy("runs/seed").then((p) => evaluate(p, ...))`.
 */
export async function loadRunPolicy(runDir: string): Promise<TrainablePolicy> {
  const latest = listCheckpoints(runDir).at(-1);
  if (latest === undefined) throw new UsageError(`${runDir} has no checkpoint yet (checkpoints/update-XXXXXX)`);
  return loadTrainablePolicy(join(latest.dir, "policy"));
}
