/**
 * `seed report <run-or-experiment-dir>`: one self-contained HTML page rendered from run
 * directories only (the report collects nothing of its own). It shows the result
 * tables (Table 1 or the ablation table, with 95% intervals), learning curves per update averaged
 * over seeds (success, episode length, tie rate, gate statistics, skill validity, reward),
 * compute per stage and the wall-clock ratio to GRPO, the gate-value analysis when present, the
 * Stage-0/1 reports of the starting checkpoint, and a few sample trajectories with the skill
 * written about them and each token's gate as a colour over the response text.
 *
 * Every plot on the page has data: a curve whose metric no run logged is left out, not drawn
 * empty. Inline SVG and CSS only; no script, no network.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { loadTokenizer } from "../model/tokenizer/hf-json.ts";
import type { Tokenizer } from "../policy/policy.ts";
import { mean, quantile } from "../math/stats.ts";
import { baseDirs } from "../train/pretrain/base.ts";
import type { SeedConfig } from "../config/config.ts";
import { describeMethod, planMethod } from "../config/method.ts";
import { benchmarkTitle, fixed, formatEstimate, formatPlain, intervalNote } from "./tables.ts";
import { readExperiment, referenceArm, totalSeconds, type ArmResults, type ExperimentData } from "./experiment-results.ts";
import { esc, gateScale, htmlTable, page, trajectoryHtml } from "./report-parts.ts";
import { hasMetric, readRunDir, type RunData } from "./run-data.ts";
import { isRunDir } from "../run/run-dir.ts";
import { readTrainerState } from "../run/checkpoint.ts";
import { readJsonFile } from "../core/fs.ts";
import { linePlot, PALETTE, type Series } from "./svg-plot.ts";

/** Curves the report draws, when any run logged them: metrics key, title, y label, fixed [0, 1]. */
export const CURVES: readonly { key: string; title: string; y: string; unit?: boolean }[] = [
  { key: "success_rate", title: "Training success per update", y: "success rate", unit: true },
  { key: "episode/turns_mean", title: "Episode length per update", y: "turns" },
  { key: "tie_rate", title: "Tie rate of groups per update", y: "tied groups", unit: true },
  { key: "gate_mean", title: "Gate mean per update", y: "mean gate", unit: true },
  { key: "opd/gate_std", title: "Gate std per update", y: "gate std" },
  { key: "opd/active_frac", title: "Active gates (g > 0.5) per update", y: "share", unit: true },
  { key: "skill_valid_rate", title: "Skill validity per update", y: "valid skills", unit: true },
  { key: "reward/mean", title: "Mean return per update", y: "return" },
  { key: "episode/valid_frac", title: "Valid actions per update", y: "share", unit: true },
];

/** Options of {@link renderReport}. */
export type ReportOptions = {
  /** A verdict block shown under the title (the demo's three lines). */
  readonly verdict?: string;
  /** Sample trajectories shown. @default 4 */
  readonly samples?: number;
  /** A title instead of the experiment's name. */
  readonly title?: string;
};

/** Mean over seeds of a metric per update, with the min/max over seeds as the band. */
export function armCurve(arm: ArmResults, key: string, color: string): Series | null {
  const runs = arm.runs.filter((r) => hasMetric(r.metrics, key));
  if (runs.length === 0) return null;
  const updates = [...new Set(runs.flatMap((r) => r.metrics.map((l) => l.update)))].sort((a, b) => a - b);
  const at = (r: RunData, u: number) => {
    const l = r.metrics.find((m) => m.update === u);
    return l !== undefined && typeof l[key] === "number" ? (l[key] as number) : Number.NaN;
  };
  const vals = updates.map((u) => runs.map((r) => at(r, u)).filter(Number.isFinite));
  return {
    name: runs.length > 1 ? `${arm.name} (${runs.length} seeds)` : arm.name,
    x: updates, y: vals.map((v) => (v.length ? mean(v) : Number.NaN)), color,
    ...(runs.length > 1 ? { low: vals.map((v) => (v.length ? Math.min(...v) : Number.NaN)), high: vals.map((v) => (v.length ? Math.max(...v) : Number.NaN)) } : {}),
  };
}

