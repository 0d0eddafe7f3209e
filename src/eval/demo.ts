/**
 * `seed demo`: the whole method on the embedded defaults, on a fresh machine, in one command:
 *
 *   1. Stage 0   behaviour-cloned base agent on generated ALFWorld games (or, with `env:
 *                "webshop"`, on the generated WebShop shop, eval on its 128 test goals; with
 *                `env: "search"`, on the generated Search-QA world, eval on 500 test questions)
 *   2. Stage 1   offline collection, rule-based hindsight analyzer, skill SFT
 *   3. Stage 2   SEED and GRPO side by side, same base, same task stream, same seeds
 *   4. eval      both on the generated seen and unseen splits (identical games and env seeds)
 *   5. report    `<out>/report.html`, `<out>/summary.json`, and a three-line verdict
 *
 * Sizes come from the experiment presets `configs/experiments/demo.json` (about 15 minutes on two
 * cores) and `demo-quick.json` (`--quick`, well under 3 minutes; it exercises every stage and
 * measures next to nothing). With the ALFWorld data (`data`), the demo runs on the real games
 * instead (`demo-real.json`, `demo-real-quick.json`): it starts from the real-room base and its
 * Stage-1 checkpoint shipped in `assets/bases/alfworld-real` (building them takes longer than the
 * whole demo's budget; the quick variant runs a smoke-size Stage 1 from the base instead). Every
 * preset evaluates the untrained checkpoints next to the trained arms (the before-training rows).
 * The verdict's interval: with three or more training seeds, a Student-t interval over seeds of the paired SEED − GRPO difference; with fewer, a paired
 * stratified bootstrap over the evaluation games (both methods play the same games), which
 * covers evaluation noise but not seed-to-seed variance. The verdict says which.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "../core/errors.ts";
import { Progress } from "../core/progress.ts";
import { deriveSeed } from "../core/rng.ts";
import { ensureBase } from "../train/pretrain/base.ts";
import { pairedBootstrapDifference } from "./aggregate.ts";
import type { Estimate } from "./breakdown.ts";
import { executeRun, planExperiment, writeExperimentManifest } from "./experiment.ts";
import { armDifference, experimentSummary, readExperiment, writeExperimentResults, type ArmResults, type ExperimentData } from "./experiment-results.ts";
import { readExperimentSpec } from "./experiment-spec.ts";
import { demoWork } from "./demo-work.ts";
import { stageReports, writeReport } from "./report.ts";
import type { EvalRecord } from "./run-data.ts";
import { benchmarkTitle, formatEstimate } from "./tables.ts";

/** Options of {@link runDemo}. */
export type DemoOptions = {
  /** Use `demo-quick` (minutes → seconds). @default false */
  readonly quick?: boolean;
  /** The benchmark: generated ALFWorld games, the generated WebShop shop (`demo-webshop*.json`) or the generated Search-QA world (`demo-search*.json`). @default "alfworld" */
  readonly env?: DemoEnv;
  /**
   * The ALFWorld data root (`json_2.1.1/` and the train archive): the demo trains and evaluates on
   * the real games from the shipped real-room base. Unset: generated games, as without the data.
   * ALFWorld only.
   */
  readonly data?: string;
  /** Output folder. */
  readonly out: string;
  /** Replace the preset's training seeds. */
  readonly seeds?: readonly number[];
  /** Where Stage-0/1 bases are cached. @default <out>/cache (a fresh machine builds them) */
  readonly cacheDir?: string;
  /** No progress bars. @default false */
  readonly quiet?: boolean;
  /** Status lines. @default stderr */
  readonly log?: (line: string) => void;
};

/** The benchmarks `seed demo` runs. */
export const DEMO_ENVS = ["alfworld", "webshop", "search"] as const;
/** One of {@link DEMO_ENVS}. */
export type DemoEnv = (typeof DEMO_ENVS)[number];

const DEMO_TITLES: Readonly<Record<DemoEnv, string>> = { alfworld: "ALFWorld", webshop: "WebShop", search: "Search-QA" };

