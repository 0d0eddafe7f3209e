/**
 * The output folder of a stage (`model/`, `stage0.json` or `stage1.json`, `labels.jsonl`): what it
 * holds, and its atomic write that replaces only a folder seed wrote.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeDirAtomically, type OwnedLayout } from "../../core/fs.ts";

/**
 * What a Stage-0 or Stage-1 output folder holds, so that one seed wrote may be rebuilt in place
 * and anything else (a user's folder, a file) is refused, never deleted.
 */
export const STAGE_OUTPUT: OwnedLayout = {
  what: "a Stage-0/1 output",
  names: ["model", "stage0.json", "stage1.json", "labels.jsonl"],
  isSignature: (dir) => ["stage0.json", "stage1.json"].some((n) => isStageReport(join(dir, n))),
};

function isStageReport(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    const j = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    return typeof j === "object" && j !== null && typeof j["seconds"] === "number" && (typeof j["episodes"] === "number" || typeof j["trajectories"] === "number");
  } catch {
    return false;
  }
}

/** Writes a stage's output folder atomically, replacing only a previous output seed wrote. */
export function writeStageOutput(dir: string, fill: (tmp: string) => void): void {
  writeDirAtomically(dir, STAGE_OUTPUT, fill);
}