/** Which task panel the runs of a split were evaluated on: one hash, or a warning that they differ. */
export function panelNote(data: ExperimentData, split: string): string {
  const hashes = new Set(data.arms.flatMap((a) => a.runs.flatMap((r) => {
    const e = r.evals[split];
    return e === undefined ? [] : [e.panel?.hash ?? "not recorded"];
  })));
  if (hashes.size === 0) return "";
  if (hashes.size === 1) return `Task panel ${[...hashes][0]}.`;
  return `Task panels differ between runs (${[...hashes].join(", ")}): these numbers were not measured on the same tasks.`;
}

function resultsSection(data: ExperimentData): string {
  const out: string[] = [];
  for (const split of data.splits) {
    const present = data.arms.map((a) => a.evals[split]).find((x) => x !== undefined);
    if (present === undefined) continue;
    const title = benchmarkTitle(`${present.env}/${split}`);
    if (data.table === "ablation") {
      const ref = data.arms[0]?.evals[split];
      const col = ref?.headline ?? present.headline;
      const rows = data.arms.map((a, i) => {
        const e = a.evals[split]?.metrics[col];
        const r0 = ref?.metrics[col]?.value;
        const d = i === 0 || e === undefined || !Number.isFinite(e.value) || typeof r0 !== "number" || !Number.isFinite(r0) ? "" : `${e.value >= r0 ? "+" : ""}${(100 * (e.value - r0)).toFixed(1)}`;
        return [a.name, formatEstimate(e), d];
      });
      out.push(`<h3>${esc(title)} — ablations (${esc(col)}, %)</h3>${htmlTable(["Variant", col, "Δ vs full"], rows, "results")}`);
    } else {
      const cols = [...new Set(data.arms.flatMap((a) => a.evals[split]?.columns ?? []))];
      const rows = data.arms.map((a) => [a.name, ...cols.map((c) => formatEstimate(a.evals[split]?.metrics[c])), String(a.evals[split]?.seeds ?? 0)]);
      out.push(`<h3>${esc(title)} (%)</h3>${htmlTable(["Method", ...cols, "seeds"], rows, "results")}`);
    }
    // Per-run counts: the aggregated estimate's n counts seeds, not episodes.
    const counts = Object.entries(data.arms.find((a) => a.evals[split])?.runs[0]?.evals[split]?.counts ?? {});
    const episodes = counts.length > 0 ? counts.reduce((s, [, v]) => s + Number(v), 0) : "?";
    out.push(`<p class="note">${esc(intervalNote(data.arms.map((a) => a.evals[split])))} Episodes per seed: ${episodes} (${counts.map(([k, v]) => `${k} ${v}`).join(", ")}). ${esc(panelNote(data, split))}</p>`);
  }
  return out.length ? `<h2>Results</h2>${out.join("")}` : `<h2>Results</h2><p class="note">No evaluation records yet (eval/*.json in the run directories).</p>`;
}

function curvesSection(data: ExperimentData): string {
  const plots: string[] = [];
  for (const c of CURVES) {
    const series = data.arms.map((a, i) => armCurve(a, c.key, PALETTE[i % PALETTE.length]!)).filter((s): s is Series => s !== null);
    if (series.length === 0) continue;
    plots.push(linePlot(series, { id: c.key, title: c.title, xLabel: "update", yLabel: c.y, ...(c.unit ? { yMin: 0, yMax: 1 } : { zeroBased: true }) }));
  }
  const timing = data.arms.map((a, i): Series | null => {
    const runs = a.runs.filter((r) => r.metrics.length > 0);
    if (runs.length === 0) return null;
    const updates = [...new Set(runs.flatMap((r) => r.metrics.map((l) => l.update)))].sort((x, y) => x - y);
    return { name: a.name, x: updates, y: updates.map((u) => mean(runs.flatMap((r) => r.metrics.filter((l) => l.update === u).map(totalSeconds)))), color: PALETTE[i % PALETTE.length]! };
  }).filter((s): s is Series => s !== null);
  if (timing.length > 0) plots.push(linePlot(timing, { id: "seconds", title: "Wall-clock seconds per update", xLabel: "update", yLabel: "seconds", zeroBased: true }));
  if (plots.length === 0) return "";
  const band = data.arms.some((a) => a.runs.length > 1) ? " Shaded: min–max over seeds." : "";
  return `<h2>Training curves</h2><p class="note">Per update, from metrics.jsonl; lines are means over seeds.${band}</p><div class="plots">${plots.join("")}</div>`;
}

