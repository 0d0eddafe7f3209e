/**
 * `seed experiment <preset>`: every arm x seed trained into its own run directory, evaluated on
 * the preset's splits, analysed, then aggregated and reported. Layout of `<out>`:
 *
 *   experiment.json                the preset as run (arms, seeds, overrides, evaluation)
 *   runs/<arm>/s<seed>/            one training run directory each (+ eval/, analysis/)
 *   results.json, results.md       aggregates over seeds (derived from the run directories)
 *   report.html                    `seed report <out>`
 *
 * Resumable at every level: a finished run (its last checkpoint is the config's last update) is
 * not retrained, an interrupted one resumes from its newest checkpoint (the trainer's exact
 * resume), and an evaluation whose record matches the checkpoint and settings is not redone.
 * Runs go seed-major (seed 1 of every arm, then seed 2, ...) so a time-boxed experiment has
 * every arm at the same number of seeds when it is stopped. An arm whose config is invalid (an
 * LLM analyzer without an endpoint) is skipped with its reason recorded, not fatal.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, SeedError } from "../core/errors.ts";
import { Progress, formatSeconds } from "../core/progress.ts";
import { loadTrainablePolicy } from "../policy/load.ts";
import type { Policy } from "../policy/policy.ts";
import type { SeedConfig } from "../config/config.ts";
import { planMethod } from "../config/method.ts";
import { ensureBase } from "../train/pretrain/base.ts";
import { resolveConfig } from "../config/presets.ts";
import { train } from "../train/trainer.ts";
import { benchmarkJson, evalSuite, evaluateBenchmark, type Decoding } from "./benchmark.ts";
import { armSlug, type ArmSpec, type ExperimentSpec } from "./experiment-spec.ts";
import { demoWork } from "./demo-work.ts";
import { gateValueAnalysis, type GateValueOptions } from "./gate-value.ts";
import { actionGateAnalysis, type GateSkill } from "./gate-action.ts";
import { readEvals, writeEvalRecord } from "./run-data.ts";
import { checkpointUpdates, newestPolicyDir, readRunConfig, recordRunConfig } from "../run/run-dir.ts";

/** Options of {@link runExperiment}. */
export type ExperimentOptions = {
  /** Output folder. */
  readonly out: string;
  /** Apply the `quick` size overlay to every arm (a smoke run). @default false */
  readonly quick?: boolean;
  /** Replace the preset's seeds. */
  readonly seeds?: readonly number[];
  /** Overrides after the preset's and the arm's (e.g. `run.updates=4`). */
  readonly overrides?: readonly string[];
  /** Only these arms (by name or folder name). */
  readonly only?: readonly string[];
  /** Replace the preset's evaluation count (0: whole splits). */
  readonly evalCount?: number;
  /** Where Stage-0/1 bases are cached. @default <out>/cache */
  readonly cacheDir?: string;
  /**
   * Seed of evaluation sampling for every run. By default each run samples with its own training
   * seed, so the runs of an arm that trains nothing (Vanilla at seeds 1, 2, 3) are three
   * evaluation draws, not three identical runs, and an interval over seeds carries evaluation
   * noise; arms at the same seed still share it (paired). @default the run's seed
   */
  readonly evalSeed?: number;
  /** Options of the gate-value analysis. */
  readonly gateValue?: Partial<GateValueOptions>;
  /** No progress bars from training. @default false */
  readonly quiet?: boolean;
  /** Receives one line per event (run started, skipped, evaluated). @default stderr */
  readonly log?: (line: string) => void;
};

/** One planned run. */
export type PlannedRun = {
  readonly arm: ArmSpec;
  readonly seed: number;
  readonly runDir: string;
  /** The resolved config, or why the arm cannot run. */
  readonly config: SeedConfig | null;
  readonly skipped: string | null;
};

/** What happened to one run. */
export type RunOutcome = PlannedRun & {
  /** Updates trained by this call (0 when it was already complete). */
  readonly trained: number;
  /** Splits evaluated by this call. */
  readonly evaluated: readonly string[];
  readonly seconds: number;
};

