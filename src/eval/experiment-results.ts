/**
 * Results of an experiment folder, derived from its run directories only: per arm, the
 * evaluations merged over seeds (mean and t-interval), learning curves averaged over seeds,
 * compute accounting (seconds per stage per update and the wall-clock ratio of each arm to a
 * reference arm, GRPO by default), tie rates, and the gate-value analyses. `results.json` and
 * `results.md` are written from this; the HTML report reads the same object.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { mean } from "../math/stats.ts";
import { aggregate, clampEstimate, pairedDifference, seedEstimate, type Aggregate } from "./aggregate.ts";
import type { Breakdown, Estimate } from "./breakdown.ts";
import { armSlug } from "./experiment-spec.ts";
import type { GateValueReport } from "./gate-value.ts";
import { gameOutcomes, readRunDir, type EvalRecord, type RunData } from "./run-data.ts";
import { powerStatement, type PowerStatement } from "./power.ts";
import { columnRules, pairedSeedGameBootstrap, unionEstimate } from "./seed-game-bootstrap.ts";
import { deriveSeed } from "../core/rng.ts";
import { isRunDir, type MetricsLine } from "../run/run-dir.ts";
import { ablationTable, benchmarkTitle, fixed, formatEstimate, formatPlain, markdownTable, resultsTable } from "./tables.ts";

/** One arm's runs and merged results. */
export type ArmResults = {
  readonly name: string;
  readonly slug: string;
  readonly preset: string;
  readonly runs: readonly RunData[];
  readonly seeds: readonly number[];
  /** Why runs of this arm were skipped, if any. */
  readonly skipped: readonly string[];
  /** Evaluations merged over seeds, by split. */
  readonly evals: Readonly<Record<string, Aggregate>>;
  /** Mean seconds per update of each stage (over every update of every seed), and `total`. */
  readonly secondsPerUpdate: Readonly<Record<string, number>>;
  /** Mean tie rate over updates, merged over seeds. */
  readonly tieRate: Estimate;
  readonly gateValue: readonly GateValueReport[];
};

/** The whole experiment. */
export type ExperimentData = {
  readonly dir: string;
  readonly name: string;
  readonly summary: string;
  readonly question: string;
  readonly table: "results" | "ablation";
  readonly splits: readonly string[];
  readonly arms: readonly ArmResults[];
  readonly manifest: Record<string, unknown> | null;
};

function breakdownOf(r: EvalRecord): Breakdown {
  return { env: r.env, split: r.split, episodes: r.episodes, columns: r.columns, headline: r.headline, metrics: r.metrics, counts: r.counts };
}

/** Seconds per update of each stage over some runs (`time/<stage>_s` keys), and their total. */
export function stageSeconds(runs: readonly RunData[]): Record<string, number> {
  const lines = runs.flatMap((r) => r.metrics);
  const out: Record<string, number> = {};
  const keys = new Set(lines.flatMap((l) => Object.keys(l).filter((k) => /^time\/.+_s$/.test(k))));
  for (const k of keys) out[k.slice(5, -2)] = mean(lines.map((l) => (typeof l[k] === "number" ? (l[k] as number) : 0)));
  out["total"] = mean(lines.map((l) => totalSeconds(l)));
  if (lines.length === 0) return {};
  return out;
}

/** Seconds of one update: `seconds.total` when present, else the sum of `time/*_s`. */
export function totalSeconds(l: MetricsLine): number {
  const s = l["seconds"] as Record<string, number> | undefined;
  if (s !== undefined && typeof s["total"] === "number") return s["total"];
  return Object.entries(l).filter(([k, v]) => /^time\/.+_s$/.test(k) && typeof v === "number").reduce((a, [, v]) => a + (v as number), 0);
}

function readGateValue(run: RunData): GateValueReport | null {
  const p = join(run.dir, "analysis", "gate-value.json");
  return existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as GateValueReport) : null;
}

/** Run directories under `dir` (`runs/<arm>/s<seed>`, or any folder up to three levels down). */
export function findRunDirs(dir: string, depth = 3): string[] {
  if (isRunDir(dir)) return [dir];
  if (depth === 0 || !existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir).sort().flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() && n !== "cache" && n !== "checkpoints" ? findRunDirs(p, depth - 1) : [];
  });
}

