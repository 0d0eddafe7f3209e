/**
 * A seeded generator of WebShop catalogues in the real raw schema (`asin`, `name`,
 * `full_description`, `small_description`, `pricing` strings with `$` and ranges,
 * `customization_options` with `value` entries, `›` categories, five categories), plus one
 * synthetic instruction per product naming one or two of its attributes (the role of upstream's
 * `items_ins_v2` file). The same loader cleans generated and real records. Deterministic in
 * (seed, options); small by default so a tiny model can learn the shop in minutes.
 *
 * Titles carry every attribute of the product, as keyword-stuffed real titles do, so the
 * product an instruction describes can be recognised from the results page.
 */
import { UsageError } from "../../core/errors.ts";
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { ProductInstruction } from "./goals.ts";
import type { RawOptionEntry, RawProduct } from "./types.ts";
import { BRAND_SYLLABLES, CATEGORIES, FILLER_BULLETS, INSTRUCTION_OPENERS, OPTION_VALUES, type OptionKind, type ProductTypeDef } from "./vocab.ts";

/** Options of `generateCatalog`. */
export type GeneratorOptions = {
  /** Number of products. @default 100 */
  readonly products?: number;
  /** Seed of every draw. @default 0 */
  readonly seed?: number;
  /** Largest number of option groups a product gets (0 turns options off). @default 2 */
  readonly maxOptionGroups?: number;
  /** Largest number of values in an option group. @default 4 */
  readonly maxOptionValues?: number;
  /** Share of products with a price range instead of one price. @default 0.2 */
  readonly rangedPriceShare?: number;
  /** Share of products with no price (the loader shows `$100.0`). @default 0.03 */
  readonly missingPriceShare?: number;
};

/** A generated catalogue: raw records and the synthetic instruction of each product. */
export type GeneratedCatalog = {
  readonly records: readonly RawProduct[];
  readonly instructions: ReadonlyMap<string, ProductInstruction>;
};

const ASIN_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function titleCase(s: string): string {
  return s.replace(/(^|[\s-])(\p{L})/gu, (_m, pre: string, c: string) => pre + c.toUpperCase());
}

function sample<T>(rng: Rng, items: readonly T[], k: number): T[] {
  return rng.shuffle([...items]).slice(0, Math.min(k, items.length));
}

function weighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let x = rng.float() * total;
  for (const [item, w] of items) {
    x -= w;
    if (x < 0) return item;
  }
  return items[items.length - 1]![0];
}

function brandName(rng: Rng): string {
  const n = 2 + rng.int(2);
  let s = "";
  for (let i = 0; i < n; i++) s += rng.choice(BRAND_SYLLABLES);
  return s[0]!.toUpperCase() + s.slice(1);
}

function asinOf(rng: Rng, used: Set<string>): string {
  for (;;) {
    let s = "B0";
    for (let i = 0; i < 8; i++) s += ASIN_CHARS[rng.int(ASIN_CHARS.length)];
    if (!used.has(s)) {
      used.add(s);
      return s;
    }
  }
}

function money(x: number): string {
  return `$${x.toFixed(2)}`;
}

function pricing(rng: Rng, type: ProductTypeDef, o: Required<GeneratorOptions>): { raw: string; low: number } {
  const [lo, hi] = type.price;
  const base = Math.floor(lo + rng.float() * (hi - lo)) + rng.choice([0.99, 0.95, 0.49, 0.0]);
  const u = rng.float();
  if (u < o.missingPriceShare) return { raw: "", low: 100 };
  if (u < o.missingPriceShare + o.rangedPriceShare) {
    const top = base + 2 + Math.floor(rng.float() * (hi - lo) * 0.5);
    // Both range spellings occur in the real file.
    return { raw: rng.bernoulli(0.5) ? `${money(base)} - ${money(top)}` : `${money(base)}${money(top)}`, low: base };
  }
  return { raw: money(base), low: base };
}

function options(rng: Rng, type: ProductTypeDef, o: Required<GeneratorOptions>, asin: string): Record<string, RawOptionEntry[]> | "" {
  const groups = Math.min(rng.int(o.maxOptionGroups + 1), type.options.length);
  if (groups === 0) return "";
  const out: Record<string, RawOptionEntry[]> = {};
  for (const kind of sample(rng, type.options, groups)) {
    const pool: readonly string[] = OPTION_VALUES[kind as OptionKind];
    const k = 2 + rng.int(Math.max(1, o.maxOptionValues - 1));
    out[titleCase(kind)] = sample(rng, pool, k).map((value, i) => ({ value, image: `https://images.invalid/${asin}/${i}.jpg` }));
  }
  return out;
}

