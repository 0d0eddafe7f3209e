/**
 * `seed demo`: the whole method on the embedded defaults, on a fresh machine, in one command:
 *
 *   1. Stage 0   behaviour-cloned base agent on generated ALFWorld games
 *   2. Stage 1   offline collection, rule-based hindsight analyzer, skill SFT
 *   3. Stage 2   SEED and GRPO side by side, same base, same task stream, same seeds
 *   4. eval      both on the generated seen and unseen splits (identical games and env seeds)
 *   5. report    `<out>/report.html`, `<out>/summary.json`, and a three-line verdict
 *
 * Sizes come from the experiment presets `configs/experiments/demo.json` (about 15 minutes on two
 * cores) and `demo-quick.json` (`--quick`, well under 3 minutes; it exercises every stage and
 * measures next to nothing). The verdict's interval: with three or more training seeds, a
 * Student-t interval over seeds of the paired SEED − GRPO difference; with fewer, a paired
 * stratified bootstrap over the evaluation games (both methods play the same games), which
 * covers evaluation noise but not seed-to-seed variance. The verdict says which.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Progress } from "../core/progress.ts";
import { deriveSeed } from "../core/rng.ts";
import { ensureBase } from "../train/pretrain/base.ts";
import { pairedBootstrapDifference, pairedDifference } from "./aggregate.ts";
import type { Estimate } from "./breakdown.ts";
import { executeRun, planExperiment, writeExperimentManifest } from "./experiment.ts";
import { experimentSummary, readExperiment, writeExperimentResults, type ArmResults, type ExperimentData } from "./experiment-results.ts";
import { readExperimentSpec } from "./experiment-spec.ts";
import { stageReports, writeReport } from "./report.ts";
import type { EvalRecord } from "./run-data.ts";
import { benchmarkTitle, formatEstimate } from "./tables.ts";

/** Options of {@link runDemo}. */
export type DemoOptions = {
  /** Use `demo-quick` (minutes → seconds). @default false */
  readonly quick?: boolean;
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

/** One split's SEED − GRPO comparison. */
export type Comparison = {
  readonly split: string;
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
export function compareArms(a: ArmResults, b: ArmResults, split: string, bootstrapSeed = 0): Comparison | null {
  const ea = a.evals[split], eb = b.evals[split];
  if (ea === undefined || eb === undefined) return null;
  const metric = ea.headline;
  const shared = a.seeds.filter((s) => b.seeds.includes(s));
  const recA = (s: number) => a.runs.find((r) => r.config?.run.seed === s)?.evals[split];
  const recB = (s: number) => b.runs.find((r) => r.config?.run.seed === s)?.evals[split];
  if (shared.length >= 3) {
    const d = pairedDifference(shared.map((s) => recA(s)?.metrics[metric]?.value ?? Number.NaN), shared.map((s) => recB(s)?.metrics[metric]?.value ?? Number.NaN));
    return { split, metric, seed: ea.metrics[metric], grpo: eb.metrics[metric], difference: d, intervalOver: `Student-t over ${shared.length} training seeds (paired)` };
  }
  // Pool the shared seeds' games: each (seed, game) pair is one paired observation.
  const xa: number[] = [], xb: number[] = [], groups: string[] = [];
  for (const s of shared) {
    const ra = recA(s) as (EvalRecord & { outcomes?: number[]; task_ids?: string[]; task_groups?: string[] }) | undefined;
    const rb = recB(s) as (EvalRecord & { outcomes?: number[]; task_ids?: string[] }) | undefined;
    if (!ra?.outcomes || !rb?.outcomes || JSON.stringify(ra.task_ids) !== JSON.stringify(rb.task_ids)) continue;
    xa.push(...ra.outcomes);
    xb.push(...rb.outcomes);
    groups.push(...(ra.task_groups ?? ra.outcomes.map(() => "all")));
  }
  const d = pairedBootstrapDifference(xa, xb, groups, deriveSeed(bootstrapSeed, "demo-verdict", split));
  const games = shared.length > 0 ? xa.length / shared.length : 0;
  return {
    split, metric, seed: ea.metrics[metric], grpo: eb.metrics[metric], difference: d,
    intervalOver: `paired bootstrap over the ${games} evaluation games${shared.length > 1 ? ` of ${shared.length} seeds` : ""} (${shared.length} training seed${shared.length === 1 ? "" : "s"}: seed-to-seed variance not included)`,
  };
}

/** The three verdict lines from the comparisons. */
export function verdictLines(comparisons: readonly Comparison[], data: ExperimentData): [string, string, string] {
  const line = (c: Comparison | undefined, split: string): string => {
    if (c === undefined) return `${split}: not evaluated`;
    const games = data.arms[0]?.runs[0]?.evals[c.split]?.episodes ?? "?";
    return `${benchmarkTitle(`alfworld/${c.split}`)} (${games} games, ${c.metric === "All" ? "macro success" : c.metric} %): SEED ${formatEstimate(c.seed)} vs GRPO ${formatEstimate(c.grpo)}; SEED − GRPO = ${signed(c.difference.value)} pts [${signed(c.difference.low)}, ${signed(c.difference.high)}]`;
  };
  const seen = comparisons.find((c) => c.split === "valid_seen"), unseen = comparisons.find((c) => c.split === "valid_unseen");
  const calls = comparisons.map((c) => {
    const name = c.split === "valid_seen" ? "seen" : c.split === "valid_unseen" ? "unseen" : c.split;
    if (!Number.isFinite(c.difference.low)) return `${name}: no interval`;
    if (c.difference.low === 0 && c.difference.high === 0) return `identical outcomes on ${name} (every game ended the same for both)`;
    if (c.difference.low > 0) return `SEED better on ${name}`;
    if (c.difference.high < 0) return `GRPO better on ${name}`;
    return `no difference resolved on ${name}`;
  });
  const over = comparisons[0]?.intervalOver ?? "";
  return [line(seen, "valid_seen"), line(unseen, "valid_unseen"), `Verdict: ${calls.join("; ")} (95% intervals; ${over}).`];
}

/**
 * Run the demo: stages, both methods, evaluation, report. Resumable: a second call with the same
 * `out` reuses finished stages, runs and evaluations.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const t0 = performance.now();
  const out = resolve(options.out);
  const log = options.log ?? ((l: string) => process.stderr.write(l + "\n"));
  const spec = readExperimentSpec(options.quick ? "demo-quick" : "demo");
  const cacheDir = resolve(options.cacheDir ?? join(out, "cache"));
  const expOptions = { out, cacheDir, quiet: options.quiet ?? false, log, ...(options.seeds ? { seeds: options.seeds } : {}) };
  const plans = planExperiment(spec, expOptions);
  writeExperimentManifest(spec, expOptions, plans);
  const steps = 2 + plans.length + 1;
  const bar = new Progress("seed demo", steps, { silent: options.quiet ?? false });
  log(`[demo] ${spec.summary}`);
  log(`[demo] Stage 0 (base agent) and Stage 1 (hindsight-skill SFT) -> ${cacheDir}`);
  const withSft = plans.find((p) => p.config?.policy.sft);
  const withoutSft = plans.find((p) => p.config && !p.config.policy.sft);
  if (withoutSft?.config) await ensureBase(withoutSft.config, { cacheDir, quiet: options.quiet ?? false });
  bar.tick(1, "stage 0 done");
  if (withSft?.config) await ensureBase(withSft.config, { cacheDir, quiet: options.quiet ?? false });
  bar.tick(1, "stage 1 done");
  for (const plan of plans) {
    log(`[demo] ${plan.arm.name}, seed ${plan.seed}: train ${plan.config?.run.updates ?? 0} updates, then evaluate on ${spec.eval.splits.join(" and ")}`);
    await executeRun(spec, plan, expOptions);
    bar.tick(1, `${plan.arm.name} s${plan.seed} done`);
  }
  const data = readExperiment(out);
  writeExperimentResults(data);
  const seedArm = data.arms.find((a) => a.preset === "seed"), grpoArm = data.arms.find((a) => a.preset === "grpo");
  const comparisons = seedArm && grpoArm ? spec.eval.splits.map((s) => compareArms(seedArm, grpoArm, s)).filter((c): c is Comparison => c !== null) : [];
  const verdict = verdictLines(comparisons, data);
  const report = writeReport(out, { verdict: verdict.join("\n"), title: `seed demo${options.quick ? " --quick" : ""}: SEED vs GRPO on generated ALFWorld` });
  bar.tick(1, "report written");
  bar.done();
  const seconds = (performance.now() - t0) / 1000;
  const stages = seedArm?.runs[0] ? stageReports(seedArm.runs[0]) : { stage0: null, stage1: null };
  const summary = {
    demo: options.quick ? "quick" : "full",
    experiment: spec.name,
    seconds,
    report,
    verdict,
    comparisons: comparisons.map((c) => ({ split: c.split, metric: c.metric, seed: c.seed, grpo: c.grpo, difference: c.difference, interval_over: c.intervalOver })),
    ...experimentSummary(data),
    stages: {
      stage0: stages.stage0 && { successNoHint: stages.stage0["successNoHint"], successCorrectHint: stages.stage0["successCorrectHint"], logprobShiftCorrectVsMisleading: stages.stage0["logprobShiftCorrectVsMisleading"], seconds: stages.stage0["seconds"] },
      stage1: stages.stage1 && { acceptanceRate: stages.stage1["acceptanceRate"], policySkillValidRate: stages.stage1["policySkillValidRate"], seconds: stages.stage1["seconds"] },
    },
  };
  const summaryPath = join(out, "summary.json");
  writeFileSync(summaryPath, JSON.stringify(summary, null, 2) + "\n");
  return { report, summaryPath, verdict, comparisons, seconds };
}