/** The config of one arm and seed under the options. */
export function armConfig(spec: ExperimentSpec, arm: ArmSpec, seed: number, options: Pick<ExperimentOptions, "quick" | "overrides"> = {}): SeedConfig {
  return resolveConfig({ preset: arm.preset, quick: options.quick ?? false, overrides: layerOverrides([...spec.overrides, ...arm.overrides, ...(options.overrides ?? []), `run.seed=${seed}`]) });
}

/** Dotted overrides in layers: a later `a.b=v` replaces an earlier one of the same path (the command line beats the preset). */
export function layerOverrides(overrides: readonly string[]): string[] {
  const byPath = new Map<string, string>();
  for (const o of overrides) {
    const body = o.replace(/^--/, "");
    const eq = body.indexOf("=");
    const path = eq > 0 ? body.slice(0, eq) : body;
    byPath.delete(path);
    byPath.set(path, `--${body}`);
  }
  return [...byPath.values()];
}

/** Every run of an experiment, seed-major, with configs resolved (invalid arms marked skipped). */
export function planExperiment(spec: ExperimentSpec, options: ExperimentOptions): PlannedRun[] {
  const out = resolve(options.out);
  const arms = options.only === undefined ? spec.arms : spec.arms.filter((a) => options.only!.includes(a.name) || options.only!.includes(armSlug(a.name)));
  if (arms.length === 0) throw new SeedError(`no arm of ${spec.name} matches ${options.only?.join(", ")} (arms: ${spec.arms.map((a) => a.name).join(", ")})`);
  const plans: PlannedRun[] = [];
  for (const seed of options.seeds ?? spec.seeds) {
    for (const arm of arms) {
      const runDir = join(out, "runs", armSlug(arm.name), `s${seed}`);
      try {
        plans.push({ arm, seed, runDir, config: armConfig(spec, arm, seed, options), skipped: null });
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        plans.push({ arm, seed, runDir, config: null, skipped: e.message.replace(/\s+/g, " ") });
      }
    }
  }
  return plans;
}

/** The decoding of a spec's evaluation under a config. */
export function specDecoding(spec: ExperimentSpec, config: SeedConfig): Decoding {
  return spec.eval.decoding === "greedy" ? { kind: "greedy" } : { kind: "sampled", temperature: config.eval.temperature };
}

/** The policy directory a run evaluates: its newest checkpoint, or its starting checkpoint when it trains nothing. */
async function runPolicyDir(plan: PlannedRun & { config: SeedConfig }, cacheDir: string, quiet: boolean): Promise<{ dir: string; update: number }> {
  const newest = newestPolicyDir(plan.runDir);
  if (newest !== null) return newest;
  return { dir: await ensureBase(plan.config, { cacheDir, quiet }), update: 0 };
}

/**
 * Train (or resume), evaluate and analyse one planned run. Methods that train nothing (Vanilla,
 * Skill-Prompt) are evaluated from their starting checkpoint without a training loop.
 */
