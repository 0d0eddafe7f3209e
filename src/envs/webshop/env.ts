/**
 * The WebShop environment in text mode (`princeton-nlp/WebShop`): a shopping session over a `Shop`,
 * stepping with `search[keywords]` / `click[target]` exactly as `web_agent_text_env.py` parses
 * and dispatches them, observations rendered by `pages.ts`, the verl-agent available-actions
 * list, the purchase score of `reward.ts`, and the SEED wrapper's reward (10 iff the score is
 * exactly 1.0). Any other string leaves the page unchanged with reward 0. The episode ends at
 * Buy Now or after `maxSteps` actions (15), counted whether recognised or not.
 *
 * The reset seed changes nothing: prices are drawn once per shop, and nothing else is random.
 */
import { DataError, EnvStateError } from "../../core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../env.ts";
import {
  RESULTS_PER_PAGE, SUB_PAGES, renderDonePage, renderItemPage, renderResultsPage, renderSearchPage, renderSubPage,
  type RenderedPage, type SubPage,
} from "./pages.ts";
import { webshopReward, type OptionRule, type RewardBreakdown } from "./reward.ts";
import type { Shop } from "./shop.ts";
import type { Product, WebShopGoal, WebShopTaskPayload } from "./types.ts";

/** The search-box entry of the available-actions list (verl-agent `format_avail_actions`). */
export const SEARCH_ACTION = "search[<your query>]";

/** Reward of a successful purchase (SEED wrapper: 10 iff done and score == 1.0). */
export const WEBSHOP_SUCCESS_REWARD = 10;

/**
 * Split an action into name and argument with the benchmark's pattern `(.+)\[(.+)\]` applied by
 * `re.match` (anchored at the start, `.` stops at a newline, both groups greedy): the argument
 * runs from the last `[` that still leaves a non-empty argument to the last `]` of the first
 * line. Linear time, so a 100,000-character action is cheap. `arg` is `null` when the pattern
 * does not match (then the name is the whole action).
 * @example parseAction("click[< Prev]") // { name: "click", arg: "< Prev" }
 */
export function parseAction(action: string): { name: string; arg: string | null } {
  const nl = action.indexOf("\n");
  const line = nl < 0 ? action : action.slice(0, nl);
  const close = line.lastIndexOf("]");
  if (close >= 3) {
    const open = line.lastIndexOf("[", close - 2);
    if (open >= 1) return { name: line.slice(0, open), arg: line.slice(open + 1, close) };
  }
  return { name: action, arg: null };
}

type Page = "search" | "results" | "item" | "sub" | "done";

type Session = {
  readonly goal: WebShopGoal;
  page: Page;
  keywords: string | null;
  resultsPage: number;
  asin: string | null;
  /** Chosen options, option group → value, in the order first chosen (Python dict). */
  options: Map<string, string>;
  sub: SubPage;
  rendered: RenderedPage;
  steps: number;
  done: boolean;
  score: number;
  breakdown: RewardBreakdown | undefined;
};

/** Options of `WebShopEnv`. */
export type WebShopEnvOptions = {
  /** Step limit (SEED/verl-agent WebShop). @default 15 */
  readonly maxSteps?: number;
  /**
   * How the purchase score compares goal options: `upstream` compares a synthetic goal's
   * `(name, value)` pairs as upstream's `goal.py` does; `values` compares option values only
   * (more lenient; not the benchmark). @default "upstream"
   */
  readonly optionRule?: OptionRule;
};

function goalOf(task: TaskSpec): WebShopGoal {
  const p = task.payload as Partial<WebShopTaskPayload> | null;
  const g = p?.goal as Partial<WebShopGoal> | undefined;
  if (g === undefined || g === null || typeof g.asin !== "string" || typeof g.instructionText !== "string" || !Array.isArray(g.goalOptions) || !Array.isArray(g.attributes)) {
    throw new DataError(`webshop task '${task.id}' needs a payload { goal, goalIndex } made by Shop.tasks()`);
  }
  return g as WebShopGoal;
}

/**
 * One WebShop session at a time over a shared `Shop`.
 * @example
 * const shop = generatedShop();
 * const env = new WebShopEnv(shop);
 * const obs = env.reset(shop.tasks("test")[0]!, 0); // "WebShop [SEP] Instruction: [SEP] ... [SEP] Search"
 * env.step("search[sulfate free shampoo]");
 */
export class WebShopEnv implements Env {
  readonly id = "webshop";
  readonly maxSteps: number;
  readonly rewardRange = [0, WEBSHOP_SUCCESS_REWARD] as const;
  readonly shop: Shop;
  readonly optionRule: OptionRule;
  private s: Session | undefined;

  constructor(shop: Shop, options: WebShopEnvOptions = {}) {
    this.shop = shop;
    this.maxSteps = options.maxSteps ?? 15;
    this.optionRule = options.optionRule ?? "upstream";
    if (this.optionRule !== "upstream" && this.optionRule !== "values") throw new RangeError(`optionRule must be 'upstream' or 'values', got '${String(this.optionRule)}'`);
    if (!Number.isInteger(this.maxSteps) || this.maxSteps < 1) throw new RangeError(`maxSteps must be a positive integer, got ${this.maxSteps}`);
  }

