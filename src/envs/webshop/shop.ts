/**
 * A shop: the cleaned products, their actual prices, the search engine, and the shuffled goal
 * list with its fixed splits: everything a `WebShopEnv` serves, built once and shared by any
 * number of environments (it holds no episode state). Two builders: `generatedShop` (the
 * embedded default, no files) and `realShop` (the benchmark's files).
 */
import { DataError, UsageError } from "../../core/errors.ts";
import type { TaskSpec } from "../env.ts";
import { cleanProducts, productPrices } from "./catalog.ts";
import { loadAttributesFile, loadCatalogFile, loadHumanInstructionsFile } from "./data-files.ts";
import { deriveInstructions } from "./derive.ts";
import { generateCatalog, type GeneratorOptions } from "./generator.ts";
import {
  humanGoals, shuffleGoals, splitRange, syntheticGoals, type GoalSplit, type HumanInstruction, type SplitLayout,
} from "./goals.ts";
import { ProductSearch } from "./search-engine.ts";
import type { Product, WebShopGoal, WebShopTaskPayload } from "./types.ts";

/** Number of fixed evaluation goals (the verl-agent validation batch). */
export const TEST_GOALS = 128;

/** Names of the goal splits, for error messages. */
export const GOAL_SPLITS: readonly GoalSplit[] = ["test", "train", "all"];

/**
 * Products, prices, search and goals of one catalogue.
 * @example
 * const shop = generatedShop({ products: 100, seed: 0 });
 * const tasks = shop.tasks("test");           // the 128 fixed evaluation goals
 * const env = new WebShopEnv(shop);
 */
export class Shop {
  /** Short name used in task ids (`generated-s0-n100`, `real`). */
  readonly name: string;
  readonly products: readonly Product[];
  readonly prices: ReadonlyMap<string, number>;
  /** Goals in their fixed shuffled order; goal index i is position i. */
  readonly goals: readonly WebShopGoal[];
  readonly layout: SplitLayout;
  readonly engine: ProductSearch;
  /** Where the products came from (the catalogue file), for error messages; "" for generated shops. */
  readonly source: string;
  private readonly byAsin: Map<string, Product>;

  constructor(init: { name: string; products: readonly Product[]; prices: ReadonlyMap<string, number>; goals: readonly WebShopGoal[]; layout: SplitLayout; source?: string }) {
    this.name = init.name;
    this.source = init.source ?? "";
    this.products = init.products;
    this.prices = init.prices;
    this.goals = init.goals;
    this.layout = init.layout;
    this.byAsin = new Map(init.products.map((p) => [p.asin, p]));
    this.engine = new ProductSearch(init.products);
    for (const g of init.goals) if (!this.byAsin.has(g.asin)) throw new DataError(`${this.where()}: a goal names product ${g.asin}, which is not in the catalogue`);
  }

  private where(): string {
    return this.source === "" ? `shop '${this.name}'` : `${this.source} (shop '${this.name}')`;
  }

  /** The product with this ASIN, if any. */
  product(asin: string): Product | undefined {
    return this.byAsin.get(asin);
  }

  /** The actual price of a product (one draw for ranged prices). */
  price(asin: string): number {
    return this.prices.get(asin) ?? 100;
  }

  /** Index range [start, end) of a split. */
  splitRange(split: GoalSplit): [number, number] {
    return splitRange(split, this.goals.length, this.layout);
  }

  /** The task of goal index i. */
  task(i: number, split = "all"): TaskSpec {
    const goal = this.goals[i];
    if (goal === undefined) throw new UsageError(`${this.where()}: no goal ${i} (${this.goals.length === 0 ? "it has no goals" : `goal indices are 0 to ${this.goals.length - 1}`})`);
    const payload: WebShopTaskPayload = { goal, goalIndex: i };
    return { id: `webshop/${this.name}/${i}`, split, payload };
  }

