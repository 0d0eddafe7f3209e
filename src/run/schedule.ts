/**
 * Which tasks an update trains on: the pool is walked in epochs, each a seeded shuffle of the
 * whole pool, `tasksPerUpdate` tasks per update. The tasks of update u depend only on (run seed,
 * pool size, u), so a resumed run draws exactly what an uninterrupted one does; the cursor is
 * (u − 1)·B.
 */
import { Rng, deriveSeed } from "../core/rng.ts";

/** Pool indices of update `update` (1-based). */
export function taskIndices(seed: number, poolSize: number, update: number, perUpdate: number): number[] {
  if (poolSize <= 0) return [];
  const out: number[] = [];
  const orders = new Map<number, number[]>();
  for (let j = 0; j < perUpdate; j++) {
    const p = (update - 1) * perUpdate + j;
    const epoch = Math.floor(p / poolSize);
    let order = orders.get(epoch);
    if (order === undefined) {
      order = Rng.from(deriveSeed(seed, "task-order", epoch)).shuffle(Array.from({ length: poolSize }, (_, i) => i));
      orders.set(epoch, order);
    }
    out.push(order[p % poolSize]!);
  }
  return out;
}
