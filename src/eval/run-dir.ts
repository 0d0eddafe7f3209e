/**
 * Reading a run directory as the trainer writes it (`train/trainer.ts`), plus the evaluation
 * records this layer adds to it:
 *
 *   config.json                        the resolved config
 *   metrics.jsonl                      one object per update (`update`, `success_rate`, `tie_rate`,
 *                                      `gate_mean`, slash metrics, `time/<stage>_s`)
 *   samples/update-XXXXXX.jsonl        a few trajectories with `skill`, `skillValid`, `gates`
 *   checkpoints/update-XXXXXX/policy/  the policy (its tokenizer aligns gates with text)
 *   eval/<split>.json                  written here: one benchmark evaluation of the newest
 *                                      checkpoint (`benchmarkJson` + `update`, `run`)
 *
 * Reports are rendered from what this returns and nothing else. Tolerant of a run in progress:
 * a torn last metrics line is skipped, missing folders are empty lists.
 */
import type { Panel } from "./panel.ts";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { DataError, UsageError } from "../core/errors.ts";
import type { SeedConfig } from "../train/config.ts";
import type { Estimate } from "./breakdown.ts";

/** One metrics line (numbers, plus the nested `seconds` object). */
export type MetricsLine = Readonly<Record<string, unknown>> & { readonly update: number };

/** A turn of a sample trajectory (text fields only; sample files carry no token ids). */
export type SampleTurn = {
  readonly observation: string;
  readonly responseText: string;
  readonly actionText: string;
  readonly valid: boolean;
  readonly reward: number;
};

/** A sample trajectory of a training update, with the teacher skill and per-token gates. */
export type SampleTrajectory = {
  readonly update: number;
  readonly taskId: string;
  readonly task: string;
  readonly success: boolean;
  readonly return: number;
  readonly groupIndex: number;
  readonly memberIndex: number;
  readonly skill: string;
  readonly skillValid: number;
  /** Per turn, the gate of each sampled token (empty where no teacher ran). */
  readonly gates: readonly (readonly number[])[];
  readonly turns: readonly SampleTurn[];
};

/** An evaluation record (`eval/<split>.json`). */
export type EvalRecord = {
  readonly env: string;
  readonly split: string;
  readonly episodes: number;
  readonly update: number | null;
  readonly columns: readonly string[];
  readonly headline: string;
  readonly metrics: Readonly<Record<string, Estimate>>;
  readonly counts: Readonly<Record<string, number>>;
  /** Which tasks were evaluated (records written before panels were logged have none). */
  readonly panel?: Panel;
  readonly success_rate: number;
  readonly mean_length: number;
  readonly valid_action_rate: number;
  readonly seconds: number;
  readonly [key: string]: unknown;
};

/** Everything a report reads from one run directory. */
export type RunData = {
  readonly dir: string;
  readonly name: string;
  readonly config: SeedConfig | null;
  readonly metrics: readonly MetricsLine[];
  readonly samples: readonly SampleTrajectory[];
  /** Evaluation records by split. */
  readonly evals: Readonly<Record<string, EvalRecord>>;
  /** The tokenizer file of the newest checkpoint, or null. */
  readonly tokenizerPath: string | null;
  /** Updates of the checkpoints on disk, ascending. */
  readonly checkpoints: readonly number[];
};

/**
 * Whether `dir` looks like a run directory: a `config.json` beside `metrics.jsonl`,
 * `checkpoints/` or `eval/` (a method that trains nothing, such as Vanilla, has only the last).
 */
export function isRunDir(dir: string): boolean {
  return existsSync(join(dir, "config.json")) && ["metrics.jsonl", "checkpoints", "eval"].some((n) => existsSync(join(dir, n)));
}

function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new DataError(`${path}: not readable JSON (${(e as Error).message})`);
  }
}

/** The metrics lines of a run (a torn or malformed line is skipped: a run may be writing). */
export function readMetrics(dir: string): MetricsLine[] {
  const path = join(dir, "metrics.jsonl");
  if (!existsSync(path)) return [];
  const out: MetricsLine[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const obj = JSON.parse(line) as Record<string, unknown>;
      if (typeof obj["update"] === "number") out.push(obj as MetricsLine);
    } catch {
      // a torn last line of a run in progress
    }
  }
  return out.sort((a, b) => a.update - b.update);
}