/**
 * The experiment preset of a demo: `demo`, `demo-real` (ALFWorld on the real games), `demo-webshop`,
 * `demo-search`, each with a `-quick` variant.
 */
export function demoPreset(env: DemoEnv, quick: boolean, real = false): string {
  return `demo${env === "alfworld" ? (real ? "-real" : "") : `-${env}`}${quick ? "-quick" : ""}`;
}

/** The package root: the shipped checkpoints' paths in the demo presets are relative to it. */
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The preset's shipped checkpoints (`policy.base`, `policy.sftBase`), made absolute against the package root. */
function shippedCheckpoints(overrides: readonly string[]): { key: string; dir: string }[] {
  return overrides.map((o) => o.replace(/^--/, "")).filter((o) => /^policy\.(base|sftBase)=/.test(o)).map((o) => {
    const eq = o.indexOf("=");
    return { key: o.slice(0, eq), dir: resolve(PACKAGE_ROOT, o.slice(eq + 1)) };
  });
}

/** Where `seed demo` looks for the ALFWorld data when `--data` is not given (as the experiment presets do). */
export const DEFAULT_ALFWORLD_DATA = "../shared/data/alfworld";

/** Whether `dir` holds the ALFWorld data the real demo needs: the two evaluation splits. */
export function hasAlfworldData(dir: string): boolean {
  return ["valid_seen", "valid_unseen"].every((s) => existsSync(join(dir, "json_2.1.1", s)));
}

/** One split's SEED − GRPO comparison. */
export type Comparison = {
  readonly split: string;
  /** The arm SEED is compared with (its name in the experiment). @default "GRPO" */
  readonly against?: string;
  readonly metric: string;
  readonly seed: Estimate | undefined;
  readonly grpo: Estimate | undefined;
  readonly difference: Estimate;
  /** What the difference's interval is over. */
  readonly intervalOver: string;
};

/** What the demo returns (and writes to `summary.json`). */
export type DemoResult = {
  readonly report: string;
  readonly summaryPath: string;
  readonly verdict: readonly [string, string, string];
  readonly comparisons: readonly Comparison[];
  readonly seconds: number;
};

function signed(x: number): string {
  return `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`;
}

/** The SEED − GRPO difference on one split: t over seeds (≥ 3 shared seeds) or a paired bootstrap over games. */
export function compareArms(a: ArmResults, b: ArmResults, split: string, bootstrapSeed = 0, column?: string): Comparison | null {
  const ea = a.evals[split], eb = b.evals[split];
  if (ea === undefined || eb === undefined) return null;
  const metric = column ?? ea.headline;
  const shared = a.seeds.filter((s) => b.seeds.includes(s));
  // A record's per-game outcomes are WebShop scores (success: score 1) and other benchmarks' successes.
  const webshop = ea.env === "webshop";
  const perGame = webshop && metric === "Success" ? (x: number) => (x === 1 ? 1 : 0) : (x: number) => x;
  if (shared.length < 3 && metric !== ea.headline && !(webshop && metric === "Score")) return null;
  const recA = (s: number) => a.runs.find((r) => r.config?.run.seed === s)?.evals[split];
  const recB = (s: number) => b.runs.find((r) => r.config?.run.seed === s)?.evals[split];
  if (shared.length >= 3) {
    const d = armDifference(a, b, split, metric)!;
    // Each run samples its evaluation with its own seed (experiment.ts), so the spread over seeds carries evaluation noise too.
    const evalSeeds = new Set(shared.map((s) => (recA(s)?.["settings"] as { seed?: number } | undefined)?.seed));
    const noise = evalSeeds.size === shared.length ? ", each seed with its own evaluation draw" : ", one evaluation seed for all";
    const widened = d.interval === "t+bootstrap" ? ", widened to a paired bootstrap over seeds and games" : "";
    return { split, metric, seed: ea.metrics[metric], grpo: eb.metrics[metric], difference: d, intervalOver: `Student-t over ${shared.length} training seeds (paired${noise})${widened}` };
  }
  // Pool the shared seeds' games: each (seed, game) pair is one paired observation.
  const xa: number[] = [], xb: number[] = [], groups: string[] = [];
  for (const s of shared) {
    const ra = recA(s) as (EvalRecord & { outcomes?: number[]; task_ids?: string[]; task_groups?: string[] }) | undefined;
    const rb = recB(s) as (EvalRecord & { outcomes?: number[]; task_ids?: string[] }) | undefined;
    if (!ra?.outcomes || !rb?.outcomes || JSON.stringify(ra.task_ids) !== JSON.stringify(rb.task_ids)) continue;
    xa.push(...ra.outcomes.map(perGame));
    xb.push(...rb.outcomes.map(perGame));
    groups.push(...(ra.task_groups ?? ra.outcomes.map(() => "all")));
  }
  const d = pairedBootstrapDifference(xa, xb, groups, deriveSeed(bootstrapSeed, "demo-verdict", split));
  const games = shared.length > 0 ? xa.length / shared.length : 0;
  return {
    split, metric, seed: ea.metrics[metric], grpo: eb.metrics[metric], difference: d,
    intervalOver: `paired bootstrap over the ${games} evaluation games${shared.length > 1 ? ` of ${shared.length} seeds` : ""} (${shared.length} training seed${shared.length === 1 ? "" : "s"}: seed-to-seed variance not included)`,
  };
}