function computeSection(data: ExperimentData): string {
  const arms = data.arms.filter((a) => a.secondsPerUpdate["total"] !== undefined);
  if (arms.length === 0) return "";
  const stages = [...new Set(arms.flatMap((a) => Object.keys(a.secondsPerUpdate)))].filter((s) => s !== "total");
  const ref = referenceArm(data);
  const rows = arms.map((a) => [a.name, ...stages.map((s) => (a.secondsPerUpdate[s] ?? 0).toFixed(2)), a.secondsPerUpdate["total"]!.toFixed(2),
    ...(ref ? [ref.secondsPerUpdate["total"] ? (a.secondsPerUpdate["total"]! / ref.secondsPerUpdate["total"]).toFixed(2) : "–"] : []), formatEstimate(a.tieRate)]);
  // Per-update ratio to the reference arm, paired by seed and update.
  const ratioSeries: Series[] = ref === undefined ? [] : arms.filter((a) => a !== ref).map((a, i) => {
    const updates = [...new Set(a.runs.flatMap((r) => r.metrics.map((l) => l.update)))].sort((x, y) => x - y);
    const y = updates.map((u) => {
      const ratios = a.runs.flatMap((r) => {
        const mine = r.metrics.find((l) => l.update === u);
        const theirs = ref.runs.find((q) => q.config?.run.seed === r.config?.run.seed)?.metrics.find((l) => l.update === u);
        return mine && theirs && totalSeconds(theirs) > 0 ? [totalSeconds(mine) / totalSeconds(theirs)] : [];
      });
      return ratios.length ? mean(ratios) : Number.NaN;
    });
    return { name: `${a.name} / ${ref.name}`, x: updates, y, color: PALETTE[(data.arms.indexOf(a) >= 0 ? data.arms.indexOf(a) : i) % PALETTE.length]! };
  }).filter((s) => s.y.some(Number.isFinite));
  const ratioPlot = ratioSeries.length ? `<div class="plots">${linePlot(ratioSeries, { id: "wallclock-ratio", title: `Wall-clock ratio to ${ref!.name} per update`, xLabel: "update", yLabel: "ratio", zeroBased: true })}</div>` : "";
  return `<h2>Compute and tie rate</h2><p class="note">Seconds per update by stage (mean over updates and seeds); ratio = total / ${esc(ref?.name ?? "GRPO")}'s total; tie rate = share of groups with all N outcomes equal (no GRPO gradient), mean over updates.</p>` +
    htmlTable(["Method", ...stages, "total", ...(ref ? [`× ${ref.name}`] : []), "tie rate %"], rows) + ratioPlot;
}

function gateValueSection(data: ExperimentData): string {
  const arms = data.arms.filter((a) => a.gateValue.length > 0);
  if (arms.length === 0) return "";
  const f = (e: { value: number; low: number; high: number }) => formatPlain(e);
  const rows = arms.flatMap((a) => a.gateValue.map((g, i) => [`${a.name} s${a.seeds[i] ?? "?"}`, String(g.trajectories), String(g.actions), f(g.gateVsReturn.pearson), f(g.gateVsReturn.spearman), f(g.gateVsAdvantage.pearson), f(g.gateVsAdvantage.spearman), `${fixed(g.meanGate.success)} / ${fixed(g.meanGate.failure)}`]));
  // Binned view: mean return per gate quintile, per arm (all seeds pooled).
  const series: Series[] = arms.map((a, i) => {
    const pts = a.gateValue.flatMap((g) => g.points);
    const gates = pts.map((p) => p[0]);
    const edges = [0, 0.2, 0.4, 0.6, 0.8, 1].map((q) => quantile(gates, q));
    const x: number[] = [], y: number[] = [];
    for (let b = 0; b < 5; b++) {
      const inBin = pts.filter((p) => p[0] >= edges[b]! && (b === 4 ? p[0] <= edges[b + 1]! : p[0] < edges[b + 1]!));
      if (inBin.length === 0) continue;
      x.push(mean(inBin.map((p) => p[0])));
      y.push(mean(inBin.map((p) => p[1])));
    }
    return { name: a.name, x, y, color: PALETTE[i % PALETTE.length]! };
  }).filter((s) => s.x.length > 0);
  const plot = series.length > 0 ? `<div class="plots">${linePlot(series, { id: "gate-value", title: "Return by action-gate quintile (held-out)", xLabel: "mean gate of the action", yLabel: "episode return", zeroBased: true })}</div>` : "";
  return `<h2>Gates vs action value (Eq. 8)</h2><p class="note">${esc(arms[0]!.gateValue[0]!.caveat)} Brackets: cluster bootstrap over trajectories.</p>` +
    htmlTable(["Run", "trajectories", "actions", "Pearson(g, R)", "Spearman(g, R)", "Pearson(g, R − group mean)", "Spearman(g, R − group mean)", "mean gate succ / fail"], rows) + plot;
}