export async function executeRun(spec: ExperimentSpec, plan: PlannedRun, options: ExperimentOptions): Promise<RunOutcome> {
  const t0 = performance.now();
  const log = options.log ?? ((l: string) => process.stderr.write(l + "\n"));
  if (plan.config === null) {
    log(`skip ${plan.arm.name} s${plan.seed}: ${plan.skipped}`);
    return { ...plan, trained: 0, evaluated: [], seconds: 0 };
  }
  // A run that already started keeps the config it recorded: the library's defaults may have
  // moved since, and a resumed run (or a re-evaluation) must use the settings it trained with.
  const recordedPath = join(plan.runDir, "config.json");
  const config: SeedConfig = existsSync(recordedPath) ? readRunConfig(plan.runDir) : plan.config;
  if (JSON.stringify(config) !== JSON.stringify(plan.config)) log(`${plan.arm.name} s${plan.seed}: using the config recorded in ${recordedPath} (the preset now resolves differently)`);
  const cacheDir = resolve(options.cacheDir ?? join(options.out, "cache"));
  const quiet = options.quiet ?? false;
  let trained = 0;
  if (planMethod(config).trains && config.run.updates > 0) {
    if (checkpointUpdates(plan.runDir).at(-1) !== config.run.updates) {
      log(`train ${plan.arm.name} s${plan.seed} (${config.method.name}, ${config.run.updates} updates) -> ${plan.runDir}`);
      const result = await train(config, { runDir: plan.runDir, cacheDir, quiet });
      trained = result.ran;
    }
  } else {
    recordRunConfig(plan.runDir, config);
  }
  const policy = await runPolicyDir({ ...plan, config }, cacheDir, quiet);
  const decoding = specDecoding(spec, config);
  const existing = readEvals(plan.runDir);
  const evaluated: string[] = [];
  let loaded: Policy | null = null;
  for (const split of spec.eval.splits) {
    const countAll = options.evalCount ?? spec.eval.count;
    const real = split.startsWith("real:");
    // Real splits are always enumerated whole (140 / 134 games): their first games by id are
    // sorted by task type, so a prefix would be a biased sample.
    const count = real ? 0 : countAll;
    const data = real ? resolve(spec.eval.realData) : config.env.data;
    // A count on real ALFWorld games draws a fixed seeded panel (the same for every run), not a
    // prefix: the games are sorted by task type, so the first ones are one or two types.
    const panel = count > 0 && config.env.name === "alfworld" && data !== "" ? { panelSeed: 0 } : {};
    const settings = { decoding, count, data, seed: options.evalSeed ?? plan.seed, update: policy.update, ...panel };
    const old = existing[split];
    if (old !== undefined && JSON.stringify(old["settings"]) === JSON.stringify(settings)) continue;
    loaded ??= await loadTrainablePolicy(policy.dir);
    const suite = { ...evalSuite(config, real ? split.slice(5) : split, { data, ...(count > 0 ? { count } : {}), ...panel }), split };
    const bar = new Progress(`eval ${plan.arm.name} s${plan.seed} ${split}`, suite.tasks.length, { silent: quiet });
    let shown = 0;
    const result = await evaluateBenchmark(loaded, config, suite, { decoding, seed: settings.seed, onBatch: (done) => (bar.tick(done - shown), (shown = done)) });
    bar.done(`${result.breakdown.headline} ${(100 * (result.breakdown.metrics[result.breakdown.headline]?.value ?? Number.NaN)).toFixed(1)}%`);
    writeEvalRecord(plan.runDir, benchmarkJson(result, { update: policy.update, run: plan.runDir, method: config.method.name, arm: plan.arm.name, settings }) as Record<string, unknown> & { split: string });
    evaluated.push(split);
  }
  if (spec.analyses.includes("gate-value") && (config.skills.teacher === "self" || config.skills.teacher === "library") && config.opd.coef > 0) {
    const path = join(plan.runDir, "analysis", "gate-value.json");
    const prior = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { update?: number }) : null;
    if (prior?.update !== policy.update) {
      loaded ??= await loadTrainablePolicy(policy.dir);
      log(`gate-value analysis ${plan.arm.name} s${plan.seed}`);
      const report = await gateValueAnalysis(loaded, config, { ...options.gateValue, seed: plan.seed });
      mkdirSync(join(plan.runDir, "analysis"), { recursive: true });
      writeFileSync(path, JSON.stringify({ ...report, update: policy.update }, null, 2) + "\n");
    }
  }
  // Eq. 8 at the action level on the run's last checkpoint (ALFWorld): the rule analyzer's
  // hindsight skill for every arm, and the arm's own analyzer role where it has one.
  if (spec.analyses.includes("gate-action") && config.env.name === "alfworld") {
    const skills: GateSkill[] = config.skills.teacher === "self" ? ["rule", "self"] : ["rule"];
    for (const skill of skills) {
      const path = join(plan.runDir, "analysis", `gate-action-${skill}.json`);
      const prior = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { update?: number }) : null;
      if (prior?.update === policy.update) continue;
      loaded ??= await loadTrainablePolicy(policy.dir);
      log(`gate-action analysis (${skill} skill) ${plan.arm.name} s${plan.seed}`);
      const report = await actionGateAnalysis(loaded, config, { ...options.gateValue, skill, seed: plan.seed });
      mkdirSync(join(plan.runDir, "analysis"), { recursive: true });
      writeFileSync(path, JSON.stringify({ ...report, update: policy.update }, null, 2) + "\n");
    }
  }
  return { ...plan, trained, evaluated, seconds: (performance.now() - t0) / 1000 };
}

