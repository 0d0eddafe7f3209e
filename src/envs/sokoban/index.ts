/** Sokoban: the environment, level generation, text grids, the BFS solver, expert and tasks. */
export { SokobanEnv, SOKOBAN_ACTION_NAMES, SOKOBAN_ADMISSIBLE, SOKOBAN_TASK, levelOf } from "./env.ts";
export type { SokobanOptions, SokobanPayload } from "./env.ts";
export { generateLevel, SokobanGenerationError } from "./generate.ts";
export type { SokobanGenOptions } from "./generate.ts";
export { CELL, CELL_TEXT, renderGrid, parseGrid, validateLevel } from "./level.ts";
export type { SokobanLevel } from "./level.ts";
export { solveSokoban } from "./solver.ts";
export { sokobanExpert, sokobanBestAction } from "./expert.ts";
import { seedTasks } from "../seed-tasks.ts";
import type { TaskSpec } from "../env.ts";

/** Sokoban tasks of a split (`train`, `validation`): generator seeds in the upstream ranges. */
export function sokobanTasks(split: string, count: number, seed = 0): TaskSpec[] {
  return seedTasks("sokoban", split, count, seed);
}