function article(phrase: string, plural: boolean, rng: Rng): string {
  if (plural) return rng.bernoulli(0.5) ? "some " : "";
  return /^[aeiou]/.test(phrase) ? "an " : "a ";
}

function instructionFor(rng: Rng, type: ProductTypeDef, attrs: readonly string[]): string {
  const opener = weighted(rng, INSTRUCTION_OPENERS);
  const plural = type.noun.endsWith("s") && !type.noun.endsWith("ss");
  const [first, second] = attrs;
  if (second === undefined || rng.bernoulli(0.5)) {
    const phrase = `${attrs.join(" ")} ${type.noun}`;
    return `${opener} ${article(phrase, plural, rng)}${phrase}`;
  }
  const link = rng.choice(plural ? ["that are", "which are"] : ["that is", "which is"]);
  return `${opener} ${article(first!, plural, rng)}${first} ${type.noun} ${link} ${second}`;
}

/**
 * Generate a catalogue.
 * @example
 * const { records, instructions } = generateCatalog({ products: 100, seed: 0 });
 * const products = cleanProducts(records); // the real loader
 */
export function generateCatalog(options_: GeneratorOptions = {}): GeneratedCatalog {
  const o: Required<GeneratorOptions> = {
    products: 100, seed: 0, maxOptionGroups: 2, maxOptionValues: 4, rangedPriceShare: 0.2, missingPriceShare: 0.03,
    ...options_,
  };
  if (!Number.isInteger(o.products) || o.products < 1) throw new UsageError(`products must be a positive integer, got ${o.products}`);
  if (!Number.isInteger(o.maxOptionGroups) || o.maxOptionGroups < 0) throw new UsageError("maxOptionGroups must be a non-negative integer");
  if (!Number.isInteger(o.maxOptionValues) || o.maxOptionValues < 2) throw new UsageError("maxOptionValues must be an integer >= 2");
  const used = new Set<string>();
  const records: RawProduct[] = [];
  const instructions = new Map<string, ProductInstruction>();
  const types = CATEGORIES.flatMap((c) => c.types.map((type) => ({ c, type })));
  for (let i = 0; i < o.products; i++) {
    const rng = Rng.from(deriveSeed(o.seed, "webshop/generate", i));
    // Round-robin over types first so every type appears before any repeats.
    const { c, type } = i < types.length ? types[(i * 7) % types.length]! : rng.choice(types);
    const asin = asinOf(rng, used);
    const brand = brandName(rng);
    const attrs = sample(rng, type.attributes, 2 + rng.int(2));
    // A descriptor that repeats an attribute ("Quick Dry Quick Dry") is skipped.
    const fresh = type.descriptors.filter((d) => !attrs.some((a) => a.includes(d) || d.includes(a)));
    const descriptor = rng.choice(fresh.length > 0 ? fresh : type.descriptors);
    const price = pricing(rng, type, o);
    const extra = rng.choice(["", "", ` for ${rng.choice(["Men", "Women", "Home", "Travel", "Everyday Use", "Gifts"])}`]);
    const name = `${brand} ${titleCase(attrs.join(" "))} ${titleCase(descriptor)} ${titleCase(type.noun)}${extra}`;
    const description =
      `${brand} ${descriptor} ${type.noun}. Highlights: ${attrs.slice(0, -1).join(", ")} and ${attrs[attrs.length - 1]}. ` +
      `${rng.choice(["Built to last.", "Loved by thousands of customers.", "A simple upgrade for every day.", "Made with care."])}`;
    const bullets = [
      ...attrs.map((a) => `${a.toUpperCase()}: a ${descriptor} ${type.noun} with ${a} as a key feature`),
      ...sample(rng, FILLER_BULLETS, 1 + rng.int(2)),
    ];
    records.push({
      asin,
      name,
      full_description: description,
      small_description: bullets,
      pricing: price.raw,
      customization_options: options(rng, type, o, asin),
      product_category: type.path,
      category: c.category,
      query: titleCase(type.query),
      images: [`https://images.invalid/${asin}/main.jpg`],
      attributes: attrs,
    });
    const insAttrs = attrs.slice(0, 1 + rng.int(2));
    instructions.set(asin, { instruction: instructionFor(rng, type, insAttrs), attributes: insAttrs });
  }
  return { records, instructions };
}
