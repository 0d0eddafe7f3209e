/**
 * Whole-dataset checks behind `seed data check alfworld` and the fidelity tests: replay each
 * game's walkthrough (every command must be admissible, the game must be won exactly on the
 * last one) or play the hand-coded expert, and count games and wins per split and task type.
 */
import { AlfworldEnv } from "./env.ts";
import { AlfworldExpert, alfworldNoisyExpert } from "./expert.ts";
import type { AlfGame } from "./game.ts";
import { loadGameFile, type GameRef } from "./load.ts";
import type { AlfworldPriors } from "./priors.ts";
import { TASK_TYPES } from "./tasks.ts";

/** Outcome of one game. */
export type GameOutcome = {
  readonly won: boolean;
  readonly steps: number;
  /** Why a walkthrough replay failed (not admissible, won early, never won). */
  readonly problem?: string;
};

/**
 * Replay a game's walkthrough: each command must be admissible when sent, `won` must be false
 * before the last command and true after it.
 */
export function replayWalkthrough(game: AlfGame): GameOutcome {
  const wt = game.walkthrough;
  if (wt === undefined || wt.length === 0) return { won: false, steps: 0, problem: "no walkthrough" };
  const env = new AlfworldEnv({ maxSteps: Math.max(wt.length, 1) });
  let obs = env.reset({ id: game.id, split: "", payload: { game } }, 0);
  for (let i = 0; i < wt.length; i++) {
    const cmd = wt[i]!;
    if (!obs.admissible!.includes(cmd)) return { won: false, steps: i, problem: `step ${i + 1} '${cmd}' is not admissible` };
    const r = env.step(cmd);
    const last = i === wt.length - 1;
    if (r.won !== last) return { won: false, steps: i + 1, problem: last ? "not won after the last command" : `won early at step ${i + 1}` };
    obs = r.observation;
  }
  return { won: true, steps: wt.length };
}

/** Options of `playExpert`. */
export type PlayExpertOptions = {
  /** Class priors. @default ALFWORLD_TRAIN_PRIORS */
  readonly priors?: AlfworldPriors;
  /** @default 30 */
  readonly maxSteps?: number;
  /** Noisy-expert mode: share of random admissible actions. @default 0 */
  readonly epsilon?: number;
  /** Seed of the noisy expert's draws. @default 0 */
  readonly seed?: number;
};

/** Play the (optionally noisy) expert on a game until it ends. */
export function playExpert(game: AlfGame, options: PlayExpertOptions = {}): GameOutcome {
  const env = new AlfworldEnv({ maxSteps: options.maxSteps ?? 30 });
  const task = { id: game.id, split: "", payload: { game } };
  const priors = options.priors !== undefined ? { priors: options.priors } : {};
  const epsilon = options.epsilon ?? 0;
  const expert = epsilon > 0 ? alfworldNoisyExpert(task, options.seed ?? 0, { epsilon, ...priors }) : new AlfworldExpert(priors);
  let obs = env.reset(task, 0);
  let steps = 0;
  for (;;) {
    const r = env.step(expert.act(obs));
    steps++;
    if (r.done) return { won: r.won, steps };
    obs = r.observation;
  }
}

/** Games and wins for one group. */
export type Tally = { games: number; won: number };

/** The JSON object `seed data check alfworld` prints. */
export type CheckReport = {
  games: number;
  won: number;
  by_split: Record<string, Tally>;
  by_type: Record<string, Tally>;
  /** Mean steps of won games. */
  mean_steps_won: number;
  /** Up to 20 failures, `id: reason`. */
  failures: string[];
};

/**
 * Run `mode` over every game, calling `onGame` after each (for a progress bar).
 * @throws DataError from the first unreadable game file
 */
export function checkGames(refs: readonly GameRef[], mode: "walkthroughs" | "expert",
                           options: PlayExpertOptions & { onGame?: (done: number) => void } = {}): CheckReport {
  const by_split: Record<string, Tally> = {};
  const by_type: Record<string, Tally> = Object.fromEntries(TASK_TYPES.map((t) => [t, { games: 0, won: 0 }]));
  const failures: string[] = [];
  let games = 0, won = 0, wonSteps = 0;
  for (const ref of refs) {
    const game = loadGameFile(ref.path, ref.id);
    const out = mode === "walkthroughs" ? replayWalkthrough(game) : playExpert(game, options);
    const s = (by_split[ref.split] ??= { games: 0, won: 0 });
    const t = (by_type[ref.taskType] ??= { games: 0, won: 0 });
    games++; s.games++; t.games++;
    if (out.won) { won++; s.won++; t.won++; wonSteps += out.steps; }
    else if (failures.length < 20) failures.push(`${ref.id}: ${out.problem ?? `not won in ${out.steps} steps`}`);
    options.onGame?.(games);
  }
  return { games, won, by_split, by_type, mean_steps_won: won === 0 ? 0 : wonSteps / won, failures };
}
