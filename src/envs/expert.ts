/**
 * The expert interface shared by every environment, the seeded noisy-expert wrapper that makes
 * base-agent training data (epsilon-random actions), and a tiny episode player for tests,
 * benchmarks and demonstration corpora. An expert sees what an agent sees (the observation), plus
 * whatever its factory read from the task (a walkthrough, a fact chain, a known answer); it is
 * created once per episode and may keep state, but must re-plan from the observation, because the
 * noisy wrapper replaces some of its actions with random ones it never sees.
 *
 * This is not the agent layer: no prompts, no parsing, no tokens.
 */
import type { Rng } from "../core/rng.ts";
import type { Env, Observation, TaskSpec } from "./env.ts";

/** An expert for one episode: the action it would take now. */
export interface Expert {
  act(obs: Observation): string;
  /**
   * Optional: `action` was taken at `obs`, chosen by someone else (a replayed trajectory), so the
   * expert's memory follows what was done rather than what it would have done. Without it a
   * replay calls `act(obs)` and drops the answer, which is exact for experts whose memory comes
   * from observations only (Search-QA's); WebShop's remembers its own option clicks, so it has one.
   */
  follow?(obs: Observation, action: string): void;
}

/** Creates the expert for one episode of `task` (reset with `seed`). */
export type ExpertFactory = (task: TaskSpec, seed: number) => Expert;

/** A random action for an observation, drawn from `rng` (the noisy expert's exploration). */
export type RandomAction = (obs: Observation, rng: Rng) => string;

/**
 * A uniformly random admissible action, or `""` where the observation offers no list (then the
 * environment answers as for any unrecognised action).
 */
export const randomAdmissible: RandomAction = (obs, rng) =>
  obs.admissible !== undefined && obs.admissible.length > 0 ? rng.choice(obs.admissible) : "";

/** Options of `NoisyExpert`. */
export type NoisyExpertOptions = {
  /** Probability of replacing the expert's action with a random one. 0 is the plain expert. */
  readonly epsilon: number;
  /** Source of every random draw (derive it from the episode's seed). */
  readonly rng: Rng;
  /** How a random action is drawn. @default randomAdmissible */
  readonly randomAction?: RandomAction;
};

/**
 * An expert that acts randomly with probability epsilon. `lastActionRandom` tells the caller
 * which actions were the expert's, so demonstrations can put their loss on those only.
 * @example
 * const expert = new NoisyExpert(sokobanExpert(task, seed), { epsilon: 0.3, rng: Rng.from(deriveSeed(seed, "noise")) });
 */
export class NoisyExpert implements Expert {
  readonly epsilon: number;
  private readonly inner: Expert;
  private readonly rng: Rng;
  private readonly randomAction: RandomAction;
  /** Whether the action most recently returned by `act` was random. */
  lastActionRandom = false;

  constructor(inner: Expert, options: NoisyExpertOptions) {
    if (!(options.epsilon >= 0 && options.epsilon <= 1)) throw new RangeError(`epsilon must be in [0, 1], got ${options.epsilon}`);
    this.inner = inner;
    this.epsilon = options.epsilon;
    this.rng = options.rng;
    this.randomAction = options.randomAction ?? randomAdmissible;
  }

  act(obs: Observation): string {
    // Draw even when epsilon is 0 so the stream position never depends on epsilon's value.
    this.lastActionRandom = this.rng.float() < this.epsilon;
    return this.lastActionRandom ? this.randomAction(obs, this.rng) : this.inner.act(obs);
  }
}

/** One step of a played episode. */
export type PlayedStep = {
  readonly action: string;
  readonly reward: number;
  readonly done: boolean;
  readonly won: boolean;
  readonly observation: Observation;
};

/** A played episode: the reset observation and every step. */
export type PlayedEpisode = {
  readonly initial: Observation;
  readonly steps: readonly PlayedStep[];
  readonly return: number;
  readonly won: boolean;
  readonly done: boolean;
};

/**
 * Play one episode with an action chooser until `done` or `stepCap` steps (the cap guards
 * environments that do not count every action toward their limit, like Sokoban's no-op).
 */
export function playEpisode(
  env: Env,
  task: TaskSpec,
  seed: number,
  choose: (obs: Observation) => string,
  stepCap = env.maxSteps,
): PlayedEpisode {
  const initial = env.reset(task, seed);
  let obs = initial;
  const steps: PlayedStep[] = [];
  let ret = 0, won = false, done = false;
  while (!done && steps.length < stepCap) {
    const action = choose(obs);
    const r = env.step(action);
    steps.push({ action, reward: r.reward, done: r.done, won: r.won, observation: r.observation });
    ret += r.reward;
    won = r.won;
    done = r.done;
    obs = r.observation;
  }
  return { initial, steps, return: ret, won, done };
}
