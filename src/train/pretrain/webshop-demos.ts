/**
 * Stage-0 demonstrations on WebShop, in the agent's own prompt format.
 *
 * The demonstrator is the environment's seeded noisy expert (`envs/webshop/expert.ts`: it knows
 * the goal product and its options, and re-plans from each page, so a random action costs it a
 * detour, not the episode). Episodes are the same `DemoEpisode`s as ALFWorld's and are rendered
 * and tokenized by the shared `renderDemo` / `encodeDemo` with the WebShop renderer (the
 * verl-agent prompt with its available-actions list), so a demonstration's ids are exactly what a
 * `full`-history rollout builds.
 *
 * Hints. A hinted episode first gets a hindsight hint: the clean expert plays the goal, the rule
 * analyzer reads the serialized episode and writes its workflow ("Search with the key attributes
 * of the request (a query like '...'), open the result ..., select every required option (...),
 * then click buy now."). The demonstrator follows it: it searches with the hint's query and acts
 * with less noise (`hintEpsilon`). A misleading hint is the same text with another goal's query
 * and options. Not here: tokenization and training (`scored-stage0.ts`).
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { Observation, TaskSpec } from "../../envs/env.ts";
import { NoisyExpert, type Expert } from "../../envs/expert.ts";
import { requestBody, webshopExpert, webshopRandomAction } from "../../envs/webshop/index.ts";
import type { SeedConfig } from "../../config/config.ts";
import { ruleAnalyzer } from "../../skills/rule-analyzer.ts";
import { serializeTrajectory } from "../../skills/serialize.ts";
import { demoTrajectory, type DemoWorld } from "./demos.ts";
import { playExpertEpisode, playHintedCorpus, type ScoredDemo } from "./play.ts";
import type { Demonstrator } from "./scored-stage0.ts";

/** A WebShop demonstration: a `DemoEpisode` plus the purchase score it ended with (0 when nothing was bought). */
export type WebshopDemo = ScoredDemo;

const NAV: Record<string, string> = {
  "click[next >]": "see more results",
  "click[< prev]": "go back",
  "click[back to search]": "search again",
  "click[buy now]": "buy it",
  "click[description]": "read the details",
  "click[features]": "read the details",
  "click[reviews]": "read the details",
};

/** True for a results page's product link (`click[b07xyz1234]`): ten letters and digits with a digit. */
function isProductClick(action: string): boolean {
  return /^click\[(?=[a-z]*\d)[a-z0-9]{10}\]$/.test(action);
}

/** The think block's short plan for an action. */
function plan(action: string): string {
  if (action.startsWith("search[")) return "search for the request";
  const nav = NAV[action];
  if (nav !== undefined) return nav;
  if (isProductClick(action)) return "open the matching result";
  if (action.startsWith("click[")) return "select the option";
  return "act";
}

/** The response text of a WebShop action: `<think>plan</think><action>cmd</action>`. */
export function webshopResponse(action: string): string {
  return `<think>${plan(action)}</think><action>${action}</action>`;
}

/** The query a hint names (`(a query like 'sulfate free shampoo')`), or undefined. */
export function hintQuery(hint: string): string | undefined {
  return /\(a query like '([^']*)'\)/.exec(hint)?.[1];
}

/**
 * The demonstrator's first query: the instruction's product phrase as one contiguous span (after
 * the request opening and an article, before the first option clause and the price). A small
 * model trained from scratch learns to copy a span far sooner than the expert's keyword list
 * (`goalQuery`, which skips words), and on the generated shop the span finds the goal as often.
 * @example demoQuery("i need a button closure dress with color: red, and price lower than 90.00 dollars") // "button closure dress"
 */
