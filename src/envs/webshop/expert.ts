/**
 * The WebShop expert (search the goal's words, click the goal's product,
 * choose the goal's options, buy) and the random action of its noisy mode. The expert knows the
 * goal from the task (its product's title and option values) and reads everything else from the
 * observation, so it re-plans after any random action: on the search page it searches, on a
 * results page it clicks the goal's ASIN or pages on, on another product or a sub-page it goes
 * back. It cannot see which options are selected (the text mode does not show it), so it
 * remembers what it chose on the current visit of the item page; a random option click in
 * between can therefore spoil a noisy episode, as it would spoil a learner's.
 */
import type { Rng } from "../../core/rng.ts";
import type { Observation, TaskSpec } from "../env.ts";
import type { Expert, RandomAction } from "../expert.ts";
import { normalizeColor } from "./colors.ts";
import { tokenSetRatio } from "./fuzz.ts";
import { SEARCH_ACTION, parseAction } from "./env.ts";
import { textPart } from "./py-text.ts";
import type { WebShopGoal, WebShopTaskPayload } from "./types.ts";

/** Results pages the expert looks through before searching again with the product's title. */
const MAX_RESULT_PAGES = 3;

// Request openings of instructions, longest first so "i would like to buy" beats "i would like".
const OPENERS: readonly string[] = [
  "i am looking for", "i'm looking for", "im looking for", "i would like to buy", "i would like to get", "i would like",
  "i'd like", "id like", "i need to buy", "i need", "i want to buy", "i want", "can you find me", "can you find",
  "help me find", "i am interested in", "im interested in", "i am searching for", "im searching for", "find me",
  "get me", "buy me", "show me", "looking for",
].toSorted((a, b) => b.length - a.length);

const STOP = /\b(?:with|and|that|which|is|are|a|an|some|the|of|in|for|it|to|my|me|i|im|also|please|would|like|want|need)\b/g;

/**
 * An instruction lower-cased, without its price clause and its opening request ("i need", "i am
 * looking for"): what every query derived from it starts from.
 * @example requestBody("I need a red dress, and price lower than 90.00 dollars") // "a red dress"
 */
export function requestBody(instruction: string): string {
  const s = instruction.toLowerCase().replace(/,? and price lower than [\d.]+ dollars\s*$/, "").trim();
  const opener = OPENERS.find((o) => s.startsWith(`${o} `));
  return opener === undefined ? s : s.slice(opener.length + 1);
}

/**
 * The search keywords the expert derives from an instruction: lower-cased, without the opening
 * request, the price clause, option names and punctuation, articles and linking words dropped.
 * @example goalQuery("i need a sulfate free shampoo with scent: lavender, and price lower than 30.00 dollars")
 * // "sulfate free shampoo lavender"
 */