/** The Stage-0 and Stage-1 reports of a run's starting checkpoint (found through `trainer.json`'s `init`). */
export function stageReports(run: RunData): { stage0: Record<string, unknown> | null; stage1: Record<string, unknown> | null } {
  const none = { stage0: null, stage1: null };
  const last = run.checkpoints.at(-1);
  let init: string | undefined;
  if (last !== undefined) {
    const p = join(run.dir, "checkpoints", `update-${String(last).padStart(6, "0")}`, "trainer.json");
    // A garbled trainer.json is one clear error naming it (CheckpointError), never a stack trace.
    if (existsSync(p)) init = readTrainerState(dirname(p)).init;
  }
  const base = init === undefined ? null : dirname(init);
  const read = (p: string) => (existsSync(p) ? (readJsonFile(p) as Record<string, unknown>) : null);
  if (base === null) return none;
  const stage1 = read(join(base, "stage1.json"));
  let stage0 = read(join(base, "stage0.json"));
  // A run from a given Stage-0 base (policy.base) finds that base's report next to its model folder.
  const config = run.config as SeedConfig | null;
  const stage0Dir = config === null ? null : config.policy.base !== "" ? dirname(resolve(config.policy.base)) : baseDirs(config, dirname(base)).stage0;
  if (stage0 === null && stage0Dir !== null) stage0 = read(join(stage0Dir, "stage0.json"));
  return { stage0, stage1 };
}

function stagesSection(data: ExperimentData): string {
  const rows: string[][] = [];
  const seen = new Set<string>();
  for (const a of data.arms) {
    for (const r of a.runs) {
      const { stage0, stage1 } = stageReports(r);
      const n = (x: unknown, pct = false) => (typeof x === "number" ? (pct ? `${(100 * x).toFixed(1)}%` : x.toFixed(x >= 100 ? 0 : 2)) : "–");
      // One row per distinct base (arms and seeds share them).
      const fresh = (rep: Record<string, unknown> | null, tag: string) => {
        const key = `${tag}:${JSON.stringify(rep)}`;
        if (rep === null || seen.has(key)) return false;
        seen.add(key);
        return true;
      };
      if (fresh(stage0, "0") && stage0) rows.push([`Stage 0 (${a.name})`, `success ${n(stage0["successNoHint"], true)} plain, ${n(stage0["successCorrectHint"], true)} with correct hints; log-prob shift correct vs misleading ${n(stage0["logprobShiftCorrectVsMisleading"])}`, n(stage0["seconds"])]);
      if (fresh(stage1, "1") && stage1) rows.push([`Stage 1 (${a.name})`, `analyzer ${String(stage1["analyzer"])}, acceptance ${n(stage1["acceptanceRate"], true)}, SFT policy skill validity ${n(stage1["policySkillValidRate"], true)} (base ${n(stage1["baseSkillValidRate"], true)})`, n(stage1["seconds"])]);
    }
  }
  return rows.length ? `<h2>Stages 0 and 1</h2>${htmlTable(["Stage", "what it reported", "seconds"], rows)}` : "";
}

