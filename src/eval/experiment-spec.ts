/**
 * Experiment presets (`configs/experiments/<name>.json`): methods (arms) x seeds, what every arm
 * shares, how each run is evaluated, which analyses follow, and which table the results fill.
 * A file is plain data, checked strictly: unknown fields and wrong types are reported all at
 * once with their paths. Arms are method presets from `configs/` plus dotted overrides, so an
 * experiment never adds a code branch. Not here: running (`experiment.ts`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ConfigError, UsageError, type ConfigIssue } from "../core/errors.ts";
import { CONFIG_DIR } from "../config/presets.ts";

/** The folder of the shipped experiment presets. */
export const EXPERIMENT_DIR = join(CONFIG_DIR, "experiments");

/** Analyses that can follow the runs. */
export const ANALYSES = ["compute", "tie-rate", "gate-value", "gate-action"] as const;
/** One of {@link ANALYSES}. */
export type AnalysisName = (typeof ANALYSES)[number];

/** One method of an experiment. */
export type ArmSpec = {
  /** Label in tables and the run folder name (slugged). */
  readonly name: string;
  /** Method preset (`seed`, `grpo`, `sdar`, ...). */
  readonly preset: string;
  /** Dotted overrides of this arm, after the experiment's own. */
  readonly overrides: readonly string[];
};

/** How every run is evaluated. */
export type EvalSpec = {
  /**
   * Splits of the run's environment (`valid_seen`, `valid_unseen`, `test`, `all`); a split
   * written `real:<split>` is read from `realData` instead of the run's own world (a model
   * trained on generated games, evaluated on the real ALFWorld games).
   */
  readonly splits: readonly string[];
  /** Data root of `real:` splits. @default "../shared/data/alfworld" */
  readonly realData: string;
  /** Evaluate only the first N tasks per split; 0: the whole split (real ALFWorld: 140 / 134). */
  readonly count: number;
  /** `sampled` at `eval.temperature` of the run's config (the reference: 0.4), or `greedy`. */
  readonly decoding: "sampled" | "greedy";
};

/** A whole experiment preset. */
export type ExperimentSpec = {
  readonly name: string;
  /** One line: what it compares. */
  readonly summary: string;
  /** The question the paper leaves open that it answers (docs/RESULTS.md §5). */
  readonly question: string;
  /** Training seeds (at least 3 for a claim). */
  readonly seeds: readonly number[];
  /** Dotted overrides every arm gets (scale, environment). */
  readonly overrides: readonly string[];
  readonly arms: readonly ArmSpec[];
  readonly eval: EvalSpec;
  readonly analyses: readonly AnalysisName[];
  /** `results` (Table 1 layout) or `ablation` (Table 2: the first arm is the full method). */
  readonly table: "results" | "ablation";
  /** Where it was read from. */
  readonly path: string;
};

const FIELDS = ["name", "summary", "question", "seeds", "overrides", "arms", "eval", "analyses", "table"];

function strings(v: unknown, path: string, issues: ConfigIssue[]): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    issues.push({ path, message: "must be a list of strings" });
    return [];
  }
  return v as string[];
}