/** The call on one difference: which arm is better, or that the interval does not resolve one. */
function callAgainst(c: Comparison | undefined, against: string): string {
  const d = c?.difference;
  if (d === undefined || !Number.isFinite(d.low)) return `no interval vs ${against}`;
  if (d.low === 0 && d.high === 0) return `identical outcomes vs ${against}`;
  return d.low > 0 ? `SEED better than ${against}` : d.high < 0 ? `${against} better than SEED` : `no difference resolved vs ${against}`;
}

/** `, before training X` from the untrained base's value of a metric, where the experiment has one. */
function beforeTraining(data: ExperimentData, split: string, metric: string): string {
  const e = data.arms.find((a) => a.name === BEFORE_TRAINING)?.evals[split]?.metrics[metric];
  return e === undefined ? "" : `, before training ${formatEstimate(e)}`;
}

/** The calls against GRPO (from SFT) and no training, where the experiment has those arms. */
function laterCalls(comparisons: readonly Comparison[], metric: string): string {
  return [GRPO_FROM_SFT, BEFORE_TRAINING].map((other) => comparisons.find((c) => c.against === other && c.metric === metric))
    .filter((c): c is Comparison => c !== undefined)
    .map((c) => `; ${callAgainst(c, c.against === BEFORE_TRAINING ? "no training (Vanilla)" : c.against!)}`).join("");
}

/**
 * The three verdict lines of a WebShop demo: success and score on the test goals (with the
 * untrained base's where the experiment has it), then the calls, decided on success (the
 * headline): against GRPO, GRPO from SEED's Stage-1 checkpoint and no training.
 */
function webshopVerdict(comparisons: readonly Comparison[], data: ExperimentData): [string, string, string] {
  const line = (c: Comparison | undefined, name: string): string => {
    if (c === undefined) return `WebShop ${name}: not evaluated`;
    const games = data.arms[0]?.runs[0]?.evals[c.split]?.episodes ?? "?";
    return `${benchmarkTitle(`webshop/${c.split}`)} (${games} goals, ${name} %): SEED ${formatEstimate(c.seed)} vs GRPO ${formatEstimate(c.grpo)}${beforeTraining(data, c.split, c.metric)}; SEED − GRPO = ${signed(c.difference.value)} pts [${signed(c.difference.low)}, ${signed(c.difference.high)}]`;
  };
  const vsGrpo = comparisons.filter((c) => (c.against ?? "GRPO") === "GRPO");
  const success = vsGrpo.find((c) => c.metric === "Success"), score = vsGrpo.find((c) => c.metric === "Score");
  return [line(success, "success"), line(score, "score"), `Verdict on WebShop success: ${callAgainst(success, "GRPO")}${laterCalls(comparisons, "Success")} (95% intervals; ${success?.intervalOver ?? ""}).`];
}

