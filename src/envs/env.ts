/**
 * The environment interface shared by every benchmark (ALFWorld, WebShop, Search-QA, Sokoban,
 * EZPoints). An environment owns state, observation text, admissible actions, reward, `done` and
 * `won`; it never sees the model's raw text, only the action string the agent layer extracted.
 * Environments are deterministic given (task, seed) and never throw on an action string: an
 * invalid action gets the benchmark's own answer. Stepping after the end is an `EnvStateError`.
 */

/** One task of a benchmark: a game file, a shopping goal, a question, a generator seed. */
export type TaskSpec = {
  /** Stable identifier, unique within the environment (e.g. the game path relative to the data root). */
  readonly id: string;
  /** Split the task belongs to (`train`, `valid_seen`, `valid_unseen`, `test`, ...). */
  readonly split: string;
  /** Environment-specific task data (parsed game, goal, question). */
  readonly payload: unknown;
};

/** What the agent sees after a reset or a step. */
export type Observation = {
  /** The benchmark's observation text, byte for byte. */
  readonly text: string;
  /** Admissible actions where the benchmark offers a list; absent otherwise. */
  readonly admissible?: readonly string[];
  /** Task description as the prompt's task line shows it. */
  readonly task: string;
};

/** The result of one `step`. */
export type StepResult = {
  readonly observation: Observation;
  /** Environment reward of this step, before any invalid-action penalty (that is the trainer's). */
  readonly reward: number;
  readonly done: boolean;
  /** Benchmark success flag (final once `done`). */
  readonly won: boolean;
  /** Raw task score where the benchmark has one (WebShop); else 1 if won, 0 if not. */
  readonly score: number;
  /** False when the environment rejected the action as not admissible / not understood. */
  readonly actionRecognized: boolean;
};

/**
 * A benchmark environment, one episode at a time.
 * @example
 * const env = makeEnv("sokoban");
 * let obs = env.reset(task, 7);
 * const r = env.step("up");
 */
export interface Env {
  /** Environment name (`alfworld`, `webshop`, `search`, `sokoban`, `ezpoints`). */
  readonly id: string;
  /** Step limit of the protocol (ALFWorld 30, WebShop 15, Search 4, Sokoban 15, EZPoints 8). */
  readonly maxSteps: number;
  /** Inclusive range of any single step reward. */
  readonly rewardRange: readonly [number, number];
  /** Start an episode. Deterministic per (task, seed). */
  reset(task: TaskSpec, seed: number): Observation;
  /** Apply one action string. Never throws for any string; throws EnvStateError after `done`. */
  step(action: string): StepResult;
  /**
   * Optional asynchronous preparation of `step(action)`, for environments whose step needs I/O
   * (Search-QA with a remote retriever fetches the passages here, so `step` stays synchronous).
   * A rollout awaits `env.prepare?.(action)` before `env.step(action)`; the calls of one batch may
   * run concurrently (a remote retriever coalesces them into one request). Environments without
   * I/O leave it undefined.
   */
  prepare?(action: string): Promise<void>;
}