  /** The purchase score breakdown of the finished episode, if it ended with Buy Now. */
  get lastReward(): RewardBreakdown | undefined {
    return this.s?.breakdown;
  }

  /** Where the session is: page kind, current product, chosen options, steps taken. */
  get state(): { page: Page; asin: string | null; options: ReadonlyMap<string, string>; steps: number; done: boolean } | undefined {
    const s = this.s;
    return s && { page: s.page, asin: s.asin, options: new Map(s.options), steps: s.steps, done: s.done };
  }

  reset(task: TaskSpec, _seed: number): Observation {
    const goal = goalOf(task);
    if (this.shop.product(goal.asin) === undefined) throw new DataError(`webshop task '${task.id}': product ${goal.asin} is not in shop '${this.shop.name}'`);
    this.s = {
      goal, page: "search", keywords: null, resultsPage: 1, asin: null, options: new Map(), sub: "Description",
      rendered: renderSearchPage(goal.instructionText), steps: 0, done: false, score: 0, breakdown: undefined,
    };
    return this.observation();
  }

  step(action: string): StepResult {
    const s = this.s;
    if (s === undefined) throw new EnvStateError("webshop: step() before reset()");
    if (s.done) throw new EnvStateError("webshop: the episode has ended (Buy Now or step limit); call reset()");
    s.steps++;
    const { name, arg: rawArg } = parseAction(action);
    const arg = rawArg === null ? null : rawArg.toLowerCase();
    let recognized = false;
    if (name === "search" && arg !== null && arg !== "") {
      this.showResults(arg, 1);
      recognized = true;
    } else if (name === "click" && arg !== null && arg !== "search" && s.rendered.clickables.has(arg)) {
      this.click(arg);
      recognized = true;
    }
    if (!s.done && s.steps >= this.maxSteps) s.done = true;
    const won = s.page === "done" && s.score === 1;
    return {
      observation: this.observation(),
      reward: won ? WEBSHOP_SUCCESS_REWARD : 0,
      done: s.done,
      won,
      score: s.score,
      actionRecognized: recognized,
    };
  }

  private observation(): Observation {
    const s = this.s!;
    const admissible: string[] = s.rendered.hasSearchBar ? [SEARCH_ACTION] : [];
    for (const k of s.rendered.clickables.keys()) admissible.push(`click[${k}]`);
    return { text: s.rendered.text, admissible, task: s.goal.instructionText };
  }

  private product(): Product {
    const s = this.s!;
    const p = s.asin === null ? undefined : this.shop.product(s.asin);
    if (p === undefined) throw new EnvStateError(`webshop: no current product (asin ${s.asin})`);
    return p;
  }

  private showResults(keywords: string, page: number): void {
    const s = this.s!;
    s.keywords = keywords;
    s.resultsPage = page;
    s.asin = null;
    s.options = new Map();
    s.page = "results";
    const hits = this.shop.engine.search(keywords);
    const shown = hits.slice((page - 1) * RESULTS_PER_PAGE, page * RESULTS_PER_PAGE);
    s.rendered = renderResultsPage(s.goal.instructionText, page, hits.length, shown);
  }

  private showItem(): void {
    const s = this.s!;
    s.page = "item";
    s.rendered = renderItemPage(s.goal.instructionText, this.product());
  }

  /** Dispatch a click in the order of upstream `SimServer.receive`. */
  private click(target: string): void {
    const s = this.s!;
    const instruction = s.goal.instructionText;
    if (target === "buy now") {
      const product = this.product();
      const b = webshopReward(product, s.goal, this.shop.price(product.asin), [...s.options.values()], this.optionRule);
      s.breakdown = b;
      s.score = b.score;
      s.done = true;
      s.page = "done";
      s.rendered = renderDonePage(b.score);
    } else if (target === "back to search") {
      s.page = "search";
      s.keywords = null;
      s.asin = null;
      s.options = new Map();
      s.rendered = renderSearchPage(instruction);
    } else if (target === "next >" && s.page === "results") {
      this.showResults(s.keywords ?? "", s.resultsPage + 1);
    } else if (target === "< prev" && s.page === "results") {
      this.showResults(s.keywords ?? "", s.resultsPage - 1);
    } else if (target === "< prev" && s.page === "sub") {
      this.showItem();
    } else if (target === "< prev" && s.page === "item") {
      this.showResults(s.keywords ?? "", s.resultsPage);
    } else if (SUB_PAGES.some((p) => p.toLowerCase() === target) || target === "attributes") {
      const sub = SUB_PAGES.find((p) => p.toLowerCase() === target) ?? "Description";
      s.sub = sub;
      s.page = "sub";
      s.rendered = renderSubPage(instruction, this.product(), sub);
    } else {
      const c = s.rendered.clickables.get(target)!;
      if (c.kind === "product") s.asin = c.asin;
      else if (c.kind === "option") s.options.set(c.group, target);
      this.showItem();
    }
  }
}
