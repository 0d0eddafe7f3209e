/** EZPoints: the environment, hands, formula evaluation, expert and tasks. */
export { EzPointsEnv, EZPOINTS_ACTIONS, EZPOINTS_TARGET, handOf, renderEzPoints, ezpointsTaskText } from "./env.ts";
export type { EzPointsOptions, EzPointsPayload } from "./env.ts";
export { evaluateFormula } from "./formula.ts";
export { generateHand, parseCard, describeCard } from "./hand.ts";
export type { Card, Hand } from "./hand.ts";
export { ezpointsExpert, ezpointsRandomAction, solveEzPoints, splitFormula } from "./expert.ts";
import { seedTasks } from "../seed-tasks.ts";
import type { TaskSpec } from "../env.ts";

/** EZPoints tasks of a split (`train`, `validation`): generator seeds in the upstream ranges. */
export function ezpointsTasks(split: string, count: number, seed = 0): TaskSpec[] {
  return seedTasks("ezpoints", split, count, seed);
}
