/**
 * Trainer checkpoints: `checkpoints/update-XXXXXX/` holding the policy (`policy/`: weights,
 * tokenizer, AdamW moments, via `policy.save`), the analyzer snapshot when it differs from both
 * the policy and the starting weights (`analyzer/`), and `trainer.json` (format version, update
 * count, task cursor, the seed streams, the `static-self` library, the starting checkpoint).
 *
 * Written atomically: everything goes into a temporary directory next to the target, which is
 * fsynced and renamed into place, so a checkpoint under its final name is always complete; a run
 * killed at any point resumes from the newest one. Every random draw of a run derives from
 * (run seed, update, ...) with `deriveSeed`, so the update index is the whole RNG state; the
 * trainer still records the derived stream seeds for inspection.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CheckpointError } from "../core/errors.ts";
import { fsyncPath } from "../core/fs.ts";
import type { PolicySnapshot, TrainablePolicy } from "../policy/policy.ts";

/** Version of `trainer.json` and the checkpoint layout; bump on change and migrate in `readTrainerState`. */
export const TRAINER_FORMAT_VERSION = 1;

/** What `trainer.json` holds. */
export type TrainerState = {
  readonly formatVersion: number;
  /** Updates completed. */
  readonly update: number;
  /** Tasks drawn so far (update × tasks per update). */
  readonly taskCursor: number;
  /** Size of the task pool the cursor walks. */
  readonly taskPool: number;
  /** The starting checkpoint (KL reference; analyzer when never refreshed). */
  readonly init: string;
  /** Update whose starting weights the analyzer snapshot holds (K > 1), or null. */
  readonly analyzerFrom: number | null;
  /** The `static-self` library, or null. */
  readonly staticLibrary: Readonly<Record<string, string>> | null;
  /** Consecutive updates without a finite step (the NaN guard's counter). */
  readonly badUpdates: number;
  /** Seeds of the next update's streams (derived; recorded for inspection). */
  readonly nextSeeds: Readonly<Record<string, number>>;
};

/** Directory name of the checkpoint after `update` updates. */
export function checkpointName(update: number): string {
  return `update-${String(update).padStart(6, "0")}`;
}

/** Writes `checkpoints/update-XXXXXX` atomically. */
export async function writeTrainerCheckpoint(runDir: string, policy: TrainablePolicy, state: TrainerState, analyzer: PolicySnapshot | null): Promise<string> {
  const root = join(runDir, "checkpoints");
  mkdirSync(root, { recursive: true });
  const name = checkpointName(state.update);
  const target = join(root, name);
  const tmp = join(root, `.${name}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    mkdirSync(tmp);
    await policy.save(join(tmp, "policy"));
    if (analyzer !== null) await analyzer.save(join(tmp, "analyzer"));
    const file = join(tmp, "trainer.json");
    writeFileSync(file, JSON.stringify(state, null, 2) + "\n");
    fsyncPath(file);
    fsyncPath(tmp);
    if (existsSync(target)) rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
    fsyncPath(root);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (e instanceof CheckpointError) throw e;
    throw new CheckpointError(target, `could not write the checkpoint: ${(e as Error).message}`, { cause: e });
  }
  return target;
}

/** Reads and checks `trainer.json` of a checkpoint directory. */
export function readTrainerState(dir: string): TrainerState {
  const path = join(dir, "trainer.json");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new CheckpointError(path, `unreadable trainer state: ${(e as Error).message}`);
  }
  const s = raw as TrainerState;
  if (typeof s !== "object" || s === null || typeof s.update !== "number") throw new CheckpointError(path, "not a trainer state (no update count)");
  if (s.formatVersion !== TRAINER_FORMAT_VERSION) throw new CheckpointError(path, `format version ${String(s.formatVersion)}; this build reads ${TRAINER_FORMAT_VERSION}`);
  return s;
}

/** Checkpoint directories of a run, oldest first (complete ones only: temporary names are skipped). */
export function listCheckpoints(runDir: string): { update: number; dir: string }[] {
  const root = join(runDir, "checkpoints");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .flatMap((n) => {
      const m = /^update-(\d{6})$/.exec(n);
      return m !== null && existsSync(join(root, n, "trainer.json")) ? [{ update: Number(m[1]), dir: join(root, n) }] : [];
    })
    .sort((a, b) => a.update - b.update);
}

/** Removes all but the newest `keep` checkpoints and any leftover temporary directories. */
export function pruneCheckpoints(runDir: string, keep: number): void {
  const root = join(runDir, "checkpoints");
  if (!existsSync(root)) return;
  for (const n of readdirSync(root)) if (n.startsWith(".update-")) rmSync(join(root, n), { recursive: true, force: true });
  const all = listCheckpoints(runDir);
  for (const c of all.slice(0, Math.max(0, all.length - keep))) rmSync(c.dir, { recursive: true, force: true });
}
