/**
 * Named, timed stages of one update (docs/TRAINING.md §3): `await timer.time("rollout", () => ...)`
 * records wall-clock seconds per stage name, summed when a stage runs more than once (the live
 * teacher pass of every mini-batch). `drain()` returns the seconds and resets the timer.
 */

/** Seconds per stage name, in the order the stages first ran. */
export type StageSeconds = Record<string, number>;

/** Accumulates seconds per named stage. */
export class StageTimer {
  private seconds: StageSeconds = {};

  /** Runs `fn`, adds its wall-clock seconds to `name`, returns its result. */
  async time<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.add(name, (performance.now() - t0) / 1000);
    }
  }

  /** Adds seconds measured elsewhere. */
  add(name: string, seconds: number): void {
    this.seconds[name] = (this.seconds[name] ?? 0) + seconds;
  }

  /** The seconds so far, and a fresh start. */
  drain(): StageSeconds {
    const out = this.seconds;
    this.seconds = {};
    return out;
  }
}