/**
 * The three verdict lines of a Search-QA demo: exact match on the generated test questions against
 * GRPO from the same base (with the untrained base's), then against GRPO from SEED's own Stage-1
 * checkpoint (the paper's "w/o self-evolving refresh" row; Stage 1 is extra training GRPO from the
 * base does not get), then the calls, no training among them.
 */
function searchVerdict(comparisons: readonly Comparison[], data: ExperimentData): [string, string, string] {
  const questions = data.arms[0]?.runs[0]?.evals[comparisons[0]?.split ?? ""]?.episodes ?? "?";
  const line = (c: Comparison | undefined, against: string, before = false): string => c === undefined
    ? `Search-QA vs ${against}: not evaluated`
    : `Search-QA, generated ${c.split} (${questions} questions, exact match %): SEED ${formatEstimate(c.seed)} vs ${against} ${formatEstimate(c.grpo)}${before ? beforeTraining(data, c.split, c.metric) : ""}; SEED − ${against} = ${signed(c.difference.value)} pts [${signed(c.difference.low)}, ${signed(c.difference.high)}]`;
  const base = comparisons.find((c) => c.against === "GRPO");
  return [
    line(base, "GRPO", true),
    line(comparisons.find((c) => c.against === GRPO_FROM_SFT), GRPO_FROM_SFT),
    `Verdict: ${callAgainst(base, "GRPO")}${laterCalls(comparisons, base?.metric ?? "Avg")} (95% intervals; ${base?.intervalOver ?? ""}; generated questions only: the real QA sets need the wiki-18 corpus, which is not here).`,
  ];
}

/** The arm a demo reads as "before training": the untrained base (Vanilla), if the experiment has it. */
export const BEFORE_TRAINING = "Vanilla";

/** GRPO from SEED's own Stage-1 checkpoint: the paper's "w/o self-evolving refresh" row. */
const GRPO_FROM_SFT = "GRPO (from SFT)";

/**
 * The three verdict lines from the comparisons. ALFWorld: one line per split (SEED, GRPO and,
 * where the experiment has it, the untrained base), then the calls: SEED against GRPO, against
 * GRPO from the Stage-1 checkpoint, and against no training.
 */
export function verdictLines(comparisons: readonly Comparison[], data: ExperimentData): [string, string, string] {
  const env = data.arms[0]?.evals[comparisons[0]?.split ?? ""]?.env;
  if (env === "webshop") return webshopVerdict(comparisons, data);
  if (env === "search") return searchVerdict(comparisons, data);
  const real = data.arms.some((a) => a.runs.some((r) => (r.config?.env.data ?? "") !== ""));
  const before = data.arms.find((a) => a.name === BEFORE_TRAINING);
  const vsGrpo = comparisons.filter((c) => (c.against ?? "GRPO") === "GRPO");
  const line = (c: Comparison | undefined, split: string): string => {
    if (c === undefined) return `${split}: not evaluated`;
    const games = data.arms[0]?.runs[0]?.evals[c.split]?.episodes ?? "?";
    const untrained = before?.evals[c.split]?.metrics[c.metric];
    const title = `${benchmarkTitle(`alfworld/${c.split}`)}${real ? ", real games" : ""}`;
    return `${title} (${games} games, ${c.metric === "All" ? "macro success" : c.metric} %): SEED ${formatEstimate(c.seed)} vs GRPO ${formatEstimate(c.grpo)}${untrained ? `, before training ${formatEstimate(untrained)}` : ""}; SEED − GRPO = ${signed(c.difference.value)} pts [${signed(c.difference.low)}, ${signed(c.difference.high)}]`;
  };
  const seen = vsGrpo.find((c) => c.split === "valid_seen"), unseen = vsGrpo.find((c) => c.split === "valid_unseen");
  const call = (c: Comparison): string => {
    const name = c.split === "valid_seen" ? "seen" : c.split === "valid_unseen" ? "unseen" : c.split;
    const other = c.against ?? "GRPO";
    const d = c.difference;
    if (!Number.isFinite(d.low)) return `${name}: no interval`;
    if (d.low === 0 && d.high === 0) return `identical outcomes on ${name} (every game ended the same for both)`;
    if (d.low > 0) return `SEED better on ${name}`;
    if (d.high < 0) return `${other} better on ${name}`;
    return `no difference resolved on ${name}`;
  };
  const groups = [...new Set(comparisons.map((c) => c.against ?? "GRPO"))].map((other) => {
    const calls = comparisons.filter((c) => (c.against ?? "GRPO") === other).map(call).join(", ");
    return other === "GRPO" ? calls : `against ${other === BEFORE_TRAINING ? "no training (Vanilla)" : other}: ${calls}`;
  });
  const over = comparisons[0]?.intervalOver ?? "";
  return [line(seen, "valid_seen"), line(unseen, "valid_unseen"), `Verdict: ${groups.join("; ")} (95% intervals; ${over}).`];
}

