/**
 * JSON Lines dumps of trajectories (`samples/step-000120.jsonl` of a run directory): one
 * trajectory per line, every field of `Trajectory`, token ids included unless asked otherwise,
 * and a strict reader that names the line of the first malformed record.
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { DataError } from "../core/errors.ts";
import type { Trajectory, Turn } from "../core/trajectory.ts";

/** Options of {@link trajectoryJsonLine}. */
export type JsonlOptions = {
  /** Keep the token ids, log-probs and masks (needed to reload for training). @default true */
  readonly tokens?: boolean;
  /** Extra fields per trajectory (e.g. the skill text it saw), merged at the top level. */
  readonly extra?: (traj: Trajectory) => Record<string, unknown>;
};

/** One trajectory as one line of JSON (no trailing newline). */
export function trajectoryJsonLine(traj: Trajectory, options: JsonlOptions = {}): string {
  const keepTokens = options.tokens ?? true;
  const turns = traj.turns.map((t) => {
    if (keepTokens) return t;
    const { promptTokens: _p, sampledTokens: _s, sampledLogprobs: _l, allowedTokens: _a, ...text } = t;
    return text;
  });
  return JSON.stringify({ ...traj, turns, ...(options.extra ? options.extra(traj) : {}) });
}

/** Append trajectories to a JSONL file, creating its folder. */
export function appendTrajectories(path: string, trajs: readonly Trajectory[], options: JsonlOptions = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, trajs.map((t) => trajectoryJsonLine(t, options) + "\n").join(""));
}

const NUMBER_ARRAYS = ["promptTokens", "sampledTokens", "sampledLogprobs"] as const;

function checkTurn(t: unknown, where: string): Turn {
  const turn = t as Record<string, unknown>;
  if (typeof turn !== "object" || turn === null) throw new DataError(`${where}: a turn is not an object`);
  for (const key of NUMBER_ARRAYS) {
    const v = turn[key];
    if (!Array.isArray(v) || !v.every((x) => typeof x === "number")) throw new DataError(`${where}: turn.${key} is not a list of numbers (written with tokens: false?)`);
  }
  for (const key of ["promptText", "observation", "responseText", "actionText"]) {
    if (typeof turn[key] !== "string") throw new DataError(`${where}: turn.${key} is not a string`);
  }
  if (typeof turn["valid"] !== "boolean" || typeof turn["masked"] !== "boolean" || typeof turn["reward"] !== "number") {
    throw new DataError(`${where}: turn.valid/masked/reward have the wrong types`);
  }
  return turn as unknown as Turn;
}

/** Parse a JSONL dump written with token ids back into trajectories. */
export function parseTrajectories(text: string, source = "trajectories"): Trajectory[] {
  const out: Trajectory[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${source}:${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new DataError(`${where}: not JSON (${(e as Error).message})`);
    }
    const t = v as Record<string, unknown>;
    if (typeof t !== "object" || t === null || !Array.isArray(t["turns"]) || typeof t["envId"] !== "string" || (t["historyMode"] !== "window" && t["historyMode"] !== "full")) {
      throw new DataError(`${where}: not a trajectory (needs envId, historyMode and turns)`);
    }
    (t["turns"] as unknown[]).forEach((turn, j) => checkTurn(turn, `${where} turn ${j}`));
    out.push(t as unknown as Trajectory);
  });
  return out;
}

/** Read a JSONL dump written with token ids. */
export function readTrajectories(path: string): Trajectory[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new DataError(`${path}: cannot read (${(e as Error).message})`);
  }
  return parseTrajectories(text, path);
}
