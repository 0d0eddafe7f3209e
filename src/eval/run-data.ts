/**
 * A run directory as reports read it (`run/run-dir.ts` holds its format), plus the evaluation
 * records this layer adds to it: `eval/<split>.json`, one benchmark evaluation of the newest
 * checkpoint (`benchmarkJson` + `update`, `run`). Reports are rendered from what this returns
 * and nothing else.
 */
import type { Panel } from "./panel.ts";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { DataError, UsageError } from "../core/errors.ts";
import { readJsonFile, writeJsonAtomic } from "../core/fs.ts";
import { checkpointPolicyDir, checkpointUpdates, isRunDir, readMetrics, readRunConfig, readSamples, type MetricsLine, type SampleTrajectory } from "../run/run-dir.ts";
import type { SeedConfig } from "../config/config.ts";
import type { Estimate } from "./breakdown.ts";
import type { GameOutcomes } from "./seed-game-bootstrap.ts";

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

/**
 * The per-game outcomes of an evaluation record with their task-type columns, or undefined for
 * records written before outcomes were logged. `task_ids` travel along so paired comparisons
 * can check both methods played the same games.
 */
export function gameOutcomes(r: EvalRecord): (GameOutcomes & { readonly taskIds: readonly string[] | undefined }) | undefined {
  const outcomes = r["outcomes"], groups = r["task_groups"], ids = r["task_ids"];
  if (!Array.isArray(outcomes) || !Array.isArray(groups) || outcomes.length !== groups.length) return undefined;
  return { outcomes: outcomes as number[], groups: groups as string[], taskIds: Array.isArray(ids) ? (ids as string[]) : undefined };
}

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

function readJsonOf(path: string): unknown {
  return readJsonFile(path, { unreadable: (p, r) => new DataError(`${p}: not readable JSON (${r})`), invalid: (p, r) => new DataError(`${p}: not readable JSON (${r})`) });
}

/** Evaluation records of a run, by split. */
export function readEvals(dir: string): Record<string, EvalRecord> {
  const edir = join(dir, "eval");
  const out: Record<string, EvalRecord> = {};
  if (!existsSync(edir)) return out;
  for (const f of readdirSync(edir).filter((n) => n.endsWith(".json")).sort()) {
    const rec = readJsonOf(join(edir, f)) as EvalRecord;
    if (typeof rec === "object" && rec !== null && typeof rec.split === "string" && typeof rec.metrics === "object") out[rec.split] = rec;
  }
  return out;
}

/** Write `eval/<split>.json` atomically. */
export function writeEvalRecord(dir: string, record: Record<string, unknown> & { split: string }): string {
  const edir = join(dir, "eval");
  mkdirSync(edir, { recursive: true });
  const path = join(edir, `${record.split.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  writeJsonAtomic(path, record);
  return path;
}

/** Read a run directory (a `UsageError` when it is not one). */
export function readRunDir(dir: string, options: { sampleFiles?: number } = {}): RunData {
  const abs = resolve(dir);
  if (!isRunDir(abs)) throw new UsageError(`${dir} is not a run directory (needs config.json and metrics.jsonl, checkpoints/ or eval/)`);
  const config = readRunConfig(abs);
  const checkpoints = checkpointUpdates(abs);
  const newest = checkpoints.at(-1);
  const tok = newest === undefined ? null : join(checkpointPolicyDir(abs, newest), "tokenizer.json");
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