/** Check a parsed experiment object; every issue is reported at once. */
export function parseExperimentSpec(raw: unknown, path: string): ExperimentSpec {
  const issues: ConfigIssue[] = [];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ConfigError([{ path, message: "an experiment preset is a JSON object" }]);
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!FIELDS.includes(k)) issues.push({ path: `${path}: ${k}`, message: `unknown field (known: ${FIELDS.join(", ")})` });
  for (const k of ["name", "summary", "question"]) if (typeof r[k] !== "string" || r[k] === "") issues.push({ path: `${path}: ${k}`, message: "must be a non-empty string" });
  const seeds = r["seeds"] ?? [1, 2, 3];
  if (!Array.isArray(seeds) || seeds.length === 0 || !seeds.every((s) => Number.isInteger(s) && s >= 0)) issues.push({ path: `${path}: seeds`, message: "must be a non-empty list of non-negative integers" });
  const overrides = strings(r["overrides"], `${path}: overrides`, issues);
  const arms: ArmSpec[] = [];
  if (!Array.isArray(r["arms"]) || r["arms"].length === 0) issues.push({ path: `${path}: arms`, message: "must be a non-empty list of {name, preset, overrides}" });
  else {
    (r["arms"] as unknown[]).forEach((a, i) => {
      const where = `${path}: arms[${i}]`;
      if (typeof a !== "object" || a === null) return void issues.push({ path: where, message: "must be an object" });
      const arm = a as Record<string, unknown>;
      for (const k of Object.keys(arm)) if (!["name", "preset", "overrides"].includes(k)) issues.push({ path: `${where}.${k}`, message: "unknown field (name, preset, overrides)" });
      if (typeof arm["name"] !== "string" || arm["name"] === "") issues.push({ path: `${where}.name`, message: "must be a non-empty string" });
      if (typeof arm["preset"] !== "string" || arm["preset"] === "") issues.push({ path: `${where}.preset`, message: "must be a non-empty string" });
      arms.push({ name: String(arm["name"]), preset: String(arm["preset"]), overrides: strings(arm["overrides"], `${where}.overrides`, issues) });
    });
    const names = arms.map((a) => armSlug(a.name));
    names.forEach((n, i) => {
      if (names.indexOf(n) !== i) issues.push({ path: `${path}: arms[${i}].name`, message: `two arms share the folder name '${n}'` });
    });
  }
  const ev = (r["eval"] ?? {}) as Record<string, unknown>;
  if (typeof ev !== "object" || ev === null) issues.push({ path: `${path}: eval`, message: "must be an object" });
  for (const k of Object.keys(ev)) if (!["splits", "count", "decoding", "realData"].includes(k)) issues.push({ path: `${path}: eval.${k}`, message: "unknown field (splits, count, decoding, realData)" });
  const realData = ev["realData"] ?? "../shared/data/alfworld";
  if (typeof realData !== "string") issues.push({ path: `${path}: eval.realData`, message: "must be a string" });
  const splits = ev["splits"] === undefined ? ["valid_seen", "valid_unseen"] : strings(ev["splits"], `${path}: eval.splits`, issues);
  const count = ev["count"] ?? 0;
  if (!Number.isInteger(count) || (count as number) < 0) issues.push({ path: `${path}: eval.count`, message: "must be a non-negative integer" });
  const decoding = ev["decoding"] ?? "sampled";
  if (decoding !== "sampled" && decoding !== "greedy") issues.push({ path: `${path}: eval.decoding`, message: "must be sampled or greedy" });
  const analyses = strings(r["analyses"], `${path}: analyses`, issues);
  for (const a of analyses) if (!(ANALYSES as readonly string[]).includes(a)) issues.push({ path: `${path}: analyses`, message: `unknown analysis '${a}' (one of ${ANALYSES.join(", ")})` });
  const table = r["table"] ?? "results";
  if (table !== "results" && table !== "ablation") issues.push({ path: `${path}: table`, message: "must be results or ablation" });
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    name: r["name"] as string, summary: r["summary"] as string, question: r["question"] as string,
    seeds: seeds as number[], overrides, arms, eval: { splits, count: count as number, decoding: decoding as "sampled" | "greedy", realData: realData as string },
    analyses: analyses as AnalysisName[], table: table as "results" | "ablation", path,
  };
}

/** Read an experiment preset by name (from `configs/experiments/`) or by file path. */
export function readExperimentSpec(nameOrPath: string, dir: string = EXPERIMENT_DIR): ExperimentSpec {
  const path = nameOrPath.endsWith(".json") ? nameOrPath : join(dir, `${nameOrPath}.json`);
  if (!existsSync(path)) {
    const known = listExperimentNames(dir);
    throw new UsageError(`unknown experiment '${nameOrPath}'; presets: ${known.join(", ") || "(none)"}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError([{ path, message: `not valid JSON: ${(e as Error).message}` }]);
  }
  return parseExperimentSpec(raw, path);
}

/** Names of the shipped experiment presets. */
export function listExperimentNames(dir: string = EXPERIMENT_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => basename(f, ".json")).sort();
}

/** A folder-safe form of an arm name (`beta=5` → `beta-5`, `GRPO+OPSD` → `grpo-opsd`). */
export function armSlug(name: string): string {
  return name.toLowerCase().replace(/\*/g, "-star").replace(/[^a-z0-9.]+/g, "-").replace(/^-+|-+$/g, "") || "arm";
}
