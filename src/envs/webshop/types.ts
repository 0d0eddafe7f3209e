/**
 * WebShop data types: the raw product record of the benchmark's catalogue files
 * (the fields upstream's `load_products` reads), the cleaned product the engine works with, and the
 * shopping goal
 * (upstream `goal.py`). Plain data only: loading rules live in `catalog.ts`, goal rules in `goals.ts`.
 */

/** One option entry of a raw product (`customization_options.Color[i]`). */
export type RawOptionEntry = { readonly value: string; readonly image?: string | null };

/**
 * A product exactly as stored in `items_shuffle_1000.json` (fields the engine reads; the file
 * carries more, which are ignored). The generator writes this same shape.
 */
export type RawProduct = {
  readonly asin: string;
  readonly name: string;
  readonly full_description: string;
  /** Bullet strings; a plain string is accepted and wrapped (upstream rule). */
  readonly small_description: readonly string[] | string;
  /** `"$12.99"`, `"$12.99 - $15.99"`, `"$19.99$27.99"` or `""`. */
  readonly pricing?: string | null;
  /** `{ "Color": [{ "value": "Red", "image": "..." }] }`, or `""` for none; a `null` list is skipped. */
  readonly customization_options: Readonly<Record<string, readonly RawOptionEntry[] | null>> | "";
  /** `"A › B › C"`. */
  readonly product_category: string;
  /** beauty | fashion | grocery | electronics | garden in the real file. */
  readonly category: string;
  readonly query: string;
  readonly images?: readonly string[];
  /** Not in the real file; the generator stores its per-product attributes here (see `Product.attributes`). */
  readonly attributes?: readonly string[];
};

/** One option group of a cleaned product, in catalogue order. */
export type OptionGroup = {
  /** Lower-cased option name (`color`, `size`). */
  readonly name: string;
  /** Values after `strip().replace('/', ' | ').lower()`. */
  readonly values: readonly string[];
};

/** A product after WebShop's loading rules (`load_products`). Field names follow the benchmark's keys. */
export type Product = {
  readonly asin: string;
  /** `name` of the raw record; the type reward tags its nouns. */
  readonly name: string;
  /** = `name`. */
  readonly title: string;
  /** = `full_description`. */
  readonly description: string;
  /** = `small_description`, wrapped in a list when it was a string. */
  readonly bulletPoints: readonly string[];
  /** Parsed price numbers: `[100]` when the record had none, one value, or `[low, high]`. */
  readonly pricing: readonly number[];
  /** The price text the pages show: `$12.99`, `$100.0`, `$12.99 to $15.99`. */
  readonly priceTag: string;
  readonly options: readonly OptionGroup[];
  /** Attribute phrases used by the attribute reward; `['DUMMY_ATTR']` when unknown (upstream rule). */
  readonly attributes: readonly string[];
  readonly category: string;
  /** `query.lower().strip()`. */
  readonly query: string;
  readonly productCategory: string;
  /** Always `N.A.` for these catalogues (no review file ships). */
  readonly rating: string;
  /** Review texts shown on the Reviews sub-page; empty for these catalogues. */
  readonly reviews: readonly string[];
};

/** Where a goal came from. */
export type GoalSource = "synthetic" | "human";

/**
 * A shopping goal (upstream `goal.py`): the instruction the agent sees and what the reward compares
 * against.
 * `goalOptions` holds option values (synthetic goals: one per option group, in sorted name
 * order; human goals: the annotated `instruction_options`).
 */
export type WebShopGoal = {
  readonly asin: string;
  readonly category: string;
  readonly query: string;
  /** Title of the target product; the type reward compares nouns against it. */
  readonly name: string;
  readonly productCategory: string;
  readonly instructionText: string;
  readonly attributes: readonly string[];
  /** Price limit; 1,000,000 when no price clause was added. */
  readonly priceUpper: number;
  readonly goalOptions: readonly string[];
  /** Synthetic goals: option name → value (the combination the instruction names). */
  readonly optionsByName?: Readonly<Record<string, string>>;
  /** Sampling weight (synthetic: mean inverse attribute frequency; human: 1). */
  readonly weight: number;
  readonly source: GoalSource;
};

/** Task payload of a WebShop `TaskSpec`: the goal and its index in the shop's shuffled goal list. */
export type WebShopTaskPayload = { readonly goal: WebShopGoal; readonly goalIndex: number };
