/**
 * WebShop's purchase score (ENVIRONMENTS.md §3.6, upstream `goal.py: get_reward`):
 *   score = (attributes matched + options matched + [price <= limit]) / (|attrs| + |options| + 1) · r_type.
 * Two recorded deviations: nouns come from the heuristic tagger in `nouns.ts` instead of spaCy,
 * and option matching compares option values (upstream iterates a synthetic goal's
 * `(name, value)` pairs, a quirk). Success is a score of exactly 1.0.
 */
import { normalizeColor } from "./colors.ts";
import { tokenSetRatio } from "./fuzz.ts";
import { nouns } from "./nouns.ts";
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

/** How many goal option values some chosen option value matches, after colour normalisation. */
export function optionMatches(chosen: readonly string[], goalOptions: readonly string[]): number {
  const picked = chosen.map(normalizeColor);
  let n = 0;
  for (const g of goalOptions.map(normalizeColor)) if (picked.some((p) => tokenSetRatio(p, g) > FUZZY_THRESHOLD)) n++;
  return n;
}

/**
 * Score a purchase.
 * @param price   the bought product's actual price (one draw for ranged prices)
 * @param chosen  the option values selected on the item page when Buy Now was clicked
 */
export function webshopReward(bought: Product, goal: WebShopGoal, price: number, chosen: readonly string[]): RewardBreakdown {
  const t = typeReward(bought, goal);
  const nAttr = attributeMatches(bought, goal);
  const nOpt = optionMatches(chosen, goal.goalOptions);
  const priceOk = price <= goal.priceUpper;
  const score = ((nAttr + nOpt + (priceOk ? 1 : 0)) / (goal.attributes.length + goal.goalOptions.length + 1)) * t.rType;
  return { score, ...t, attributeMatches: nAttr, optionMatches: nOpt, priceOk };
}