export function goalQuery(instruction: string): string {
  const s = requestBody(instruction).replace(/(with|, and) (?:[\w-]+ ){0,2}[\w-]+: /g, "$1 ");
  return s.replace(STOP, " ").replace(/[^\p{L}\p{N}.'-]+/gu, " ").replace(/\s+/g, " ").trim();
}

/** Text made safe as a search argument: lower-cased, brackets and runs of spaces removed. */
function searchable(text: string): string {
  return text.toLowerCase().replace(/[[\]\n]/g, " ").replace(/\s+/g, " ").trim();
}

const BUTTONS = new Set(["back to search", "< prev", "next >", "description", "features", "reviews", "buy now"]);

/** The goal's option values as the product spells them (human goals may word them loosely). */
function optionTargets(goal: WebShopGoal, productOptions: readonly string[]): string[] {
  if (goal.optionsByName !== undefined) return Object.values(goal.optionsByName);
  const out: string[] = [];
  for (const want of goal.goalOptions) {
    let best: string | undefined;
    let bestScore = 85;
    for (const v of productOptions) {
      // Compared as the reward compares them: after colour normalisation.
      const sc = tokenSetRatio(normalizeColor(v), normalizeColor(want));
      if (sc > bestScore) [best, bestScore] = [v, sc];
    }
    if (best !== undefined) out.push(best);
  }
  return out;
}

type Visit = { chosen: Set<string> };

/** Whether two action strings do the same thing in the environment (which lower-cases the argument). */
function sameAction(a: string, b: string): boolean {
  const x = parseAction(a), y = parseAction(b);
  return x.name === y.name && x.arg?.toLowerCase() === y.arg?.toLowerCase();
}

class WebShopExpert implements Expert {
  private readonly goal: WebShopGoal;
  private readonly titlePart: string;
  private searches = 0;
  private visit: Visit | undefined;
  private enteredGoalItem = false;

  constructor(goal: WebShopGoal) {
    this.goal = goal;
    this.titlePart = textPart(goal.name) ?? "";
  }

  act(obs: Observation): string {
    const acts = new Set(obs.admissible ?? []);
    const has = (a: string): boolean => acts.has(a);
    if (has(SEARCH_ACTION)) {
      this.visit = undefined;
      this.searches++;
      // First the instruction's words; if that failed, the product's own title, then its query.
      const tries = [goalQuery(this.goal.instructionText), searchable(this.goal.name), searchable(this.goal.query)].filter((q) => q !== "");
      return `search[${tries[Math.min(this.searches, tries.length) - 1] ?? "item"}]`;
    }
    if (has("click[buy now]")) return this.onItemPage(obs, acts);
    if (has("click[next >]")) return this.onResultsPage(obs, has);
    // A sub-page (options stay chosen there): back to the item page.
    if (has("click[< prev]")) return "click[< prev]";
    return "click[back to search]";
  }

  private onResultsPage(obs: Observation, has: (a: string) => boolean): string {
    this.visit = undefined;
    const asinClick = `click[${this.goal.asin.toLowerCase()}]`;
    this.enteredGoalItem = has(asinClick);
    if (this.enteredGoalItem) return asinClick;
    const m = /Page (\d+) \(Total results: (\d+)\)/.exec(obs.text);
    const page = m ? Number(m[1]) : 1;
    const total = m ? Number(m[2]) : 0;
    if (page < MAX_RESULT_PAGES && page * 10 < total) return "click[next >]";
    return "click[back to search]";
  }

  /**
   * Follows an action taken at `obs` by someone else (a replayed trajectory): the expert's own
   * choice changes its memory as `act` does; another action changes only what that action did.
   * A search with another query does not count as one of its own tries; clicking into a product
   * other than the goal's leaves it knowing it did not enter the goal's; on the goal's item page a
   * target option is remembered as chosen, and any other option click makes it forget every choice
   * (the page does not say which option group a value belongs to, so that click may have replaced
   * one of its targets; re-clicking a selected value is harmless and costs a step).
   */
  follow(obs: Observation, action: string): void {
    const saved = { searches: this.searches, visit: this.visit && { chosen: new Set(this.visit.chosen) }, entered: this.enteredGoalItem };
    if (sameAction(this.act(obs), action)) return;
    [this.searches, this.visit, this.enteredGoalItem] = [saved.searches, saved.visit, saved.entered];
    const acts = new Set(obs.admissible ?? []);
    // The same page dispatch as `act`.
    if (acts.has(SEARCH_ACTION)) {
      this.visit = undefined;
    } else if (acts.has("click[buy now]")) {
      if (!this.isGoalProduct(obs)) {
        this.visit = undefined;
        this.enteredGoalItem = false;
        return;
      }
      const { name, arg } = parseAction(action);
      const value = (arg ?? "").toLowerCase();
      if (name !== "click" || BUTTONS.has(value) || !acts.has(`click[${value}]`)) return;
      const values = [...acts].filter((a) => a.startsWith("click[")).map((a) => a.slice(6, -1)).filter((v) => !BUTTONS.has(v));
      this.visit ??= { chosen: new Set() };
      if (optionTargets(this.goal, values).includes(value)) this.visit.chosen.add(value);
      else this.visit.chosen.clear();
    } else if (acts.has("click[next >]")) {
      this.visit = undefined;
      this.enteredGoalItem = sameAction(action, `click[${this.goal.asin.toLowerCase()}]`);
    }
  }

  // The item page shows no ASIN: recognise the product by its title, or, for a product without
  // one, by having clicked the goal's ASIN to get here.
  private isGoalProduct(obs: Observation): boolean {
    return this.titlePart !== "" ? obs.text.includes(` [SEP] ${this.titlePart} [SEP] Price: `) : this.enteredGoalItem;
  }

  private onItemPage(obs: Observation, acts: ReadonlySet<string>): string {
    if (!this.isGoalProduct(obs)) {
      this.visit = undefined;
      this.enteredGoalItem = false;
      return "click[< prev]";
    }
    this.visit ??= { chosen: new Set() };
    const values = [...acts].filter((a) => a.startsWith("click[")).map((a) => a.slice(6, -1)).filter((v) => !BUTTONS.has(v));
    for (const v of optionTargets(this.goal, values)) {
      // A value holding brackets cannot be clicked (the action pattern splits it): skip it.
      if (!this.visit.chosen.has(v) && acts.has(`click[${v}]`) && parseAction(`click[${v}]`).arg === v) {
        this.visit.chosen.add(v);
        return `click[${v}]`;
      }
    }
    return "click[buy now]";
  }
}

/**
 * The expert of a WebShop task (an `ExpertFactory`).
 * @example
 * const expert = webshopExpert(task, seed);
 * let obs = env.reset(task, seed);
 * while (!done) ({ observation: obs, done } = env.step(expert.act(obs)));
 */
export function webshopExpert(task: TaskSpec, _seed: number): Expert {
  const goal = (task.payload as WebShopTaskPayload).goal;
  return new WebShopExpert(goal);
}

/**
 * A random available action for the noisy expert: uniform over the list, with the search entry
 * turned into a search for a few random words of the instruction (the literal
 * `search[<your query>]` would search for "<your query>").
 */
export const webshopRandomAction: RandomAction = (obs: Observation, rng: Rng): string => {
  const list = obs.admissible ?? [];
  if (list.length === 0) return "";
  const a = rng.choice(list);
  if (a !== SEARCH_ACTION) return a;
  const words = goalQuery(obs.task).split(" ").filter((w) => w !== "");
  if (words.length === 0) return "search[item]";
  const k = 1 + rng.int(Math.min(4, words.length));
  return `search[${rng.shuffle([...words]).slice(0, k).join(" ")}]`;
};