/** Read an experiment folder (its `experiment.json` when present; otherwise arms are run folders' parents). */
export function readExperiment(dir: string): ExperimentData {
  const abs = resolve(dir);
  const manifestPath = join(abs, "experiment.json");
  const manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>) : null;
  const runDirs = findRunDirs(abs);
  if (runDirs.length === 0 && manifest === null) throw new UsageError(`${dir} holds no run directory and no experiment.json`);
  const single = isRunDir(abs) ? readRunDir(abs).config?.method.name ?? basename(abs) : null;
  const armList = single !== null ? [{ name: single, preset: single, dir: basename(resolve(abs, "..")) }]
    : (manifest?.["arms"] as { name: string; preset: string; dir: string }[] | undefined) ??
      [...new Set(runDirs.map((r) => basename(resolve(r, ".."))))].map((d) => ({ name: d, preset: "", dir: d }));
  const skippedRuns = (manifest?.["runs"] as { arm: string; seed: number; skipped: string | null }[] | undefined) ?? [];
  const arms: ArmResults[] = armList.map((a) => {
    const slug = a.dir ?? armSlug(a.name);
    const runs = runDirs.filter((r) => single !== null || basename(resolve(r, "..")) === slug).map((r) => readRunDir(r));
    const seeds = runs.map((r) => r.config?.run.seed ?? Number.NaN);
    const splits = [...new Set(runs.flatMap((r) => Object.keys(r.evals)))];
    const evals: Record<string, Aggregate> = {};
    for (const s of splits) {
      const recs = runs.map((r) => r.evals[s]).filter((e): e is EvalRecord => e !== undefined);
      if (recs.length > 0) evals[s] = aggregate(recs.map(breakdownOf), recs.map(gameOutcomes));
    }
    const ties = runs.filter((r) => r.metrics.length > 0).map((r) => mean(r.metrics.map((l) => Number(l["tie_rate"] ?? Number.NaN))));
    return {
      name: a.name, slug, preset: a.preset || (runs[0]?.config?.method.name ?? ""), runs, seeds,
      skipped: [...new Set(skippedRuns.filter((s) => s.arm === a.name && s.skipped !== null).map((s) => s.skipped!))],
      evals, secondsPerUpdate: stageSeconds(runs), tieRate: clampEstimate(seedEstimate(ties), 0, 1),
      gateValue: runs.map(readGateValue).filter((g): g is GateValueReport => g !== null),
    };
  });
  const splits = (manifest?.["eval"] as { splits?: string[] } | undefined)?.splits ?? [...new Set(arms.flatMap((a) => Object.keys(a.evals)))];
  return {
    dir: abs, name: String(manifest?.["name"] ?? basename(abs)), summary: String(manifest?.["summary"] ?? ""), question: String(manifest?.["question"] ?? ""),
    table: manifest?.["table"] === "ablation" ? "ablation" : "results", splits, arms, manifest,
  };
}

/** Key of a result: `env/split`. */
function key(a: Aggregate): string {
  return `${a.env}/${a.split}`;
}

/** The reference arm of compute ratios: the first GRPO arm, else none. */
export function referenceArm(data: ExperimentData): ArmResults | undefined {
  return data.arms.find((a) => a.preset === "grpo" && a.runs.length > 0);
}

/** A paired difference of two arms on one split: the estimate, its per-seed spread and what the design resolves. */
export type ArmDifference = Estimate & { readonly sd: number; readonly seeds: readonly number[]; readonly power: PowerStatement };

/**
 * Paired difference of two arms on a split (the headline column unless `column` names another),
 * over the seeds both have: the t-interval
 * of the per-seed differences, widened to the paired seed-and-game bootstrap when both arms'
 * records hold per-game outcomes on the same games, with the design's power statement.
 */