/** Write `experiment.json` (the preset as run, with the options that shaped it). */
export function writeExperimentManifest(spec: ExperimentSpec, options: ExperimentOptions, plans: readonly PlannedRun[]): void {
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  const manifest = {
    name: spec.name, summary: spec.summary, question: spec.question, preset: spec.path,
    seeds: options.seeds ?? spec.seeds, overrides: [...spec.overrides, ...(options.overrides ?? [])], quick: options.quick ?? false,
    eval: { ...spec.eval, count: options.evalCount ?? spec.eval.count }, analyses: spec.analyses, table: spec.table,
    arms: spec.arms.map((a) => ({ ...a, dir: armSlug(a.name) })),
    runs: plans.map((p) => ({ arm: p.arm.name, seed: p.seed, dir: p.runDir, skipped: p.skipped })),
  };
  writeFileSync(join(out, "experiment.json"), JSON.stringify(manifest, null, 2) + "\n");
}

/**
 * Run a whole experiment (resumable), then return the outcomes; results and the report are
 * written by the caller from the run directories (`experiment-results.ts`, `report.ts`).
 */
export async function runExperiment(spec: ExperimentSpec, options: ExperimentOptions): Promise<RunOutcome[]> {
  const plans = planExperiment(spec, options);
  writeExperimentManifest(spec, options, plans);
  const log = options.log ?? ((l: string) => process.stderr.write(l + "\n"));
  const units = experimentWork(spec, options, plans);
  // A silent bar does the rate and ETA arithmetic; its line is logged after each run, because
  // the runs draw their own bars and an in-place redraw would fight them on a terminal.
  const bar = new Progress(`experiment ${spec.name}`, units.reduce((a, b) => a + b, 0), { silent: true, priorSecondsPerUnit: 1, showCount: false });
  const outcomes: RunOutcome[] = [];
  for (const [i, plan] of plans.entries()) {
    const outcome = await executeRun(spec, plan, options);
    outcomes.push(outcome);
    // A run that finished at once was already done (or skipped): it fills the bar, not the rate.
    if (outcome.seconds < 1) bar.skip(units[i]!);
    else bar.tick(units[i]!);
    if (!(options.quiet ?? false)) log(`[experiment ${spec.name}] ${i + 1}/${plans.length} runs, ${formatSeconds(bar.elapsed())} elapsed, about ${formatSeconds(bar.eta())} left`);
  }
  return outcomes;
}

/**
 * Each planned run's share of the experiment's work (reference seconds, the demo's measured
 * rates per benchmark): a run that trains weighs its updates, an untrained one its evaluation;
 * the first runs also carry the Stage-0 and Stage-1 bases they build. Only proportions matter.
 */
export function experimentWork(spec: ExperimentSpec, options: ExperimentOptions, plans: readonly PlannedRun[]): number[] {
  const count = options.evalCount ?? spec.eval.count;
  // Whole splits: ALFWorld's valid splits hold 140 and 134 games; 137 a split is near enough.
  const evalEpisodes = spec.eval.splits.reduce((a, s) => a + (s.startsWith("real:") || count === 0 ? 137 : count), 0);
  const work = demoWork(plans, evalEpisodes);
  const units = [...work.runs];
  const first = plans.findIndex((p) => p.config !== null);
  const firstSft = plans.findIndex((p) => p.config?.policy.sft === true);
  if (first >= 0) units[first]! += work.stage0;
  if (firstSft >= 0) units[firstSft]! += work.stage1;
  return units;
}
