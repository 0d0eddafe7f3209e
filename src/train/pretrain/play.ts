/**
 * The episode loop and corpus loop shared by the demonstrators of environments whose expert is a
 * plain `Expert` (WebShop, Search-QA): play one episode with a noisy expert and record it as a
 * scored `DemoEpisode`; play a corpus of plain and hinted episodes. ALFWorld's demonstrator
 * (`demos.ts`) tracks what the agent holds for its think blocks and has its own loop.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import { Progress } from "../../core/progress.ts";
import type { TaskSpec } from "../../envs/env.ts";
import type { NoisyExpert } from "../../envs/expert.ts";
import type { SeedConfig } from "../../config/config.ts";
import type { DemoEpisode, DemoStep, DemoWorld } from "./demos.ts";

/** A demonstration with the score its episode ended with (0 when nothing was bought or answered right). */
export type ScoredDemo = DemoEpisode & { readonly score: number };

/**
 * Plays one episode of `task` (reset with `seed`) with `expert`, writing each action's response
 * with `respond`; steps the expert did not choose (random actions) are marked untrained.
 */
export function playExpertEpisode(world: DemoWorld, task: TaskSpec, seed: number, expert: NoisyExpert, respond: (action: string) => string, hint: string): ScoredDemo {
  const env = world.makeEnv();
  const initial = env.reset(task, seed);
  let obs = initial;
  const steps: DemoStep[] = [];
  let won = false, score = 0;
  for (let t = 0; t < world.maxSteps; t++) {
    const action = expert.act(obs);
    const r = env.step(action);
    steps.push({ action, response: respond(action), expert: !expert.lastActionRandom, observation: obs, reward: r.reward });
    obs = r.observation;
    won = r.won;
    score = r.score;
    if (r.done) break;
  }
  return { task, initial, steps, won, hint, score };
}

/** How an environment's demonstrator plays a plain and a hinted episode. */
export type CorpusPlayer = {
  /** The progress bar's label. */
  readonly label: string;
  /** The hindsight hint of a task for an episode seed ("" when the analyzer wrote none). */
  hint(task: TaskSpec, seed: number): Promise<string>;
  /** One episode at random-action rate `epsilon`, following `hint` when it is not "". */
  play(task: TaskSpec, seed: number, epsilon: number, hint: string): ScoredDemo;
};

/**
 * Plays a demonstration corpus: `stage0.episodesPerGame` episodes per task, a share
 * `stage0.hintShare` of them hinted (ε = `hintEpsilon`), the rest plain (ε = `epsilon`). Every
 * draw derives from `seed` and the player's label, so the corpus is a pure function of the config.
 */
export async function playHintedCorpus(config: SeedConfig, tasks: readonly TaskSpec[], seed: number, quiet: boolean, player: CorpusPlayer, tag: string): Promise<ScoredDemo[]> {
  const s = config.stage0;
  const bar = new Progress(player.label, tasks.length, { silent: quiet });
  const out: ScoredDemo[] = [];
  for (let g = 0; g < tasks.length; g++) {
    const task = tasks[g]!;
    const rng = Rng.from(deriveSeed(seed, `${tag}-episode-kind`, g));
    for (let e = 0; e < s.episodesPerGame; e++) {
      const epSeed = deriveSeed(seed, `${tag}-demo`, g, e);
      if (rng.float() < s.hintShare) out.push(player.play(task, epSeed, s.hintEpsilon, await player.hint(task, epSeed)));
      else out.push(player.play(task, epSeed, s.epsilon, ""));
    }
    bar.tick();
  }
  bar.done();
  return out;
}
