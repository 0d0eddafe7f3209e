/**
 * Tasks that are generator seeds (Sokoban levels, EZPoints hands). The seed ranges are the
 * upstream ones: training seeds in [0, 2^16), validation seeds in
 * [2^16, 2^32), so a validation level is never a training level.
 */
import { UsageError } from "../core/errors.ts";
import { Rng, deriveSeed } from "../core/rng.ts";
import type { TaskSpec } from "./env.ts";

/** The seed range of each split, [lo, hi). */
export const SEED_SPLIT_RANGES = {
  train: [0, 2 ** 16],
  validation: [2 ** 16, 2 ** 32],
} as const satisfies Record<string, readonly [number, number]>;

/** A split of seed-generated tasks. */
export type SeedSplit = keyof typeof SEED_SPLIT_RANGES;

/** Payload of a seed task. */
export type SeedPayload = { readonly seed: number };

/**
 * `count` distinct generator seeds of a split, drawn from `seed`; task ids are `<env>/<split>/<seed>`.
 * @example seedTasks("sokoban", "validation", 128) // the 128 validation levels
 */
export function seedTasks(env: string, split: string, count: number, seed = 0): TaskSpec[] {
  if (!(split in SEED_SPLIT_RANGES)) {
    throw new UsageError(`${env} has no split '${split}' (one of ${Object.keys(SEED_SPLIT_RANGES).join(", ")})`);
  }
  const [lo, hi] = SEED_SPLIT_RANGES[split as SeedSplit];
  if (!Number.isInteger(count) || count < 0 || count > hi - lo) throw new UsageError(`cannot draw ${count} ${split} tasks for ${env}`);
  const rng = Rng.from(deriveSeed(seed, "seed-tasks", env, split));
  const width = hi - lo;
  // A lazy Fisher-Yates shuffle of the range (only swapped slots are stored): distinct, uniform,
  // O(count), and the first k seeds are the same whatever count is asked for.
  const swapped = new Map<number, number>();
  const seeds: number[] = [];
  for (let i = 0; i < count; i++) {
    const j = i + rng.int(width - i);
    const atJ = swapped.get(j) ?? j;
    swapped.set(j, swapped.get(i) ?? i);
    seeds.push(lo + atJ);
  }
  return seeds.map((s): TaskSpec => ({ id: `${env}/${split}/${s}`, split, payload: { seed: s } satisfies SeedPayload }));
}
