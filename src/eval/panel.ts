/**
 * Evaluation panels: the task list of an evaluation as a pure function of (benchmark, split,
 * count, seed), with a content hash logged in every result so that two numbers are compared only
 * when they were measured on the same tasks (reproductions of the paper's peers traced gains to
 * panels that silently differed). The full split comes from the environment's loaders, which
 * enumerate sorted file names and fixed orders; a panel is then its first `count` tasks, or, with
 * a seed, `count` tasks drawn from it without replacement and kept in split order. Nothing here
 * depends on worker count, file-system order or time.
 */
import { createHash } from "node:crypto";
import { UsageError } from "../core/errors.ts";
import { Rng, deriveSeed } from "../core/rng.ts";
import type { TaskSpec } from "../envs/env.ts";

/** What an evaluation's task list was and how it was chosen. */
export type Panel = {
  readonly benchmark: string;
  readonly split: string;
  /** Tasks in the panel. */
  readonly count: number;
  /** Seed of the draw, or null for the split's first `count` tasks. */
  readonly seed: number | null;
  /** First 16 hex digits of the SHA-256 of the tasks (ids and payloads, in order). */
  readonly hash: string;
};

/** JSON with object keys sorted, so equal data hashes equally however it was built. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

/** The content hash of a task list: ids, splits and payloads, in order. */
export function panelHash(tasks: readonly TaskSpec[]): string {
  const h = createHash("sha256");
  for (const t of tasks) h.update(canonical({ id: t.id, split: t.split, payload: t.payload })).update("\n");
  return h.digest("hex").slice(0, 16);
}

/**
 * The panel of a split: all of it, its first `count` tasks, or with `seed` a draw of `count`
 * distinct tasks kept in split order (a partial Fisher-Yates over indices, seeded by
 * (seed, "eval-panel")).
 */
export function selectPanel(tasks: readonly TaskSpec[], count?: number, seed?: number): TaskSpec[] {
  if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new UsageError(`the task count must be a positive integer, got ${count}`);
  if (count === undefined || count >= tasks.length) return [...tasks];
  if (seed === undefined) return tasks.slice(0, count);
  const rng = Rng.from(deriveSeed(seed, "eval-panel"));
  const idx = tasks.map((_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + rng.int(idx.length - i);
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, count).sort((a, b) => a - b).map((i) => tasks[i]!);
}

/** The panel record of an evaluation's tasks. */
export function describePanel(benchmark: string, split: string, tasks: readonly TaskSpec[], seed: number | null = null): Panel {
  return { benchmark, split, count: tasks.length, seed, hash: panelHash(tasks) };
}