export function armDifference(a: ArmResults, b: ArmResults, split: string, column?: string): ArmDifference | null {
  const ea = a.evals[split], eb = b.evals[split];
  if (ea === undefined || eb === undefined) return null;
  const col = column ?? ea.headline;
  const shared = a.seeds.filter((s) => b.seeds.includes(s));
  const rec = (arm: ArmResults, s: number) => arm.runs.find((r) => r.config?.run.seed === s)?.evals[split];
  const va = shared.map((s) => rec(a, s)?.metrics[col]?.value ?? Number.NaN);
  const vb = shared.map((s) => rec(b, s)?.metrics[col]?.value ?? Number.NaN);
  const t = pairedDifference(va, vb);
  const ga = shared.map((s) => { const r = rec(a, s); return r ? gameOutcomes(r) : undefined; });
  const gb = shared.map((s) => { const r = rec(b, s); return r ? gameOutcomes(r) : undefined; });
  const paired = shared.length > 1 && ga.every((g, i) => g !== undefined && gb[i] !== undefined && g.taskIds !== undefined && JSON.stringify(g.taskIds) === JSON.stringify(gb[i]!.taskIds));
  const rule = columnRules(ea.env, ea.columns, col)[col];
  const boot = paired && rule !== undefined ? pairedSeedGameBootstrap(ga.map((g) => g!), gb.map((g) => g!), rule, deriveSeed(0, "arm-difference", a.name, b.name, split)) : null;
  const merged = boot === null ? t : unionEstimate(t, boot);
  const floor = boot === null ? 0 : (boot.high - boot.low) / 2;
  return { ...merged, sd: t.sd, seeds: shared, power: powerStatement(shared.length, t.sd, floor) };
}

/** The machine-readable results (`results.json`, and the demo's `summary.json` core). */
export function experimentSummary(data: ExperimentData): Record<string, unknown> {
  const ref = referenceArm(data);
  return {
    experiment: data.name,
    question: data.question,
    methods: data.arms.map((a) => ({
      name: a.name, preset: a.preset, seeds: a.seeds, skipped: a.skipped,
      metrics: Object.fromEntries(Object.entries(a.evals).map(([s, agg]) => [s, {
        seeds: agg.seeds, headline: agg.headline,
        values: Object.fromEntries(Object.entries(agg.metrics).map(([k, e]) => [k, { mean: e.value, low: e.low, high: e.high, n: e.n, interval: e.interval }])),
        per_seed: agg.perSeed,
      }])),
      seconds_per_update: a.secondsPerUpdate,
      wallclock_ratio_vs_grpo: ref !== undefined && ref !== a && a.secondsPerUpdate["total"] !== undefined && ref.secondsPerUpdate["total"] ? a.secondsPerUpdate["total"] / ref.secondsPerUpdate["total"] : null,
      tie_rate: a.tieRate,
      gate_value: a.gateValue.map((g) => ({ gateVsReturn: g.gateVsReturn, gateVsAdvantage: g.gateVsAdvantage, meanGate: g.meanGate, actions: g.actions, trajectories: g.trajectories })),
    })),
    differences: armDifferences(data).map(({ split, against, difference: d }) => ({
      split, against, mean: d.value, low: d.low, high: d.high, interval: d.interval, seeds: d.seeds,
      sd_over_seeds: d.sd, resolvable: d.power.resolvable, detectable_80: d.power.detectable80,
    })),
  };
}

/** The markdown results: Table 1 or Table 2 per split, compute, tie rates, gate-value. */
export function experimentMarkdown(data: ExperimentData): string {
  const parts: string[] = [`# ${data.name}`, "", data.summary, "", data.question ? `Question: ${data.question}` : "", ""];
  for (const split of data.splits) {
    const present = data.arms.map((a) => a.evals[split]).find((x) => x !== undefined);
    if (present === undefined) continue;
    const k = key(present);
    parts.push(`## ${benchmarkTitle(k)}`, "");
    parts.push(data.table === "ablation"
      ? ablationTable(data.arms.map((a) => ({ variant: a.name, result: a.evals[split] })))
      : resultsTable(data.arms.map((a) => ({ method: a.name, results: { [k]: a.evals[split] } })), [k]), "");
  }
  parts.push(...differencesMarkdown(data));
  const ref = referenceArm(data);
  const stages = [...new Set(data.arms.flatMap((a) => Object.keys(a.secondsPerUpdate)))].filter((s) => s !== "total");
  if (stages.length > 0) {
    parts.push("## Compute (seconds per update, mean over updates and seeds)", "");
    const header = ["Method", ...stages, "total", ...(ref ? [`× ${ref.name}`] : [])];
    const body = data.arms.filter((a) => a.secondsPerUpdate["total"] !== undefined).map((a) => [
      a.name, ...stages.map((s) => (a.secondsPerUpdate[s] ?? 0).toFixed(2)), (a.secondsPerUpdate["total"] ?? 0).toFixed(2),
      ...(ref ? [ref.secondsPerUpdate["total"] ? (a.secondsPerUpdate["total"]! / ref.secondsPerUpdate["total"]).toFixed(2) : "–"] : []),
    ]);
    parts.push(markdownTable(header, body), "");
    parts.push("## Tie rate (share of groups whose N outcomes are all equal, mean over updates)", "");
    parts.push(markdownTable(["Method", "tie rate"], data.arms.filter((a) => a.runs.some((r) => r.metrics.length > 0)).map((a) => [a.name, formatEstimate(a.tieRate)])), "");
  }
  const gv = data.arms.filter((a) => a.gateValue.length > 0);
  if (gv.length > 0) {
    parts.push("## Gates vs action value (Eq. 8), held-out rollouts", "");
    const r = (e: Estimate) => formatPlain(e);
    const body = gv.flatMap((a) => a.gateValue.map((g, i) => [
      `${a.name} s${a.seeds[i] ?? "?"}`, String(g.actions), r(g.gateVsReturn.pearson), r(g.gateVsReturn.spearman), r(g.gateVsAdvantage.pearson), r(g.gateVsAdvantage.spearman),
      `${fixed(g.meanGate.success)} / ${fixed(g.meanGate.failure)}`,
    ]));
    parts.push(markdownTable(["Run", "actions", "Pearson(g, R)", "Spearman(g, R)", "Pearson(g, R−mean)", "Spearman(g, R−mean)", "mean gate success / failure"], body), "");
    parts.push(gv[0]!.gateValue[0]!.caveat, "");
  }
  const skipped = data.arms.filter((a) => a.skipped.length > 0);
  if (skipped.length > 0) parts.push("## Not run", "", ...skipped.map((a) => `- ${a.name}: ${a.skipped.join("; ")}`), "");
  return parts.join("\n");
}

