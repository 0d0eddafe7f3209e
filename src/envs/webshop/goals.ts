/**
 * WebShop goals (upstream `web_agent_site/engine/goal.py`): the price clause, synthetic goals
 * (one per option combination of a product that has an instruction), human goals (one per
 * annotated human instruction), the fixed shuffle, and the fixed splits. Every draw is seeded:
 * the price clause of a product by (seed, ASIN), the shuffle by one seed (233, as upstream;
 * our generator, so the order differs from Python's).
 */
import { DataError } from "../../core/errors.ts";
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { Product, WebShopGoal } from "./types.ts";

/** Price limits a goal may name: 10, 20, …, 990 (upstream `PRICE_RANGE`). */
export const PRICE_RANGE: readonly number[] = Array.from({ length: 99 }, (_, i) => 10 * (i + 1));

/** Limit used when a goal has no price clause. */
export const NO_PRICE_LIMIT = 1_000_000;

/** Seed of the goal shuffle (upstream `random.seed(233)`). */
export const GOAL_SHUFFLE_SEED = 233;

/**
 * The price clause of a goal: the first four limits strictly above the price; with at least two,
 * the larger of two drawn without replacement, else no clause and a limit of 1,000,000.
 * @example priceClause(23.5, rng).suffix // one of ", and price lower than {40,50,60}.00 dollars"
 */
export function priceClause(price: number, rng: Rng): { priceUpper: number; suffix: string } {
  const candidates = PRICE_RANGE.filter((p) => p > price).slice(0, 4);
  if (candidates.length < 2) return { priceUpper: NO_PRICE_LIMIT, suffix: "" };
  const i = rng.int(candidates.length);
  let j = rng.int(candidates.length - 1);
  if (j >= i) j++;
  const upper = Math.max(candidates[i]!, candidates[j]!);
  return { priceUpper: upper, suffix: `, and price lower than ${upper.toFixed(2)} dollars` };
}

/** A product's synthetic instruction and the attributes it names (upstream `items_ins_v2` entry). */
export type ProductInstruction = { readonly instruction: string; readonly attributes: readonly string[] };

/** One annotated human instruction (a record of `items_human_ins.json`). */
export type HumanInstruction = {
  readonly asin: string;
  readonly instruction: string;
  readonly instructionAttributes: readonly string[];
  readonly instructionOptions: readonly string[];
  /** The product's attributes as the annotation lists them (`attributes` of the record). */
  readonly productAttributes: readonly string[];
};

function priceRng(seed: number, asin: string, k = 0): Rng {
  return Rng.from(deriveSeed(seed, "webshop/goal-price", asin, k));
}

function priceOf(prices: ReadonlyMap<string, number>, asin: string): number {
  const p = prices.get(asin);
  if (p === undefined) throw new DataError(`no price for product ${asin}`);
  return p;
}

function cartesian(lists: readonly (readonly string[])[]): string[][] {
  let out: string[][] = [[]];
  for (const l of lists) out = out.flatMap((prefix) => l.map((v) => [...prefix, v]));
  return out;
}

/**
 * Synthetic goals: for every product with an instruction, one goal per combination of its
 * option values (option names sorted; the last name varies fastest), worded
 * `"{instruction} with name1: v1, and name2: v2{price clause}"`. All goals of a product share
 * one price clause. Weight = mean over the goal's attributes of 1 / (goals carrying it).
 */
export function syntheticGoals(
  products: readonly Product[],
  prices: ReadonlyMap<string, number>,
  instructions: ReadonlyMap<string, ProductInstruction>,
  seed: number,
): WebShopGoal[] {
  const goals: WebShopGoal[] = [];
  const count = new Map<string, number>();
  for (const p of products) {
    const ins = instructions.get(p.asin);
    if (ins === undefined) continue;
    if (ins.attributes.length === 0) throw new DataError(`instruction of ${p.asin} names no attribute`);
    const { priceUpper, suffix } = priceClause(priceOf(prices, p.asin), priceRng(seed, p.asin));
    const groups = [...p.options].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const combo of cartesian(groups.map((g) => g.values))) {
      const byName: Record<string, string> = {};
      groups.forEach((g, i) => (byName[g.name] = combo[i]!));
      const optionText = groups.map((g, i) => `${g.name}: ${combo[i]}`).join(", and ");
      goals.push({
        asin: p.asin,
        category: p.category,
        query: p.query,
        name: p.title,
        productCategory: p.productCategory,
        instructionText: `${ins.instruction}${optionText ? ` with ${optionText}` : ""}${suffix}`,
        attributes: [...ins.attributes],
        priceUpper,
        goalOptions: combo,
        optionsByName: byName,
        weight: 0,
        source: "synthetic",
      });
      for (const a of ins.attributes) count.set(a, (count.get(a) ?? 0) + 1);
    }
  }
  return goals.map((g) => ({ ...g, weight: g.attributes.reduce((s, a) => s + 1 / count.get(a)!, 0) / g.attributes.length }));
}

function stripDots(s: string): string {
  return s.replace(/^\.+|\.+$/g, "");
}

/**
 * Human goals: one per human instruction of a catalogue product with at least one instruction
 * attribute, worded `instruction.strip('.') + price clause`, each with its own price draw.
 */
export function humanGoals(
  products: readonly Product[],
  prices: ReadonlyMap<string, number>,
  human: ReadonlyMap<string, readonly HumanInstruction[]>,
  seed: number,
): WebShopGoal[] {
  const goals: WebShopGoal[] = [];
  for (const p of products) {
    const list = human.get(p.asin) ?? [];
    list.forEach((h, k) => {
      if (h.instructionAttributes.length === 0) return;
      const { priceUpper, suffix } = priceClause(priceOf(prices, p.asin), priceRng(seed, p.asin, k));
      goals.push({
        asin: p.asin,
        category: p.category,
        query: p.query,
        name: p.name,
        productCategory: p.productCategory,
        instructionText: stripDots(h.instruction) + suffix,
        attributes: [...h.instructionAttributes],
        priceUpper,
        goalOptions: [...h.instructionOptions],
        weight: 1,
        source: "human",
      });
    });
  }
  return goals;
}

/** The fixed goal order: a seeded shuffle (goal index i of a shop is position i of this list). */
export function shuffleGoals(goals: readonly WebShopGoal[], seed = GOAL_SHUFFLE_SEED): WebShopGoal[] {
  return Rng.from(deriveSeed(seed, "webshop/goal-shuffle")).shuffle([...goals]);
}

/** Named goal splits of a shop. */
export type GoalSplit = "test" | "train" | "all";

/** Where the splits lie in the shuffled goal list. */
export type SplitLayout = {
  /**
   * Number of fixed evaluation goals, indices [0, testSize). The project evaluates on 128 goals
   * (the verl-agent validation batch) taken from the head of upstream's 0–499 test pool.
   * @default 128
   */
  readonly testSize: number;
  /**
   * First training index. Upstream reserves 0–499 for testing and trains on 500 onward; a small
   * generated catalogue starts training right after the test goals instead.
   */
  readonly trainStart: number;
};

/** Index range [start, end) of a split over `n` shuffled goals. */
export function splitRange(split: GoalSplit, n: number, layout: SplitLayout): [number, number] {
  if (split === "all") return [0, n];
  if (split === "test") return [0, Math.min(layout.testSize, n)];
  return [Math.min(Math.max(layout.trainStart, layout.testSize), n), n];
}