  /**
   * The tasks of a split in index order (the first `count` if given). `test` is the fixed
   * evaluation set: goal indices [0, testSize). As upstream, splits are by goal index, so one
   * product can have goals (other option combinations) in both splits.
   */
  tasks(split: string, count?: number): TaskSpec[] {
    if (!(GOAL_SPLITS as readonly string[]).includes(split)) throw new UsageError(`webshop has no split '${split}' (one of ${GOAL_SPLITS.join(", ")})`);
    const [lo, hi] = this.splitRange(split as GoalSplit);
    const end = count === undefined ? hi : Math.min(hi, lo + count);
    const out: TaskSpec[] = [];
    for (let i = lo; i < end; i++) out.push(this.task(i, split));
    return out;
  }
}

/** Options of `generatedShop`. */
export type GeneratedShopOptions = GeneratorOptions & {
  /** Split layout. @default { testSize: 128, trainStart: 128 } */
  readonly layout?: Partial<SplitLayout>;
};

/**
 * The embedded default shop: a generated catalogue cleaned by the real loader, synthetic goals
 * (one per option combination), shuffled; test = goals 0–127, train = the rest.
 */
export function generatedShop(options: GeneratedShopOptions = {}): Shop {
  const seed = options.seed ?? 0;
  const { records, instructions } = generateCatalog(options);
  const products = cleanProducts(records);
  const prices = productPrices(products, seed);
  const goals = shuffleGoals(syntheticGoals(products, prices, instructions, seed));
  const layout = { testSize: TEST_GOALS, trainStart: TEST_GOALS, ...options.layout };
  return new Shop({ name: `generated-s${seed}-n${products.length}`, products, prices, goals, layout });
}

/** Options of `realShop`: paths of the benchmark files. */
export type RealShopOptions = {
  /** The catalogue, e.g. `../shared/data/webshop/items_shuffle_1000.json`. */
  readonly catalog: string;
  /** `items_human_ins.json`: adds one human goal per annotated instruction of a catalogue product. */
  readonly humanInstructions?: string;
  /** An upstream `items_ins_v2`-style file; without it, instructions are derived from product texts. */
  readonly attributes?: string;
  /** Seed of prices and price clauses. @default 0 */
  readonly seed?: number;
  /** Split layout. @default { testSize: 128, trainStart: 500 } (upstream trains from goal 500) */
  readonly layout?: Partial<SplitLayout>;
};

/** ASIN → the product attributes its human annotation records list (union, first-seen order). */
function humanProductAttributes(human: ReadonlyMap<string, readonly HumanInstruction[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [asin, records] of human) {
    const attrs = [...new Set(records.flatMap((r) => r.productAttributes))];
    if (attrs.length > 0) out.set(asin, attrs);
  }
  return out;
}

/**
 * A shop over the real files: the catalogue with WebShop's cleaning rules, synthetic goals
 * (from the attribute file when given, else derived from product texts), plus human goals for
 * catalogue products found in `items_human_ins.json`; shuffled together.
 */
export function realShop(options: RealShopOptions): Shop {
  const seed = options.seed ?? 0;
  const attrFile = options.attributes === undefined ? undefined : loadAttributesFile(options.attributes);
  const human = options.humanInstructions === undefined ? undefined : loadHumanInstructionsFile(options.humanInstructions);
  // Product attributes: the attribute file's, else those the human annotations list for the product.
  const attributes = attrFile?.attributes ?? (human === undefined ? undefined : humanProductAttributes(human));
  const products = loadCatalogFile(options.catalog, attributes === undefined ? {} : { attributes });
  const prices = productPrices(products, seed);
  const instructions = attrFile?.instructions ?? deriveInstructions(products, seed);
  const goals = syntheticGoals(products, prices, instructions, seed);
  if (human !== undefined) goals.push(...humanGoals(products, prices, human, seed));
  const layout = { testSize: TEST_GOALS, trainStart: 500, ...options.layout };
  return new Shop({ name: "real", products, prices, goals: shuffleGoals(goals), layout, source: options.catalog });
}
