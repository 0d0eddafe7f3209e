/**
 * The expert cost-to-go label of `seed analyze gates` (eval/gate-action.ts), for every
 * environment with a clean expert (the registry's `expert`: WebShop, Search-QA; ALFWorld too,
 * though there the exact plan distance is the default). The value of the state before turn t is
 * what the clean expert achieves from it:
 *
 *   V(s_t) = (score, steps): a fresh environment is reset with the trajectory's task and seed, its
 *   actions 0..t−1 are replayed while a fresh clean expert is shown each observation and the
 *   action taken there (`Expert.follow`, else `act` with its answer dropped), then the expert
 *   plays on until `done` within the remaining step budget (maxSteps − t). `score` is the
 *   environment's score at its end (WebShop's [0, 1] reward, Search-QA's exact match), `steps`
 *   the expert's actions, Infinity when the episode did not end within the budget or ended with
 *   score 0 (environments end an episode at their step limit themselves, and the length of a
 *   failure says nothing). After the trajectory's last action of a finished episode,
 *   V = (its score, 0), or (0, Infinity) for a failure.
 *
 *   good(a_t)  ⇔  score(V(s_{t+1})) > score(V(s_t)),
 *                 or the scores are equal and steps(V(s_{t+1})) < steps(V(s_t))
 *
 * (lexicographic: a step that lets the expert score more, or the same sooner). A detour the
 * expert must undo (clicking `< prev` off the goal's item page, a repeated wrong search) leaves
 * its steps unchanged or longer and is bad; an action after which the expert cannot succeed in
 * time any more is bad, and so is every action from then on (0 = 0 and Infinity < Infinity is
 * false).
 *
 * Replays are checked: every replayed observation must equal the one the agent saw, and the
 * replayed episode must end as the trajectory did (won, score); otherwise `matches` is false
 * (the analysis counts it as a replay mismatch, as ALFWorld's plan replay does).
 */
import type { Trajectory } from "../core/trajectory.ts";
import type { Env, TaskSpec } from "../envs/env.ts";
import type { ExpertFactory } from "../envs/expert.ts";

/** What the clean expert achieves from one state. */
export type ExpertOutcome = {
  /** The environment's score when the expert's episode ended (or the budget ran out). */
  readonly score: number;
  /** Actions the expert took to end the episode; Infinity when it did not end within the budget or scored 0. */
  readonly steps: number;
};

/** What the label needs about the environment: fresh instances, its clean expert and the step budget. */
export type ExpertWorld = {
  readonly makeEnv: () => Env;
  readonly expert: ExpertFactory;
  /** The rollout's step limit: the expert from s_t may take maxSteps − t actions. */
  readonly maxSteps: number;
};

/** The expert values of one trajectory's states. */
export type ExpertValues = {
  /** `values[t]` is V(s_t), before turn t; `values[t + 1]` after it (turns + 1 entries). */
  readonly values: readonly ExpertOutcome[];
  /** Whether the replay reproduced every observation and the trajectory's end (won, score). */
  readonly matches: boolean;
};

/** The label rule, as the report states it. */
export const EXPERT_LABEL_RULE =
  "good iff the clean expert's outcome from the state after the action beats the one before, lexicographically: score_after > score_before, or equal score and steps_after < steps_before (steps Infinity when the expert did not end the episode within the remaining step budget or ended it with score 0)";

/** Whether an action improved the expert's outcome (see the file header). */
export function improves(before: ExpertOutcome, after: ExpertOutcome): boolean {
  return after.score > before.score || (after.score === before.score && after.steps < before.steps);
}

/** V(s_t) of one prefix, and whether its replay matched the trajectory's observations. */
async function valueAt(world: ExpertWorld, task: TaskSpec, traj: Trajectory, t: number): Promise<{ outcome: ExpertOutcome; matches: boolean; end: { done: boolean; won: boolean; score: number } }> {
  const env = world.makeEnv();
  const expert = world.expert(task, traj.seed);
  let obs = env.reset(task, traj.seed);
  let matches = true, done = false, won = false, score = 0;
  for (let k = 0; k < t; k++) {
    const action = traj.turns[k]!.actionText;
    if (obs.text !== traj.turns[k]!.observation) matches = false;
    // Show the expert what was done here, so its memory is the history's, not its own plan's.
    if (expert.follow !== undefined) expert.follow(obs, action);
    else expert.act(obs);
    await env.prepare?.(action);
    const r = env.step(action);
    ({ observation: obs, done, won, score } = r);
    if (done) {
      if (k < t - 1) matches = false; // the trajectory went on after the replay had ended
      return { outcome: { score, steps: score > 0 ? 0 : Number.POSITIVE_INFINITY }, matches, end: { done, won, score } };
    }
  }
  const end = { done, won, score };
  let steps = 0;
  while (!done && steps < world.maxSteps - t) {
    const action = expert.act(obs);
    await env.prepare?.(action);
    ({ observation: obs, done, score } = env.step(action));
    steps++;
  }
  return { outcome: { score, steps: done && score > 0 ? steps : Number.POSITIVE_INFINITY }, matches, end };
}

/**
 * The expert value of every state of `traj` (see the file header): T + 1 replays of the
 * trajectory's prefixes on fresh environments, each followed by the clean expert.
 * @example
 * const { values, matches } = await expertValues({ makeEnv, expert: webshopExpert, maxSteps: 15 }, task, traj);
 * const good = traj.turns.map((_, t) => improves(values[t]!, values[t + 1]!));
 */
export async function expertValues(world: ExpertWorld, task: TaskSpec, traj: Trajectory): Promise<ExpertValues> {
  const values: ExpertOutcome[] = [];
  let matches = true;
  for (let t = 0; t <= traj.turns.length; t++) {
    const v = await valueAt(world, task, traj, t);
    values.push(v.outcome);
    if (!v.matches) matches = false;
    if (t === traj.turns.length && (v.end.won !== traj.success || v.end.score !== traj.score)) matches = false;
  }
  return { values, matches };
}
