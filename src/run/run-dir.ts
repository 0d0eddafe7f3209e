/**
 * The run directory, written and read here and nowhere else:
 *
 *   <run>/config.json                    the resolved config (a rerun must resolve to the same one)
 *   <run>/metrics.jsonl                  one object per update (`update`, `success_rate`, `tie_rate`,
 *                                        `gate_mean`, slash metrics, `seconds` per stage)
 *   <run>/samples/update-XXXXXX.jsonl    a few trajectories with `skill`, `skillValid`, `gates`
 *   <run>/checkpoints/update-XXXXXX/     policy/, analyzer/, trainer.json (`checkpoint.ts`)
 *   <run>/skill-library.json             the `static-self` library, when one was built
 *   <run>/eval/<split>.json              evaluation records (written and read by `eval/run-data.ts`)
 *   <run>/.lock                          the exclusive lock of the process writing it (`run-lock.ts`)
 *
 * Tolerant of a run in progress: a torn last metrics line is skipped, missing folders are empty
 * lists. A config.json written by an older version is read through `upgradeConfig`, so old run
 * directories resume and report unchanged.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DataError, UsageError } from "../core/errors.ts";
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from "../core/fs.ts";
import type { SeedConfig } from "../config/config.ts";
import { shapeIssues } from "../config/check.ts";
import { checkpointName, listCheckpoints } from "./checkpoint.ts";
import { lockRunDir, type RunLock } from "./run-lock.ts";

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

/**
 * Whether `dir` looks like a run directory: a `config.json` beside `metrics.jsonl`,
 * `checkpoints/` or `eval/` (a method that trains nothing, such as Vanilla, has only the last).
 */
export function isRunDir(dir: string): boolean {
  return existsSync(join(dir, "config.json")) && ["metrics.jsonl", "checkpoints", "eval"].some((n) => existsSync(join(dir, n)));
}

/**
 * A config as an older run directory recorded it, brought to today's shape: `method.formula`
 * (now rendered from the plan) is dropped, and `rlsd.enabled` becomes `pg.advantage`. Anything
 * else passes through untouched, to be validated by the caller.
 */
export function upgradeConfig(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null) return raw;
  const c = structuredClone(raw) as Record<string, Record<string, unknown> | undefined>;
  if (c["method"] && "formula" in c["method"]) delete c["method"]["formula"];
  const rlsd = c["rlsd"];
  if (rlsd && "enabled" in rlsd) {
    const pg = (c["pg"] ??= {});
    if (!("advantage" in pg)) pg["advantage"] = rlsd["enabled"] === true ? "rlsd" : "grpo";
    delete rlsd["enabled"];
  }
  const loss = c["loss"];
  if (loss && !("terms" in loss)) loss["terms"] = {};
  return c;
}

/** The resolved config a run directory was trained with (in today's shape). */
export function readRunConfig(runDir: string): SeedConfig {
  const path = join(runDir, "config.json");
  if (!existsSync(path)) throw new UsageError(`${runDir} is not a run directory (no config.json)`);
  const config = upgradeConfig(readJsonFile(path));
  // Wrong types or unknown keys (a garbled file) are one clear error here, not a TypeError
  // later; a key added since the run was recorded may be absent (old runs still read).
  const issues = looksLikeSeedConfig(config) ? shapeIssues(config) : [{ path: "(root)", message: "not an object with method, env, rollout and run sections" }];
  if (issues.length > 0) {
    throw new UsageError(`${path} is not a valid run config: ${issues.slice(0, 3).map((i) => `${i.path || "(root)"}: ${i.message}`).join("; ")}${issues.length > 3 ? `; ... (${issues.length} problems)` : ""}`);
  }
  return config as SeedConfig;
}

function differingPaths(a: unknown, b: unknown, path = ""): string[] {
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => differingPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || "(root)"];
}

