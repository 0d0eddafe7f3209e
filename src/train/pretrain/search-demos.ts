/**
 * Stage-0 demonstrations on Search-QA (the generated knowledge base), in the agent's own prompt
 * format.
 *
 * The demonstrator is the environment's seeded noisy expert (`envs/search/expert.ts`: it follows
 * the question's fact chain, searching each hop's entity until that hop's passage has appeared,
 * then answers; it reads the observations, so a random search costs it a turn, not the episode).
 * Episodes are rendered and tokenized by the shared `renderDemo` / `encodeDemo` with the Search-QA
 * renderer, so a demonstration's ids are exactly what a `full`-history rollout builds.
 *
 * Hints. A hinted episode first gets a hindsight hint: the clean expert answers the question and
 * the rule analyzer reads the serialized episode and writes its workflow, which names the queries
 * that worked ("Search for the exact entity the question names (queries that worked: 'Velmora
 * Works', then 'Tarin Brous'), ..."). On a two-hop question the second query is the bridge entity,
 * which the question does not name: the hint carries information the base can act on. The
 * demonstrator follows it (it searches exactly those queries, in order) with less noise
 * (`hintEpsilon`). A misleading hint is the same text with another question's queries. Not here:
 * tokenization and training (`scored-stage0.ts`).
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { TaskSpec } from "../../envs/env.ts";
import { NoisyExpert } from "../../envs/expert.ts";
import { searchExpert, searchRandomAction } from "../../envs/search/index.ts";
import type { SeedConfig } from "../../config/config.ts";
import { ruleAnalyzer } from "../../skills/rule-analyzer.ts";
import { serializeTrajectory } from "../../skills/serialize.ts";
import { demoTrajectory, type DemoWorld } from "./demos.ts";
import { playExpertEpisode, playHintedCorpus, type ScoredDemo } from "./play.ts";
import type { Demonstrator } from "./scored-stage0.ts";

/** The think block's short plan for a Search-QA action. */
function plan(action: string): string {
  if (/^<search>/.test(action)) return "look up the entity";
  if (/^<answer>/.test(action)) return "the documents give the answer";
  return "act";
}

/**
 * The response text of a Search-QA action: `<think>plan</think>` then the action's tag block with
 * a space inside each tag, as the prompt's own examples write it (`<search> query </search>`,
 * `<answer> Paris </answer>`). The space is also what makes the query copyable: a name in the
 * question follows a space, and byte-level BPE tokenizes " Hiodra" and "Hiodra" differently, so
 * only the spaced form repeats the question's tokens exactly (the environment trims both).
 */
export function searchResponse(action: string): string {
  const m = /^<(search|answer)>([\s\S]*)<\/\1>$/.exec(action);
  return `<think>${plan(action)}</think>${m === null ? action : `<${m[1]}> ${m[2]!.trim()} </${m[1]}>`}`;
}

/** The queries a hint names (`(queries that worked: 'a', then 'b')`), in order; [] for none. */
export function hintQueries(hint: string): string[] {
  const list = /\(queries that worked: ((?:'[^']*'(?:, then )?)+)\)/.exec(hint)?.[1];
  return list === undefined ? [] : [...list.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
}

/**
 * Plays one Search-QA episode with the (noisy) expert. The expert's queries are the fact chain's
 * entities, the same ones a correct hint names, so following the hint and following the chain
 * are one policy; a hint changes the episode only through its lower noise rate.
 * @param epsilon random-action rate (random draws from `deriveSeed(seed, "search-noise")`)
 */
export function playSearchDemo(world: DemoWorld, task: TaskSpec, seed: number, epsilon: number, hint: string): ScoredDemo {
  const expert = new NoisyExpert(searchExpert(task, seed), { epsilon, rng: Rng.from(deriveSeed(seed, "search-noise")), randomAction: searchRandomAction });
  return playExpertEpisode(world, task, seed, expert, searchResponse, hint);
}

/** The hindsight hint of a question: the clean expert's episode, analysed by the rule-based analyzer. */
export async function searchHindsightHint(world: DemoWorld, task: TaskSpec, seed: number): Promise<{ hint: string; oracle: ScoredDemo }> {
  const oracle = playSearchDemo(world, task, seed, 0, "");
  const [analysis] = await ruleAnalyzer().analyze([serializeTrajectory(demoTrajectory(oracle, "search"))]);
  return { hint: analysis !== undefined && analysis.ok ? analysis.skill : "", oracle };
}

/** A misleading version of a hint: its queries replaced by `other`'s; undefined when either names none or they are the same. */
export function misleadingSearchHint(hint: string, other: string): string | undefined {
  const q = hintQueries(hint), oq = hintQueries(other);
  if (q.length === 0 || oq.length === 0 || q.join("\n") === oq.join("\n")) return undefined;
  const list = (xs: readonly string[]) => `(queries that worked: ${xs.map((x) => `'${x}'`).join(", then ")})`;
  return hint.replace(list(q), list(oq));
}

/** Plays the Search-QA demonstration corpus (`playHintedCorpus`): a pure function of the config. */
export async function playSearchCorpus(config: SeedConfig, tasks: readonly TaskSpec[], world: DemoWorld, seed: number, quiet: boolean): Promise<ScoredDemo[]> {
  return playHintedCorpus(config, tasks, seed, quiet, {
    label: "stage0 corpus",
    hint: async (task, epSeed) => (await searchHindsightHint(world, task, epSeed)).hint,
    play: (task, epSeed, epsilon, hint) => playSearchDemo(world, task, epSeed, epsilon, hint),
  }, "search");
}

/** Stage 0's Search-QA demonstrator (`scored-stage0.ts`). */
export const SEARCH_DEMONSTRATOR: Demonstrator = {
  env: "search",
  corpus: playSearchCorpus,
  hint: async (world, task, seed) => (await searchHindsightHint(world, task, seed)).hint,
  misleading: misleadingSearchHint,
};
