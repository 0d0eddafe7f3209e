/**
 * ALFWorld: the TextWorld-PDDL household games, on the real game files or generated ones.
 * What a registry needs: `makeAlfworldEnv`, task sources per split (`alfworldTasks` for a data
 * directory, `alfworldGeneratedTasks` for the embedded defaults), and the expert factories.
 */
import type { Env, TaskSpec } from "../env.ts";
import type { Expert } from "../expert.ts";
import { AlfworldEnv, gameOfTask, type AlfworldEnvOptions } from "./env.ts";
import { AlfworldExpert, alfworldNoisyExpert } from "./expert.ts";
import { generatedPriors, type AlfworldGenOptions } from "./generator/generate.ts";
import { ALFWORLD_TRAIN_PRIORS } from "./priors-table.ts";
import type { AlfworldPriors } from "./priors.ts";

export { AlfworldEnv, ALFWORLD_MAX_STEPS, ALFWORLD_WIN_REWARD, gameOfTask, type AlfworldEnvOptions } from "./env.ts";
export { AlfworldEngine, type EngineSnapshot, type EngineStep } from "./engine.ts";
export type { AlfGame, GameObject, Receptacle } from "./game.ts";
export { TASK_TYPES, TASK_LABELS, bucketOfPath, parseTaskDir, taskSentences, type TaskType } from "./tasks.ts";
export {
  ALFWORLD_SPLITS, alfworldTasks, listGames, loadAlfworldTasks, loadGameFile, parseGameFile, resolveAlfworldRoot,
  type AlfworldPayload, type GameRef,
} from "./load.ts";
export { AlfworldExpert, alfworldNoisyExpert, alfworldRandomAction, parseTaskSentence, type AlfworldExpertOptions, type AlfworldNoisyExpertOptions, type ParsedTask } from "./expert.ts";
export { learnPriors, type AlfworldPriors } from "./priors.ts";
export { ALFWORLD_TRAIN_PRIORS } from "./priors-table.ts";
export {
  ALFRED_CATALOG, GENERATED_SPLITS, alfworldGeneratedTasks, generateGame, generatedPriors, isHeldOutPair,
  type AlfworldGenOptions, type GeneratedSplit,
} from "./generator/generate.ts";
export { checkGames, playExpert, replayWalkthrough, type CheckReport, type GameOutcome, type PlayExpertOptions } from "./check.ts";
export { benchAlfworldSteps, type AlfworldBenchOptions, type AlfworldBenchResult } from "./bench.ts";
export { BANNER, NOTHING_HAPPENS, HELP_TEXT } from "./text.ts";
export { goalShape, planDistance, type GoalShape, type PlanDistanceOptions, type PlanResult } from "./plan-distance.ts";

/** A fresh ALFWorld environment (30 steps, reward 10 on the winning step). */
export function makeAlfworldEnv(options: AlfworldEnvOptions = {}): Env {
  return new AlfworldEnv(options);
}

/**
 * The class priors that fit a task: the real training split's for real games, the generator's
 * for generated ones (ids `generated/...`).
 */
export function priorsForTask(task: TaskSpec, genOptions: AlfworldGenOptions = {}): AlfworldPriors {
  return gameOfTask(task).id.startsWith("generated/") ? generatedPriors(genOptions) : ALFWORLD_TRAIN_PRIORS;
}

/** Expert factory (for `runEnvConformance`, demonstrations, evaluation baselines). */
export function alfworldExpertFactory(genOptions: AlfworldGenOptions = {}): (task: TaskSpec, seed: number) => Expert {
  return (task) => new AlfworldExpert({ priors: priorsForTask(task, genOptions) });
}

/** Noisy-expert factory: epsilon-random admissible actions, seeded from (seed, task id). */
export function alfworldNoisyExpertFactory(epsilon: number, genOptions: AlfworldGenOptions = {}): (task: TaskSpec, seed: number) => Expert {
  return (task, seed) => alfworldNoisyExpert(task, seed, { epsilon, priors: priorsForTask(task, genOptions) });
}