/** Creates the run directory, or a one-line `UsageError` when it cannot be (a file, read-only). */
export function makeRunDir(runDir: string): void {
  try {
    mkdirSync(runDir, { recursive: true });
    if (!statSync(runDir).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "EEXIST" || code === "ENOTDIR" ? "it (or a parent of it) is a file, not a folder" : code === "EACCES" || code === "EPERM" || code === "EROFS" ? `not writable (${code})` : (code ?? (e as Error).message);
    throw new UsageError(`cannot use run directory ${runDir}: ${why}`);
  }
}

/** Whether a run has begun in `runDir`: a checkpoint or an evaluation record pins its config. */
function runHasBegun(runDir: string): boolean {
  return listCheckpoints(runDir).length > 0 || existsSync(join(runDir, "eval"));
}

/** Whether a parsed config.json looks like one seed wrote (so that replacing it loses nothing). */
function looksLikeSeedConfig(x: unknown): boolean {
  if (typeof x !== "object" || x === null) return false;
  const c = x as Record<string, unknown>;
  return ["method", "env", "rollout", "run"].every((k) => typeof c[k] === "object" && c[k] !== null);
}

/**
 * Claims `runDir` for `config` and returns its exclusive lock (`run-lock.ts`; release it when
 * done): creates the directory, or checks that the config it holds is the same run (only
 * `run.updates` may differ: more or fewer updates continue it), then records `config`. A run
 * that has not begun (no checkpoint, no evaluation: e.g. a first start that failed on a typo)
 * does not pin its config, so the corrected command simply starts it.
 * @throws UsageError when another live process holds the lock, or the directory holds another run
 */
export function claimRunDir(runDir: string, config: SeedConfig): RunLock {
  makeRunDir(runDir);
  const lock = lockRunDir(runDir);
  try {
    const path = join(runDir, "config.json");
    if (existsSync(path)) {
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(path, "utf8"));
      } catch (e) {
        throw new UsageError(`${path} is not valid JSON (${(e as Error).message}); it is not a config seed wrote: pick a new --run-dir, or delete it if it is a damaged run`);
      }
      if (!looksLikeSeedConfig(raw)) throw new UsageError(`${path} is not a run config seed wrote; pick a new --run-dir`);
      if (runHasBegun(runDir)) {
        const diff = differingPaths(upgradeConfig(raw), config).filter((p) => p !== "run.updates");
        if (diff.length > 0) {
          throw new UsageError(`${runDir} holds a run with a different config (${diff.slice(0, 6).join(", ")}${diff.length > 6 ? ", ..." : ""}); resume with the same preset and overrides, or pick a new --run-dir`);
        }
      }
    }
    writeJsonAtomic(path, config);
  } catch (e) {
    lock.release();
    throw e;
  }
  return lock;
}

/** Records `config` in a run directory that has none yet (a run evaluated without training). */
export function recordRunConfig(runDir: string, config: SeedConfig): void {
  mkdirSync(runDir, { recursive: true });
  const path = join(runDir, "config.json");
  if (!existsSync(path)) writeJsonAtomic(path, config);
}

/** Keys of a metrics line that depend on wall-clock time (excluded when comparing runs). */
export function isTimingKey(key: string): boolean {
  return key === "seconds" || key.startsWith("time/");
}

/** The JSON-object lines of a JSONL text with their raw text; blank, torn or malformed lines are skipped (a run may be writing). */
function objectLines(text: string): { readonly line: string; readonly index: number; readonly obj: Record<string, unknown> }[] {
  const out: { line: string; index: number; obj: Record<string, unknown> }[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      const obj: unknown = JSON.parse(line);
      if (typeof obj === "object" && obj !== null) out.push({ line, index, obj: obj as Record<string, unknown> });
    } catch {
      // a torn last line of a run in progress
    }
  });
  return out;
}

/** Appends one update's metrics line. */
export function appendMetrics(runDir: string, line: Readonly<Record<string, unknown>>): void {
  appendFileSync(join(runDir, "metrics.jsonl"), JSON.stringify(line) + "\n");
}

/** Keeps the metrics lines up to `update` (drops lines of updates redone after a resume, and a torn last line); returns the last kept. */
export function truncateMetrics(runDir: string, update: number): MetricsLine | null {
  const path = join(runDir, "metrics.jsonl");
  if (!existsSync(path)) return null;
  const kept: string[] = [];
  let last: MetricsLine | null = null;
  for (const { line, obj } of objectLines(readFileSync(path, "utf8"))) {
    if (typeof obj["update"] === "number" && obj["update"] <= update) {
      kept.push(line);
      last = obj as MetricsLine;
    }
  }
  writeFileAtomic(path, kept.map((l) => l + "\n").join(""));
  return last;
}

