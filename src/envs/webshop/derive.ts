/**
 * Synthetic instructions for catalogue products that come without one (the real 1,000-product
 * file: upstream's `items_ins_v2_1000.json` is not available). For each
 * product, up to two attribute phrases of a fixed lexicon found as whole words in its title
 * (first), bullets or description become the goal attributes, and the instruction reads
 * "<opener> <article> <attributes> <product query>". Products where no phrase occurs get no
 * instruction, as upstream products without annotations get no goal. Because each phrase occurs
 * in the product's text, the attribute reward's substring rule credits it when the product is
 * bought.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { ProductInstruction } from "./goals.ts";
import type { Product } from "./types.ts";
import { ALL_ATTRIBUTES, INSTRUCTION_OPENERS } from "./vocab.ts";

/** Phrases besides the generator's category attributes: frequent product qualities of real listings. */
const EXTRA_ATTRIBUTES: readonly string[] = [
  "high quality", "light weight", "lightweight", "machine washable", "dishwasher safe", "bpa free", "anti aging",
  "wall mounted", "hands free", "super soft", "faux leather", "tempered glass", "gold plated", "sensitive skin",
  "dry skin", "arch support", "rubber sole", "high waist", "daily wear", "memory foam", "waterproof", "rechargeable",
  "adjustable", "organic", "vegan", "non toxic", "stainless steel", "height adjustable", "quick dry", "soft material",
  "comfortable fit", "classic fit", "loose fit", "high resolution", "wireless charging", "noise reduction",
  "easy installation", "easy to carry", "portable", "durable", "breathable", "handmade", "hypoallergenic",
  "natural", "cotton", "leather", "ceramic", "bamboo", "aluminum", "glass", "wood", "metal", "plastic", "silicone",
];

/** The attribute lexicon of derived instructions, longest phrase first so `non slip` wins over `slip`. */
export const ATTRIBUTE_LEXICON: readonly string[] = [...new Set([...ALL_ATTRIBUTES, ...EXTRA_ATTRIBUTES])].sort(
  (a, b) => b.length - a.length || (a < b ? -1 : 1),
);

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const PATTERNS = ATTRIBUTE_LEXICON.map((a) => ({ a, re: new RegExp(`(?<![\\p{L}\\p{N}])${escape(a)}(?![\\p{L}\\p{N}])`, "u") }));

/** Lexicon phrases present in a product's texts, title matches first, at most `max`. */
export function productAttributePhrases(product: Product, max = 2): string[] {
  const texts = [product.title, product.bulletPoints.join(" "), product.description].map((t) => t.toLowerCase());
  const found: string[] = [];
  for (const text of texts) {
    for (const { a, re } of PATTERNS) {
      if (found.length >= max) return found;
      if (found.some((f) => f.includes(a) || a.includes(f))) continue;
      if (re.test(text)) found.push(a);
    }
  }
  return found;
}

/**
 * Derive one instruction per product that has at least one lexicon phrase; the opener is drawn
 * from (seed, ASIN), so the result does not depend on catalogue order.
 */
export function deriveInstructions(products: readonly Product[], seed = 0): Map<string, ProductInstruction> {
  const out = new Map<string, ProductInstruction>();
  for (const p of products) {
    const attrs = productAttributePhrases(p);
    if (attrs.length === 0 || p.query === "") continue;
    const rng = Rng.from(deriveSeed(seed, "webshop/derive", p.asin));
    const total = INSTRUCTION_OPENERS.reduce((s, [, w]) => s + w, 0);
    let x = rng.float() * total;
    let opener = INSTRUCTION_OPENERS[0]![0];
    for (const [o, w] of INSTRUCTION_OPENERS) {
      x -= w;
      if (x < 0) {
        opener = o;
        break;
      }
    }
    const phrase = `${attrs.join(" ")} ${p.query}`;
    const plural = p.query.endsWith("s") && !p.query.endsWith("ss");
    const art = plural ? "" : /^[aeiou]/.test(phrase) ? "an " : "a ";
    out.set(p.asin, { instruction: `${opener} ${art}${phrase}`, attributes: attrs });
  }
  return out;
}