function samplesSection(data: ExperimentData, count: number): string {
  const withGates = data.arms.flatMap((a) => a.runs.flatMap((r) => r.samples.map((s) => ({ a, r, s })))).filter((x) => x.s.skillValid === 1 && x.s.gates.some((g) => g.length > 0));
  const pool = withGates.length > 0 ? withGates : data.arms.flatMap((a) => a.runs.flatMap((r) => r.samples.map((s) => ({ a, r, s }))));
  if (pool.length === 0) return "";
  const lastUpdate = Math.max(...pool.map((x) => x.s.update));
  const recent = pool.filter((x) => x.s.update === lastUpdate);
  const picked = [...recent.filter((x) => x.s.success).slice(0, Math.ceil(count / 2)), ...recent.filter((x) => !x.s.success)].slice(0, count);
  const toks = new Map<string, Tokenizer | null>();
  const tokenizerOf = (r: RunData) => {
    if (!toks.has(r.dir)) toks.set(r.dir, r.tokenizerPath === null ? null : loadTokenizer(r.tokenizerPath));
    return toks.get(r.dir)!;
  };
  const body = picked.map((x) => `<h3>${esc(x.a.name)} · ${esc(x.r.name)}</h3>${trajectoryHtml(x.s, tokenizerOf(x.r))}`).join("");
  return `<h2>Sample trajectories</h2><p class="note">From samples/ of the last update; each response token is coloured by its gate σ(β·(ℓ_T − ℓ_θ)): blue where the skill-conditioned teacher likes the token more than the student, red where less.</p>${gateScale()}${body}`;
}

/** The HTML of a report over an experiment (or a single run, as a one-arm experiment). */
export function renderReport(data: ExperimentData, options: ReportOptions = {}): string {
  const runs = data.arms.reduce((n, a) => n + a.runs.length, 0);
  const cfg = data.arms.find((a) => a.runs[0]?.config)?.runs[0]?.config ?? null;
  const env = cfg ? `${cfg.env.name}${cfg.env.data ? ` (${cfg.env.data})` : " (generated games)"}, ${cfg.run.updates} updates of ${cfg.rollout.tasksPerUpdate} tasks × ${cfg.rollout.groupSize}` : "";
  const head = `<h1>${esc(options.title ?? data.name)}</h1><p class="meta">${esc(data.summary)}${data.question ? ` — ${esc(data.question)}` : ""}</p>` +
    `<p class="meta">${runs} run(s): ${data.arms.map((a) => `${esc(a.name)} × ${a.runs.length}`).join(", ")}${env ? ` · ${esc(env)}` : ""}</p>` +
    (options.verdict ? `<div class="verdict">${esc(options.verdict)}</div>` : "");
  const skipped = data.arms.filter((a) => a.skipped.length > 0);
  const notRun = skipped.length ? `<h2>Not run</h2><ul>${skipped.map((a) => `<li>${esc(a.name)}: ${esc(a.skipped.join("; "))}</li>`).join("")}</ul>` : "";
  const body = [head, resultsSection(data), curvesSection(data), computeSection(data), gateValueSection(data), stagesSection(data), samplesSection(data, options.samples ?? 4), notRun].join("");
  return page(options.title ?? data.name, body);
}

/** Read `dir` (a run directory or an experiment folder) and render its report. */
export function reportFor(dir: string, options: ReportOptions = {}): string {
  const abs = resolve(dir);
  if (isRunDir(abs)) {
    const run = readRunDir(abs);
    const name = run.config?.method.name ?? run.name;
    const data: ExperimentData = {
      dir: abs, name: `${name} — ${run.name}`, summary: run.config ? describeMethod(planMethod(run.config)) : "", question: "", table: "results",
      splits: Object.keys(run.evals), manifest: null,
      arms: readExperiment(abs).arms,
    };
    return renderReport(data, options);
  }
  return renderReport(readExperiment(abs), options);
}

/** Write `<dir>/report.html` (or `out`) and return its path. */
export function writeReport(dir: string, options: ReportOptions & { out?: string } = {}): string {
  const out = options.out ?? join(resolve(dir), "report.html");
  writeFileSync(out, reportFor(dir, options));
  return out;
}

/** Whether a folder has anything a report can show. */
export function reportable(dir: string): boolean {
  return existsSync(dir) && (isRunDir(dir) || existsSync(join(dir, "experiment.json")) || readdirSync(dir).length > 0);
}