function toSample(raw: Record<string, unknown>, where: string): SampleTrajectory {
  const turns = raw["turns"];
  if (!Array.isArray(turns)) throw new DataError(`${where}: a sample without turns`);
  const gates = Array.isArray(raw["gates"]) ? (raw["gates"] as unknown[]).map((g) => (Array.isArray(g) ? (g as number[]) : [])) : [];
  return {
    update: Number(raw["update"] ?? 0),
    taskId: String(raw["taskId"] ?? ""),
    task: String(raw["task"] ?? ""),
    success: raw["success"] === true,
    return: Number(raw["return"] ?? 0),
    groupIndex: Number(raw["groupIndex"] ?? 0),
    memberIndex: Number(raw["memberIndex"] ?? 0),
    skill: String(raw["skill"] ?? ""),
    skillValid: Number(raw["skillValid"] ?? 0),
    gates,
    turns: (turns as Record<string, unknown>[]).map((t) => ({
      observation: String(t["observation"] ?? ""),
      responseText: String(t["responseText"] ?? ""),
      actionText: String(t["actionText"] ?? ""),
      valid: t["valid"] === true,
      reward: Number(t["reward"] ?? 0),
    })),
  };
}

/** Sample trajectories of a run, oldest update first (`lastFiles` newest files only). */
export function readSamples(dir: string, lastFiles = Infinity): SampleTrajectory[] {
  const sdir = join(dir, "samples");
  if (!existsSync(sdir)) return [];
  const files = readdirSync(sdir).filter((f) => /^update-\d+\.jsonl$/.test(f)).sort();
  const picked = Number.isFinite(lastFiles) ? files.slice(-lastFiles) : files;
  const out: SampleTrajectory[] = [];
  for (const f of picked) {
    readFileSync(join(sdir, f), "utf8").split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      let raw: Record<string, unknown>;
      try {
        raw = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      out.push(toSample(raw, `${f}:${i + 1}`));
    });
  }
  return out;
}

/** Checkpoint updates on disk, ascending. */
export function checkpointUpdates(dir: string): number[] {
  const cdir = join(dir, "checkpoints");
  if (!existsSync(cdir)) return [];
  return readdirSync(cdir).map((n) => /^update-(\d+)$/.exec(n)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => a - b);
}

/** Evaluation records of a run, by split. */
export function readEvals(dir: string): Record<string, EvalRecord> {
  const edir = join(dir, "eval");
  const out: Record<string, EvalRecord> = {};
  if (!existsSync(edir)) return out;
  for (const f of readdirSync(edir).filter((n) => n.endsWith(".json")).sort()) {
    const rec = readJsonFile(join(edir, f)) as EvalRecord;
    if (typeof rec === "object" && rec !== null && typeof rec.split === "string" && typeof rec.metrics === "object") out[rec.split] = rec;
  }
  return out;
}

/** Write `eval/<split>.json` atomically. */
export function writeEvalRecord(dir: string, record: Record<string, unknown> & { split: string }): string {
  const edir = join(dir, "eval");
  mkdirSync(edir, { recursive: true });
  const path = join(edir, `${record.split.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  writeFileSync(`${path}.tmp`, JSON.stringify(record, null, 2) + "\n");
  renameSync(`${path}.tmp`, path);
  return path;
}

/** Read a run directory (a `UsageError` when it is not one). */
export function readRunDir(dir: string, options: { sampleFiles?: number } = {}): RunData {
  const abs = resolve(dir);
  if (!isRunDir(abs)) throw new UsageError(`${dir} is not a run directory (needs config.json and metrics.jsonl, checkpoints/ or eval/)`);
  const config = readJsonFile(join(abs, "config.json")) as SeedConfig;
  const checkpoints = checkpointUpdates(abs);
  const newest = checkpoints.at(-1);
  const tok = newest === undefined ? null : join(abs, "checkpoints", `update-${String(newest).padStart(6, "0")}`, "policy", "tokenizer.json");
  return {
    dir: abs,
    name: basename(abs),
    config,
    metrics: readMetrics(abs),
    samples: readSamples(abs, options.sampleFiles ?? 3),
    evals: readEvals(abs),
    tokenizerPath: tok !== null && existsSync(tok) ? tok : null,
    checkpoints,
  };
}

/** A numeric metric over updates (non-numbers become NaN, so plots show gaps). */
export function metricSeries(lines: readonly MetricsLine[], key: string): { x: number[]; y: number[] } {
  return { x: lines.map((l) => l.update), y: lines.map((l) => (typeof l[key] === "number" ? (l[key] as number) : Number.NaN)) };
}

/** Whether any line has a finite number under `key`. */
export function hasMetric(lines: readonly MetricsLine[], key: string): boolean {
  return lines.some((l) => typeof l[key] === "number" && Number.isFinite(l[key] as number));
}