export function demoQuery(instruction: string): string {
  let s = requestBody(instruction).replace(/^(?:a|an|some|the)\s+/, "");
  const option = /(?:,? and | with )[\w' -]+: /.exec(s);
  if (option !== null) s = s.slice(0, option.index);
  return s.replace(/[[\]\n]/g, " ").replace(/\s+/g, " ").trim();
}

/** An expert that makes its first search with `query` (the hint's, or the span query) and is otherwise `inner`. */
class HintedExpert implements Expert {
  private searched = false;
  private readonly inner: Expert;
  private readonly query: string;
  constructor(inner: Expert, query: string) {
    this.inner = inner;
    this.query = query;
  }
  act(obs: Observation): string {
    const a = this.inner.act(obs);
    if (this.searched || !a.startsWith("search[")) return a;
    this.searched = true;
    return `search[${this.query}]`;
  }
}

/**
 * Plays one WebShop episode with the (noisy) expert. Its first search uses the hint's query when
 * the hint names one (the demonstrator following the hint), else the instruction's span
 * (`demoQuery`); later searches are the expert's own fallbacks.
 * @param epsilon random-action rate (random draws from `deriveSeed(seed, "webshop-noise")`)
 */
export function playWebshopDemo(world: DemoWorld, task: TaskSpec, seed: number, epsilon: number, hint: string): WebshopDemo {
  // The first query is read off the reset page, which the episode loop resets again identically.
  const initial = world.makeEnv().reset(task, seed);
  const query = hintQuery(hint) ?? demoQuery(initial.task);
  const clean = webshopExpert(task, seed);
  const expert = new NoisyExpert(query === "" ? clean : new HintedExpert(clean, query), {
    epsilon, rng: Rng.from(deriveSeed(seed, "webshop-noise")), randomAction: webshopRandomAction,
  });
  return playExpertEpisode(world, task, seed, expert, webshopResponse, hint);
}

/** The hindsight hint of a goal: the clean expert's episode, analysed by the rule-based analyzer. */
export async function webshopHindsightHint(world: DemoWorld, task: TaskSpec, seed: number): Promise<{ hint: string; oracle: WebshopDemo }> {
  const oracle = playWebshopDemo(world, task, seed, 0, "");
  const [analysis] = await ruleAnalyzer().analyze([serializeTrajectory(demoTrajectory(oracle, "webshop"))]);
  return { hint: analysis !== undefined && analysis.ok ? analysis.skill : "", oracle };
}

/**
 * A misleading version of a hint: its query and option list replaced by those of `other` (another
 * goal's hint); undefined when either names no query or the two queries are the same.
 */
export function misleadingWebshopHint(hint: string, other: string): string | undefined {
  const q = hintQuery(hint), oq = hintQuery(other);
  if (q === undefined || oq === undefined || q === oq) return undefined;
  const opts = /select every required option \(([^)]*)\)/;
  const otherOpts = opts.exec(other)?.[1];
  const swapped = hint.replace(`(a query like '${q}')`, `(a query like '${oq}')`);
  return otherOpts === undefined ? swapped.replace(opts, "select every required option") : opts.test(swapped) ? swapped.replace(opts, `select every required option (${otherOpts})`) : swapped;
}

/**
 * Plays the WebShop demonstration corpus (`playHintedCorpus`): `stage0.episodesPerGame` episodes
 * per training goal, a share `stage0.hintShare` of them hinted. A pure function of the config.
 */
export async function playWebshopCorpus(config: SeedConfig, tasks: readonly TaskSpec[], world: DemoWorld, seed: number, quiet: boolean): Promise<WebshopDemo[]> {
  return playHintedCorpus(config, tasks, seed, quiet, {
    label: "stage0 corpus",
    hint: async (task, epSeed) => (await webshopHindsightHint(world, task, epSeed)).hint,
    play: (task, epSeed, epsilon, hint) => playWebshopDemo(world, task, epSeed, epsilon, hint),
  }, "webshop");
}

/** Stage 0's WebShop demonstrator (`scored-stage0.ts`). */
export const WEBSHOP_DEMONSTRATOR: Demonstrator = {
  env: "webshop",
  corpus: playWebshopCorpus,
  hint: async (world, task, seed) => (await webshopHindsightHint(world, task, seed)).hint,
  misleading: misleadingWebshopHint,
};