/** The metrics lines of a run, by update (a torn or malformed line is skipped: a run may be writing). */
export function readMetrics(dir: string): MetricsLine[] {
  const path = join(dir, "metrics.jsonl");
  if (!existsSync(path)) return [];
  const out: MetricsLine[] = [];
  for (const { obj } of objectLines(readFileSync(path, "utf8"))) if (typeof obj["update"] === "number") out.push(obj as MetricsLine);
  return out.sort((a, b) => a.update - b.update);
}

/** Metrics lines of a run directory without their timing keys (for comparing runs), in file order. */
export function metricsWithoutTimings(runDir: string): Record<string, unknown>[] {
  const path = join(runDir, "metrics.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => {
    const obj = JSON.parse(l) as Record<string, unknown>;
    for (const k of Object.keys(obj)) if (isTimingKey(k)) delete obj[k];
    return obj;
  });
}

/** Writes `samples/update-XXXXXX.jsonl` (one JSON line per sample trajectory) atomically. */
export function writeSamples(runDir: string, update: number, lines: readonly string[]): void {
  mkdirSync(join(runDir, "samples"), { recursive: true });
  writeFileAtomic(join(runDir, "samples", `${checkpointName(update)}.jsonl`), lines.map((l) => l + "\n").join(""));
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
  for (const f of picked) for (const { obj, index } of objectLines(readFileSync(join(sdir, f), "utf8"))) out.push(toSample(obj, `${f}:${index + 1}`));
  return out;
}

/** Updates of the complete checkpoints on disk, ascending. */
export function checkpointUpdates(runDir: string): number[] {
  return listCheckpoints(runDir).map((c) => c.update);
}

/** The policy directory of the checkpoint after `update` updates. */
export function checkpointPolicyDir(runDir: string, update: number): string {
  return join(runDir, "checkpoints", checkpointName(update), "policy");
}

/** The newest checkpoint's policy directory, or null when no update completed. */
export function newestPolicyDir(runDir: string): { dir: string; update: number } | null {
  const latest = listCheckpoints(runDir).at(-1);
  return latest === undefined ? null : { dir: join(latest.dir, "policy"), update: latest.update };
}

/** Writes `skill-library.json` (the `static-self` library). */
export function writeSkillLibrary(runDir: string, library: Readonly<Record<string, string>>): void {
  writeJsonAtomic(join(runDir, "skill-library.json"), library);
}

/** What a `--checkpoint` path resolves to. */
export type CheckpointTarget = { policyDir: string; runDir: string | null; update: number | null };

/** What a `--checkpoint` path names: a run directory (its newest checkpoint), one of its checkpoints, or a bare policy directory. */
export function resolveCheckpoint(path: string): CheckpointTarget {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new UsageError(`no checkpoint at ${path}`);
  if (isRunDir(abs)) {
    const last = checkpointUpdates(abs).at(-1);
    if (last === undefined) throw new UsageError(`${path} is a run directory without checkpoints yet`);
    return { policyDir: checkpointPolicyDir(abs, last), runDir: abs, update: last };
  }
  const asUpdate = /update-(\d+)$/.exec(abs);
  if (existsSync(join(abs, "policy", "config.json"))) {
    const run = dirname(dirname(abs));
    return { policyDir: join(abs, "policy"), runDir: isRunDir(run) ? run : null, update: asUpdate ? Number(asUpdate[1]) : null };
  }
  if (existsSync(join(abs, "config.json"))) {
    const up = dirname(abs), run = dirname(dirname(up));
    const m = /update-(\d+)$/.exec(up);
    return { policyDir: abs, runDir: m && isRunDir(run) ? run : null, update: m ? Number(m[1]) : null };
  }
  throw new UsageError(`${path} is neither a run directory nor a checkpoint (no config.json)`);
}
