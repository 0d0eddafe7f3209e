/**
 * WebShop's purchase score (upstream `web_agent_site/engine/goal.py: get_reward`):
 *   score = (attributes matched + options matched + [price <= limit]) / (|attrs| + |options| + 1) · r_type.
 * Option matching follows upstream exactly by default: a synthetic goal's options are a dict
 * whose `.items()` upstream passes on, so each goal option compared is the `(name, value)` tuple,
 * which `normalize_color` tests by element equality and thefuzz turns into text with `str()`
 * (`"('color', 'navy blue')"`). `optionRule: "values"` compares the option values instead (the
 * rule this port used before; it credits about 5% of synthetic goals that upstream can never
 * fully match and credits wrong values nearly twice as often). Success is a score of exactly 1.0.
 */
import { COLOR_SET, normalizeColor } from "./colors.ts";
import { tokenSetRatio } from "./fuzz.ts";
import { nouns } from "./nouns.ts";
import { pyStrRepr } from "./py-text.ts";
import type { Product, WebShopGoal } from "./types.ts";

/** The score and its parts, for diagnostics and tests. */
export type RewardBreakdown = {
  readonly score: number;
  readonly rType: number;
  readonly queryMatch: boolean;
  readonly categoryMatch: boolean;
  readonly titleScore: number;
  readonly attributeMatches: number;
  readonly optionMatches: number;
  readonly priceOk: boolean;
};

/** Fuzzy threshold of attribute and option matches (`token_set_ratio > 85`). */
export const FUZZY_THRESHOLD = 85;

function categoryParts(pc: string): Set<string> {
  return new Set(pc.split("›").map((x) => x.trim()));
}

/** The type factor r_type and what decided it (upstream `get_type_reward`). */
export function typeReward(bought: Product, goal: WebShopGoal): Pick<RewardBreakdown, "rType" | "queryMatch" | "categoryMatch" | "titleScore"> {
  const queryMatch = bought.query === goal.query;
  const goalCats = categoryParts(goal.productCategory);
  let shared = 0;
  for (const c of categoryParts(bought.productCategory)) if (goalCats.has(c)) shared++;
  const categoryMatch = shared >= 2;
  const desired = nouns(goal.name);
  const boughtNouns = new Set(nouns(bought.name));
  const desiredSet = new Set(desired);
  let common = 0;
  for (const t of desiredSet) if (boughtNouns.has(t)) common++;
  const titleScore = desired.length === 0 ? 0.2 : common / desired.length;
  let rType = 1.0;
  if (!(queryMatch || categoryMatch || titleScore > 0.2)) rType = 0.5;
  if (titleScore < 0.1) rType = 0.1;
  if (titleScore === 0) rType = 0.0;
  return { rType, queryMatch, categoryMatch, titleScore };
}

// Lower-cased title, bullets and description per product, computed once (descriptions are long).
const lowerTexts = new WeakMap<Product, readonly string[]>();

function textsOf(p: Product): readonly string[] {
  let t = lowerTexts.get(p);
  if (t === undefined) {
    t = [p.title.toLowerCase(), p.bulletPoints.join(" ").toLowerCase(), p.description.toLowerCase()];
    lowerTexts.set(p, t);
  }
  return t;
}

/** How many goal attributes the bought product carries (fuzzy against its attributes, else a substring of its texts). */
export function attributeMatches(bought: Product, goal: WebShopGoal): number {
  let n = 0;
  for (const g of goal.attributes) {
    if (bought.attributes.some((p) => tokenSetRatio(p, g) > FUZZY_THRESHOLD)) n++;
    else if (textsOf(bought).some((t) => t.includes(g))) n++;
  }
  return n;
}

/**
 * How goal options are compared with the chosen ones: `upstream` (default) as `goal.py` does,
 * a synthetic goal's `(name, value)` pairs as tuples; `values` the option values alone.
 */
export type OptionRule = "upstream" | "values";

/** A goal option as upstream's `get_option_reward` sees it: a string, or a synthetic goal's `(name, value)` tuple. */
export type GoalOptionItem = string | readonly [name: string, value: string];

/** The goal options a purchase is compared against under a rule (human goals: always their strings). */
export function goalOptionItems(goal: WebShopGoal, rule: OptionRule = "upstream"): GoalOptionItem[] {
  if (rule === "upstream" && goal.optionsByName !== undefined) return Object.entries(goal.optionsByName);
  return [...goal.goalOptions];
}

/**
 * `normalize_color` on a goal option: substring search for a string; for a tuple, Python's `in`
 * is element equality, so only an element that is exactly a colour word normalises, and any
 * other tuple stays whole and is compared as `str(tuple)`.
 */
function normalizeGoalOption(g: GoalOptionItem): string {
  if (typeof g === "string") return normalizeColor(g);
  const color = COLOR_SET.find((c) => c === g[0] || c === g[1]);
  return color ?? `(${pyStrRepr(g[0])}, ${pyStrRepr(g[1])})`;
}

/** How many goal options some chosen option value matches (`token_set_ratio > 85` after colour normalisation). */
export function optionMatches(chosen: readonly string[], goalOptions: readonly GoalOptionItem[]): number {
  const picked = chosen.map(normalizeColor);
  let n = 0;
  for (const g of goalOptions.map(normalizeGoalOption)) if (picked.some((p) => tokenSetRatio(p, g) > FUZZY_THRESHOLD)) n++;
  return n;
}

/**
 * Whether choosing exactly a goal's own option values credits all its options under a rule.
 * Under `upstream` a synthetic goal fails this when a value holds a colour word inside a longer
 * word (`standard` normalises to `tan`, which the tuple's tokens lack): no purchase wins it.
 */
export function goalOptionsCreditable(goal: WebShopGoal, rule: OptionRule = "upstream"): boolean {
  return optionMatches(goal.goalOptions, goalOptionItems(goal, rule)) === goal.goalOptions.length;
}

/**
 * Score a purchase.
 * @param price   the bought product's actual price (one draw for ranged prices)
 * @param chosen  the option values selected on the item page when Buy Now was clicked
 * @param rule    how goal options are compared (see `OptionRule`)
 */
export function webshopReward(bought: Product, goal: WebShopGoal, price: number, chosen: readonly string[], rule: OptionRule = "upstream"): RewardBreakdown {
  const t = typeReward(bought, goal);
  const nAttr = attributeMatches(bought, goal);
  const nOpt = optionMatches(chosen, goalOptionItems(goal, rule));
  const priceOk = price <= goal.priceUpper;
  const score = ((nAttr + nOpt + (priceOk ? 1 : 0)) / (goal.attributes.length + goal.goalOptions.length + 1)) * t.rType;
  return { score, ...t, attributeMatches: nAttr, optionMatches: nOpt, priceOk };
}
