/**
 * `seed bench envs [--json] [--seconds 1] [--policy noisy|random] [--env name,...] [--alfworld <root>]`: environment
 * steps per second, one core (Node's one thread), for every available environment.
 *
 * Episodes run back to back on the environment's own tasks (evaluation split), the actions from
 * its noisy expert (epsilon 0.3, seeded) or uniformly random ones, so the mix of valid and
 * invalid actions is what training sees. Two rates are reported: `steps_per_s` counts only the
 * time inside `reset`/`step` (the environment's cost), `wall_steps_per_s` includes choosing the
 * actions (an expert that plans, such as Sokoban's BFS, costs more than the game). Environments
 * whose module exports its own probe are measured with it too: ALFWorld's `benchAlfworldSteps`
 * (random admissible actions on the real games of `--alfworld <root>`, default
 * ../shared/data/alfworld, else generated games) and WebShop's `measureWebShopSpeed`.
 * Prints one JSON object with `--json`, a table otherwise. Never run in CI.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../src/core/errors.ts";
import { Rng, deriveSeed } from "../src/core/rng.ts";
import { numberOption, parseOptions, printJson } from "../src/cli/args.ts";
import type { Observation } from "../src/envs/env.ts";
import { availableEnvs, envEntry, isEnvName, makeEnv, makeExpert, taskSource, type EnvName } from "../src/envs/registry.ts";
import { measureWebShopSpeed } from "../src/envs/webshop/index.ts";
import { benchAlfworldSteps } from "../src/envs/alfworld/index.ts";

/** The measurement of one environment. */
export type EnvSpeed = {
  steps_per_s: number;
  wall_steps_per_s: number;
  steps: number;
  episodes: number;
  win_rate: number;
  policy: string;
  /** Milliseconds to build the world and its tasks and reset each task once (first use in this process), including the first expert. */
  setup_ms: number;
  /** A module's own probe, where it exports one. */
  probe?: Record<string, number>;
};

/** Play episodes of `name` for about `seconds` and time the environment. */
export function measureEnv(name: EnvName, options: { seconds: number; policy: "noisy" | "random"; seed: number }): EnvSpeed {
  const entry = envEntry(name);
  const t0 = performance.now();
  const tasks = taskSource(name, entry.evalSplits[0]!, { count: 64 });
  const env = makeEnv(name);
  // Warm-up: the first reset of a task may build and cache it (Sokoban levels, the shop's index).
  for (const task of tasks) env.reset(task, 0);
  // An expert may build shared tables once per process (ALFWorld's generated-game priors).
  if (options.policy === "noisy") makeExpert(name, tasks[0]!, 0);
  const setupMs = performance.now() - t0;
  const rng = Rng.from(deriveSeed(options.seed, "bench-envs", name));
  let steps = 0, episodes = 0, won = 0, envMs = 0;
  const start = performance.now();
  while (performance.now() - start < options.seconds * 1000) {
    const task = tasks[episodes % tasks.length]!;
    const seed = deriveSeed(options.seed, "episode", episodes);
    const expert = options.policy === "noisy" ? makeExpert(name, task, seed, 0.3) : undefined;
    const choose = (o: Observation) => (expert ? expert.act(o) : entry.randomAction(o, rng));
    let t = performance.now();
    let obs = env.reset(task, seed);
    envMs += performance.now() - t;
    // Twice the limit: Sokoban's no-ops do not count toward it.
    for (let i = 0; i < 2 * env.maxSteps; i++) {
      const action = choose(obs);
      t = performance.now();
      const r = env.step(action);
      envMs += performance.now() - t;
      steps++;
      obs = r.observation;
      if (r.done) {
        if (r.won) won++;
        break;
      }
    }
    episodes++;
  }
  const wall = (performance.now() - start) / 1000;
  return {
    steps_per_s: Math.round(steps / (envMs / 1000)),
    wall_steps_per_s: Math.round(steps / wall),
    steps,
    episodes,
    win_rate: Number((won / Math.max(1, episodes)).toFixed(3)),
    policy: options.policy === "noisy" ? "noisy-expert(0.3)" : "random",
    setup_ms: Math.round(setupMs),
  };
}

/** Run the benchmark; returns the process exit code. */
export async function run(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    json: { type: "boolean" }, seconds: { type: "string" }, policy: { type: "string" }, env: { type: "string" }, seed: { type: "string" },
    alfworld: { type: "string" },
  }, false);
  const seconds = numberOption(values.seconds, "seconds", 1);
  if (!(seconds > 0)) throw new UsageError(`--seconds must be positive, got ${seconds}`);
  const policy = values.policy ?? "noisy";
  if (policy !== "noisy" && policy !== "random") throw new UsageError(`--policy is noisy or random, got '${policy}'`);
  const seed = numberOption(values.seed, "seed", 0);
  const names = values.env === undefined ? availableEnvs() : values.env.split(",").map((n) => n.trim());
  for (const n of names) if (!isEnvName(n)) envEntry(n); // throws the UsageError listing the names

  const results: Partial<Record<EnvName, EnvSpeed>> = {};
  for (const name of names as EnvName[]) {
    const r = measureEnv(name, { seconds, policy, seed });
    if (name === "alfworld") {
      // The target (10,000 steps/s) is on the real games: measure them when present.
      const root = resolve(values.alfworld ?? "../shared/data/alfworld");
      const probe = benchAlfworldSteps({ seconds, seed, ...(existsSync(root) ? { root } : {}) });
      r.probe = { steps_per_s: Math.round(probe.stepsPerSecond), real_games: probe.source === "real" ? 1 : 0, games: probe.games };
    }
    if (name === "webshop") {
      const probe = measureWebShopSpeed({ seconds, seed });
      r.probe = { steps_per_s: Math.round(probe.stepsPerSecond), win_rate: Number(probe.winRate.toFixed(3)), build_ms: Math.round(probe.buildMs) };
    }
    results[name] = r;
  }
  const missing = (["alfworld", "webshop", "search", "sokoban", "ezpoints"] as const).filter((n) => !availableEnvs().includes(n));
  const out = { bench: "envs", seconds_per_env: seconds, node: process.version, envs: results, ...(missing.length > 0 ? { unavailable: missing } : {}) };
  if (values.json) {
    printJson(out);
  } else {
    console.log(`env steps/s on one core (${seconds} s each, ${policy === "noisy" ? "noisy expert, epsilon 0.3" : "random actions"})`);
    console.log("env        env-only   with actions   episodes   won    module probe");
    for (const [name, r] of Object.entries(results)) {
      const probe = r.probe === undefined ? "" : `${r.probe["steps_per_s"]} steps/s${r.probe["real_games"] === 1 ? " (real games)" : ""}`;
      console.log(`${name.padEnd(10)} ${String(r.steps_per_s).padStart(8)}   ${String(r.wall_steps_per_s).padStart(12)}   ${String(r.episodes).padStart(8)}   ${r.win_rate.toFixed(2)}   ${probe}`);
    }
    if (missing.length > 0) console.log(`not available in this build: ${missing.join(", ")}`);
  }
  return 0;
}