/** The arm every other is compared with: the first SEED arm that has runs. */
function focusArm(data: ExperimentData): ArmResults | undefined {
  return data.arms.find((a) => a.preset === "seed" && a.runs.length > 0);
}

/** SEED − every other arm on each split, with the intervals' source and what the design resolves. */
export function armDifferences(data: ExperimentData): { split: string; against: string; difference: ArmDifference }[] {
  const focus = focusArm(data);
  if (focus === undefined) return [];
  return data.splits.flatMap((split) => data.arms.filter((a) => a !== focus && a.runs.length > 0).flatMap((b) => {
    const d = armDifference(focus, b, split);
    return d === null || d.seeds.length < 2 ? [] : [{ split, against: b.name, difference: d }];
  }));
}

function differencesMarkdown(data: ExperimentData): string[] {
  const rows = armDifferences(data);
  const focus = focusArm(data);
  if (rows.length === 0 || focus === undefined) return [];
  const pts = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}` : "–");
  const call = (d: Estimate) => (!Number.isFinite(d.low) ? "no interval" : d.low > 0 ? `${focus.name} better` : d.high < 0 ? `${focus.name} worse` : "not resolved");
  const body = rows.map(({ split, against, difference: d }) => {
    const present = data.arms.map((a) => a.evals[split]).find((x) => x !== undefined);
    return [present ? benchmarkTitle(key(present)) : split, against, `${pts(d.value)} [${pts(d.low)}, ${pts(d.high)}]`, String(d.seeds.length), call(d), `±${(100 * d.power.resolvable).toFixed(1)}`, (100 * d.power.detectable80).toFixed(1)];
  });
  return [
    `## ${focus.name} − each arm (headline column, points)`, "",
    markdownTable(["Split", "vs", `${focus.name} − arm [95%]`, "seeds", "call", "resolves beyond", "80%-power effect"], body), "",
    `Paired over shared training seeds, each seed with its own evaluation draw on the same games. Interval: the union of the Student-t interval of the per-seed differences and a paired bootstrap over seeds and the games within each task type. "Resolves beyond": the half-width of that interval, the smallest observed difference this design calls; "80%-power effect": the true difference it would detect 80% of the time at the 5% level (two-sided paired t; with the bootstrap's width as a floor).`, "",
  ];
}

/** Write `results.json` and `results.md` into the experiment folder. */
export function writeExperimentResults(data: ExperimentData): { json: string; md: string } {
  const json = join(data.dir, "results.json"), md = join(data.dir, "results.md");
  writeFileSync(json, JSON.stringify(experimentSummary(data), null, 2) + "\n");
  writeFileSync(md, experimentMarkdown(data) + "\n");
  return { json, md };
}
