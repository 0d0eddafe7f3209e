/**
 * A quick steps-per-second measurement of the ALFWorld engine, for `bench/envs.ts`: random
 * admissible actions (seeded) on real games when a data root is given, else on generated
 * games; loading and parsing are not timed, resets are.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { TaskSpec } from "../env.ts";
import { AlfworldEnv } from "./env.ts";
import { alfworldGeneratedTasks } from "./generator/generate.ts";
import { listGames, loadGameFile } from "./load.ts";

/** Options of `benchAlfworldSteps`. */
export type AlfworldBenchOptions = {
  /** ALFWorld data root; games come from its valid splits. Absent: generated games. */
  readonly root?: string;
  /** Games to cycle through. @default 32 */
  readonly games?: number;
  /** Minimum wall time in seconds. @default 1 */
  readonly seconds?: number;
  /** @default 0 */
  readonly seed?: number;
};

/** What the benchmark measured. */
export type AlfworldBenchResult = {
  readonly source: "real" | "generated";
  readonly games: number;
  readonly steps: number;
  readonly episodes: number;
  readonly seconds: number;
  readonly stepsPerSecond: number;
};

/**
 * Measure env steps per second on one core.
 * @example benchAlfworldSteps({ root: "../shared/data/alfworld" }).stepsPerSecond
 */
export function benchAlfworldSteps(options: AlfworldBenchOptions = {}): AlfworldBenchResult {
  const n = options.games ?? 32;
  const seed = options.seed ?? 0;
  let tasks: TaskSpec[];
  if (options.root !== undefined) {
    const refs = listGames(options.root, ["valid_seen", "valid_unseen"]).slice(0, n);
    tasks = refs.map((r) => ({ id: r.id, split: r.split, payload: { game: loadGameFile(r.path, r.id) } }));
  } else {
    tasks = alfworldGeneratedTasks("train", n, { seed });
  }
  const env = new AlfworldEnv();
  for (const t of tasks) env.reset(t, 0);
  const rng = Rng.from(deriveSeed(seed, "alfworld-bench"));
  const budget = (options.seconds ?? 1) * 1000;
  const start = performance.now();
  let steps = 0, episodes = 0, elapsed = 0;
  while (elapsed < budget) {
    let obs = env.reset(tasks[episodes % tasks.length]!, 0);
    episodes++;
    for (;;) {
      const r = env.step(rng.choice(obs.admissible!));
      steps++;
      if (r.done) break;
      obs = r.observation;
    }
    elapsed = performance.now() - start;
  }
  return { source: options.root !== undefined ? "real" : "generated", games: tasks.length, steps, episodes, seconds: elapsed / 1000, stepsPerSecond: steps / (elapsed / 1000) };
}