/**
 * Run the demo: stages, both methods, evaluation, report. Resumable: a second call with the same
 * `out` reuses finished stages, runs and evaluations.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const t0 = performance.now();
  const out = resolve(options.out);
  const log = options.log ?? ((l: string) => process.stderr.write(l + "\n"));
  const env = options.env ?? "alfworld";
  const data = options.data === undefined ? null : resolve(options.data);
  if (data !== null && env !== "alfworld") throw new UsageError(`--data is for the ALFWorld demo (real games); --env ${env} runs on its generated world`);
  if (data !== null && !hasAlfworldData(data)) throw new UsageError(`--data ${data} does not hold the ALFWorld games (json_2.1.1/valid_seen and valid_unseen)`);
  const spec = readExperimentSpec(demoPreset(env, options.quick ?? false, data !== null));
  const shipped = data === null ? [] : shippedCheckpoints(spec.overrides);
  for (const { key, dir } of shipped) {
    if (!existsSync(join(dir, "config.json"))) throw new UsageError(`${key}: the shipped checkpoint ${dir} is missing; assets/bases/alfworld-real/README.md has the commands that rebuild it`);
  }
  const cacheDir = resolve(options.cacheDir ?? join(out, "cache"));
  // The real demo's paths are absolute, so it runs from any working directory.
  const overrides = data === null ? [] : [`env.data=${data}`, ...shipped.map(({ key, dir }) => `${key}=${dir}`)];
  const expOptions = { out, cacheDir, quiet: options.quiet ?? false, log, overrides, ...(options.seeds ? { seeds: options.seeds } : {}) };
  const plans = planExperiment(spec, expOptions);
  writeExperimentManifest(spec, expOptions, plans);
  const evalEpisodes = spec.eval.splits.length * (spec.eval.count > 0 ? spec.eval.count : 128);
  const work = demoWork(plans, evalEpisodes);
  const total = work.stage0 + work.stage1 + work.runs.reduce((a, b) => a + b, 0) + work.report;
  // Units are reference seconds; the bar rescales them by the rate it measures on this machine.
  const bar = new Progress("seed demo", total, { silent: options.quiet ?? false, priorSecondsPerUnit: 1, showCount: false });
  // A step that finished at once was cached or resumed: it fills the bar but says nothing of the rate.
  const advance = async (units: number, status: string, work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    if (performance.now() - t < 1000) bar.skip(units, status);
    else bar.tick(units, status);
  };
  log(`[demo] ${spec.summary}`);
  const first = plans.find((p) => p.config !== null)?.config;
  const stage0Line = first?.policy.base ? `Stage 0 is the shipped base ${first.policy.base}` : `Stage 0 (base agent) -> ${cacheDir}`;
  const stage1Line = first?.policy.sftBase ? `Stage 1 is the shipped SFT checkpoint ${first.policy.sftBase}` : `Stage 1 (hindsight-skill SFT) -> ${cacheDir}`;
  log(`[demo] ${data === null ? "generated games" : `real ALFWorld games from ${data}`}; ${stage0Line}; ${stage1Line}`);
  const withSft = plans.find((p) => p.config?.policy.sft);
  const withoutSft = plans.find((p) => p.config && !p.config.policy.sft);
  const base = withoutSft?.config ?? withSft?.config;
  // Stage 0 first on its own (Stage 1 starts from it), so each is timed as itself.
  await advance(work.stage0, "stage 0 done", async () => { if (base) await ensureBase({ ...base, policy: { ...base.policy, sft: false } }, { cacheDir, quiet: options.quiet ?? false }); });
  await advance(work.stage1, "stage 1 done", async () => { if (withSft?.config) await ensureBase(withSft.config, { cacheDir, quiet: options.quiet ?? false }); });
  for (const [i, plan] of plans.entries()) {
    log(`[demo] ${plan.arm.name}, seed ${plan.seed}: train ${plan.config?.run.updates ?? 0} updates, then evaluate on ${spec.eval.splits.join(" and ")}`);
    await advance(work.runs[i]!, `${plan.arm.name} s${plan.seed} done`, () => executeRun(spec, plan, expOptions));
  }
  const results = readExperiment(out);
  writeExperimentResults(results);
  const seedArm = results.arms.find((a) => a.preset === "seed"), grpoArm = results.arms.find((a) => a.preset === "grpo");
  // WebShop is read on both of its columns (success is the headline, score the benchmark's other number).
  const columns = env === "webshop" ? ["Success", "Score"] : [undefined];
  const comparisons: Comparison[] = seedArm && grpoArm ? spec.eval.splits.flatMap((s) => columns.map((col) => compareArms(seedArm, grpoArm, s, 0, col))).filter((c): c is Comparison => c !== null).map((c) => ({ ...c, against: grpoArm.name })) : [];
  // SEED starts from the Stage-1 checkpoint: where the experiment has GRPO from that checkpoint, compare with it too.
  // Against no training too (ALFWorld): the verdict says whether SEED moved at all from its base.
  const grpoSft = results.arms.find((a) => a.name === GRPO_FROM_SFT);
  const untrained = results.arms.find((a) => a.name === BEFORE_TRAINING);
  for (const other of [grpoSft, untrained]) if (seedArm && other) for (const s of spec.eval.splits) {
    const c = compareArms(seedArm, other, s, 0);
    if (c !== null) comparisons.push({ ...c, against: other.name });
  }
  const verdict = verdictLines(comparisons, results);
  const where = data === null ? `generated ${DEMO_TITLES[env]}` : `the real ${DEMO_TITLES[env]} games`;
  const report = writeReport(out, { verdict: verdict.join("\n"), title: `seed demo${env === "alfworld" ? "" : ` --env ${env}`}${options.quick ? " --quick" : ""}: SEED vs GRPO on ${where}` });
  bar.tick(work.report, "report written");
  bar.done();
  const seconds = (performance.now() - t0) / 1000;
  const stages = seedArm?.runs[0] ? stageReports(seedArm.runs[0]) : { stage0: null, stage1: null };
  const summary = {
    demo: options.quick ? "quick" : "full",
    experiment: spec.name,
    games: data === null ? "generated" : "real",
    seconds,
    report,
    verdict,
    comparisons: comparisons.map((c) => ({ split: c.split, metric: c.metric, against: c.against ?? "GRPO", seed: c.seed, grpo: c.grpo, difference: c.difference, interval_over: c.intervalOver })),
    ...experimentSummary(results),
    stages: {
      stage0: stages.stage0 && { successNoHint: stages.stage0["successNoHint"], successCorrectHint: stages.stage0["successCorrectHint"], logprobShiftCorrectVsMisleading: stages.stage0["logprobShiftCorrectVsMisleading"], seconds: stages.stage0["seconds"] },
      stage1: stages.stage1 && { acceptanceRate: stages.stage1["acceptanceRate"], policySkillValidRate: stages.stage1["policySkillValidRate"], seconds: stages.stage1["seconds"] },
    },
  };
  const summaryPath = join(out, "summary.json");
  writeFileSync(summaryPath, JSON.stringify(summary, null, 2) + "\n");
  return { report, summaryPath, verdict, comparisons, seconds };
}
