/**
 * ALFWorld as an `Env` (verl-agent's `env_package/alfworld/envs.py`): the engine plus the wrapper's
 * rules —
 * reward 10 on the winning step, `done` when won or after `maxSteps` (30) steps of any kind,
 * `EnvStateError` when stepped after the end. The reset seed is unused: an ALFWorld game is
 * deterministic (generated games carry their own seed in the task).
 */
import { DataError, EnvStateError } from "../../core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../env.ts";
import { AlfworldEngine } from "./engine.ts";
import type { AlfGame } from "./game.ts";
import { loadGameFile, type AlfworldPayload } from "./load.ts";

/** Reward of the winning step (verl-agent: `10 * won`). */
export const ALFWORLD_WIN_REWARD = 10;

/** Step limit of the protocol. */
export const ALFWORLD_MAX_STEPS = 30;

/** Options of `AlfworldEnv`. */
export type AlfworldEnvOptions = {
  /** Steps (valid or not) after which the episode ends unwon. @default 30 */
  readonly maxSteps?: number;
};

const FILE_CACHE_LIMIT = 512;
const fileCache = new Map<string, AlfGame>();

/**
 * The game a task refers to. File payloads are parsed once and kept in a small
 * least-recently-used cache shared by all environments of the process.
 * @throws DataError when the payload is not an ALFWorld payload or the file is bad
 */
export function gameOfTask(task: TaskSpec): AlfGame {
  const p = task.payload as Partial<Record<"game" | "file" | "id", unknown>> | null;
  if (p !== null && typeof p === "object" && typeof p.game === "object" && p.game !== null) return (p as Extract<AlfworldPayload, { game: AlfGame }>).game;
  if (p !== null && typeof p === "object" && typeof p.file === "string") {
    const file = p.file;
    let game = fileCache.get(file);
    if (game !== undefined) {
      fileCache.delete(file);
    } else {
      game = loadGameFile(file, typeof p.id === "string" ? p.id : task.id);
      if (fileCache.size >= FILE_CACHE_LIMIT) fileCache.delete(fileCache.keys().next().value!);
    }
    fileCache.set(file, game);
    return game;
  }
  throw new DataError(`task ${task.id}: not an ALFWorld task (payload needs 'game' or 'file')`);
}

/**
 * One ALFWorld episode at a time.
 * @example
 * const env = new AlfworldEnv();
 * const obs = env.reset({ id: "g", split: "valid_seen", payload: { file: "…/game.tw-pddl" } }, 0);
 * const r = env.step("go to bed 1");
 */
export class AlfworldEnv implements Env {
  readonly id = "alfworld";
  readonly maxSteps: number;
  readonly rewardRange = [0, ALFWORLD_WIN_REWARD] as const;
  private engine: AlfworldEngine | undefined;
  private steps = 0;
  private done = true;
  private started = false;

  constructor(options: AlfworldEnvOptions = {}) {
    const m = options.maxSteps ?? ALFWORLD_MAX_STEPS;
    if (!Number.isInteger(m) || m < 1) throw new RangeError(`maxSteps must be a positive integer, got ${m}`);
    this.maxSteps = m;
  }

  /** The running engine (for experts and tools that need the game itself). */
  get current(): AlfworldEngine | undefined {
    return this.engine;
  }

  reset(task: TaskSpec, _seed: number): Observation {
    const game = gameOfTask(task);
    if (this.engine?.game !== game) this.engine = new AlfworldEngine(game);
    const text = this.engine.reset();
    this.steps = 0;
    this.done = false;
    this.started = true;
    return { text, admissible: this.engine.admissible(), task: game.task };
  }

  step(action: string): StepResult {
    const engine = this.engine;
    if (!this.started || engine === undefined) throw new EnvStateError("alfworld: step() before reset()");
    if (this.done) throw new EnvStateError("alfworld: step() after the episode ended; call reset()");
    const r = engine.step(typeof action === "string" ? action : "");
    this.steps++;
    const won = r.recognized && engine.won();
    this.done = won || this.steps >= this.maxSteps;
    return {
      observation: { text: r.feedback, admissible: engine.admissible(), task: engine.game.task },
      reward: won ? ALFWORLD_WIN_REWARD : 0,
      done: this.done,
      won,
      score: won ? 1 : 0,
      actionRecognized: r.recognized,
    };
  }
}
