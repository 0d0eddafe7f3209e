/**
 * WebShop's product loading rules (upstream `web_agent_site/engine/engine.py: load_products`):
 * skip bad and duplicate ASINs, rename fields, parse price strings into numbers and a price tag,
 * lower-case options, attach attributes, and draw one actual price per ranged product. Works
 * on parsed JSON; reading files is `data-files.ts`. Malformed records raise `DataError` naming
 * the record, where upstream would crash with a KeyError.
 */
import { DataError } from "../../core/errors.ts";
import { Rng, deriveSeed } from "../../core/rng.ts";
import { pyFloatRepr, pyStrip } from "./py-text.ts";
import type { OptionGroup, Product, RawOptionEntry } from "./types.ts";

/** Options of `cleanProducts`. */
export type CleanOptions = {
  /**
   * Attribute phrases per ASIN (upstream `items_ins_v2_1000.json`). A product absent here uses
   * its raw `attributes` field (generated catalogues carry one), else `['DUMMY_ATTR']`.
   */
  readonly attributes?: ReadonlyMap<string, readonly string[]>;
  /** Keep only the first n records before cleaning (upstream `num_products`). */
  readonly limit?: number;
};

const PRICE_NUMBER = /^(?:\d+\.?\d*|\.\d+)$/;

function fail(index: number, asin: unknown, problem: string): never {
  const who = typeof asin === "string" ? ` (asin ${asin})` : "";
  throw new DataError(`product record ${index}${who}: ${problem}`);
}

function requireString(rec: Record<string, unknown>, key: string, index: number): string {
  const v = rec[key];
  if (typeof v !== "string") fail(index, rec["asin"], `field '${key}' must be a string`);
  return v;
}

/**
 * Parse a raw price string the way upstream does: each `$`-separated part loses every character
 * but digits and dots and becomes a float; one number gives `$<float>`, two or more give
 * `$<a> to $<b>` (only the first two kept); an empty or missing string gives `[100]`, `$100.0`.
 * @example parsePricing("$19.99$27.99") // { pricing: [19.99, 27.99], priceTag: "$19.99 to $27.99" }
 */
export function parsePricing(raw: string | null | undefined): { pricing: number[]; priceTag: string } {
  if (raw === null || raw === undefined || raw === "") return { pricing: [100], priceTag: "$100.0" };
  const parts = raw.split("$").slice(1);
  const nums = parts.map((p) => {
    const cleaned = p.replace(/[^\d.]/g, "");
    if (!PRICE_NUMBER.test(cleaned)) throw new DataError(`unparseable price '${raw}'`);
    return Number(cleaned);
  });
  if (nums.length === 0) throw new DataError(`price '${raw}' has no '$' amount`);
  if (nums.length === 1) return { pricing: nums, priceTag: `$${pyFloatRepr(nums[0]!)}` };
  const two = nums.slice(0, 2);
  return { pricing: two, priceTag: `$${pyFloatRepr(two[0]!)} to $${pyFloatRepr(two[1]!)}` };
}

function cleanOptions(raw: unknown, index: number, asin: string): OptionGroup[] {
  if (raw === "" || raw === null || raw === undefined) return [];
  if (typeof raw !== "object" || Array.isArray(raw)) fail(index, asin, "customization_options must be an object or \"\"");
  const groups: { name: string; values: string[] }[] = [];
  for (const [rawName, contents] of Object.entries(raw as Record<string, unknown>)) {
    if (contents === null) continue;
    if (!Array.isArray(contents)) fail(index, asin, `option '${rawName}' must be a list`);
    const values = (contents as unknown[]).map((entry) => {
      const v = (entry as RawOptionEntry | null)?.value;
      if (typeof v !== "string") fail(index, asin, `option '${rawName}' has an entry without a string 'value'`);
      return pyStrip(v).replaceAll("/", " | ").toLowerCase();
    });
    const name = rawName.toLowerCase();
    // A Python dict keeps the first position of a key and the last value written to it.
    const existing = groups.find((g) => g.name === name);
    if (existing) existing.values = values;
    else groups.push({ name, values });
  }
  return groups;
}

function cleanOne(rec: Record<string, unknown>, index: number, attributes: CleanOptions["attributes"]): Product {
  const asin = rec["asin"] as string;
  const name = requireString(rec, "name", index);
  const description = requireString(rec, "full_description", index);
  const small = rec["small_description"];
  let bulletPoints: string[];
  if (typeof small === "string") bulletPoints = [small];
  else if (Array.isArray(small) && small.every((b) => typeof b === "string")) bulletPoints = [...(small as string[])];
  else fail(index, asin, "small_description must be a string or a list of strings");
  const pricingRaw = rec["pricing"];
  if (pricingRaw !== undefined && pricingRaw !== null && typeof pricingRaw !== "string") fail(index, asin, "pricing must be a string");
  let price: { pricing: number[]; priceTag: string };
  try {
    price = parsePricing(pricingRaw as string | null | undefined);
  } catch (e) {
    fail(index, asin, (e as Error).message);
  }
  const ownAttrs = rec["attributes"];
  const attrs = attributes?.get(asin)
    ?? (Array.isArray(ownAttrs) && ownAttrs.length > 0 && ownAttrs.every((a) => typeof a === "string") ? (ownAttrs as string[]) : ["DUMMY_ATTR"]);
  return {
    asin,
    name,
    title: name,
    description,
    bulletPoints,
    pricing: price.pricing,
    priceTag: price.priceTag,
    options: cleanOptions(rec["customization_options"], index, asin),
    attributes: [...attrs],
    category: requireString(rec, "category", index),
    query: pyStrip(requireString(rec, "query", index).toLowerCase()),
    productCategory: requireString(rec, "product_category", index),
    rating: "N.A.",
    reviews: [],
  };
}

/**
 * Clean a list of raw product records with WebShop's rules: records whose `asin` is `"nan"` or
 * longer than 10 characters are skipped, as are repeated ASINs (first wins).
 * @throws DataError on a record that is not an object or lacks a required field
 */
export function cleanProducts(records: readonly unknown[], options: CleanOptions = {}): Product[] {
  const seen = new Set<string>();
  const out: Product[] = [];
  const n = options.limit === undefined ? records.length : Math.min(options.limit, records.length);
  for (let i = 0; i < n; i++) {
    const rec = records[i];
    if (rec === null || typeof rec !== "object" || Array.isArray(rec)) fail(i, undefined, "not an object");
    const asin = (rec as Record<string, unknown>)["asin"];
    if (typeof asin !== "string") fail(i, undefined, "field 'asin' must be a string");
    if (asin === "nan" || asin.length > 10 || seen.has(asin)) continue;
    seen.add(asin);
    out.push(cleanOne(rec as Record<string, unknown>, i, options.attributes));
  }
  return out;
}

/**
 * The actual price of every product (upstream `generate_product_prices`): the single value, or
 * one uniform draw in [low, high] for a ranged price. Each draw is seeded by (seed, ASIN), so a
 * product's price does not depend on catalogue order.
 */
export function productPrices(products: readonly Product[], seed: number): Map<string, number> {
  const prices = new Map<string, number>();
  for (const p of products) {
    const [lo, hi] = p.pricing;
    if (lo === undefined) prices.set(p.asin, 100);
    else if (hi === undefined) prices.set(p.asin, lo);
    else prices.set(p.asin, lo + (hi - lo) * Rng.from(deriveSeed(seed, "webshop/price", p.asin)).float());
  }
  return prices;
}
