/**
 * The Sokoban expert: read the grid from the observation, solve it breadth-first, take the first
 * action of a shortest solution. It re-plans every step, so it recovers from the noisy expert's
 * random moves when the level is still solvable; in a dead position it walks `up` (any counted
 * action, so the episode still reaches its step limit).
 */
import type { Expert } from "../expert.ts";
import type { Observation, TaskSpec } from "../env.ts";
import { SOKOBAN_ACTION_NAMES } from "./env.ts";
import { parseGrid } from "./level.ts";
import { solveSokoban } from "./solver.ts";

/** The best action for the grid shown in an observation, by BFS. */
export function sokobanBestAction(obs: Observation): string {
  const level = parseGrid(obs.text);
  const plan = solveSokoban(level);
  return plan === undefined || plan.length === 0 ? "up" : SOKOBAN_ACTION_NAMES[plan[0]!]!;
}

/** The expert for one Sokoban episode (the task is not needed: the grid says everything). */
export function sokobanExpert(_task: TaskSpec, _seed: number): Expert {
  return { act: sokobanBestAction };
}
