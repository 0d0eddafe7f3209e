/**
 * WebShop's product search (ENVIRONMENTS.md §3.5): one BM25 document per product,
 * `lower(Title + ' ' + Description + ' ' + BulletPoints[0] + ' ' + option_text)`, ranked with
 * Pyserini's defaults (k1 = 0.9, b = 0.4, English analysis) by the shared index in
 * `../text/bm25.ts`; the top 50 are the results. Repeated queries are answered from a bounded
 * cache, since agents and experts search the same words again and again. The upstream debug
 * queries (`<r>`, `<a>`, `<c>`, `<q>` as first keyword) are not special here.
 */
import { englishAnalyzer, type Analyzer } from "../text/analyzer.ts";
import { Bm25Index } from "../text/bm25.ts";
import type { Product } from "./types.ts";

/** Hits a search returns (upstream `SEARCH_RETURN_N`). */
export const SEARCH_RETURN_N = 50;

const CACHE_LIMIT = 4096;

// The word pattern of `englishAnalyzer`, and its exact equivalent on ASCII text (no marks, no
// curly apostrophe), which runs several times faster.
const WORD = /[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*/gu;
const ASCII_WORD = /[a-z0-9]+(?:'[a-z0-9]+)*/g;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * `englishAnalyzer` with the terms of each distinct word memoised: the same words recur across
 * products and queries, so stemming each once makes indexing 1,000 real products several times
 * faster. Output is identical to `englishAnalyzer`, word by word (each word is analyzed alone,
 * and the analyzer treats words independently).
 */
export function cachedEnglishAnalyzer(): Analyzer {
  const cache = new Map<string, readonly string[]>();
  return (text) => {
    const lower = text.toLowerCase();
    const out: string[] = [];
    for (const m of lower.matchAll(ASCII_ONLY.test(lower) ? ASCII_WORD : WORD)) {
      const word = m[0];
      let terms = cache.get(word);
      if (terms === undefined) {
        terms = englishAnalyzer(word);
        cache.set(word, terms);
      }
      for (const t of terms) out.push(t);
    }
    return out;
  };
}

/** The option text of a product's search document: `color: red, blue, and size: s, m`. */
export function optionText(product: Product): string {
  return product.options.map((g) => `${g.name}: ${g.values.join(", ")}`).join(", and ");
}

/** The text indexed for a product (upstream `convert_product_file_format.py`). */
export function searchDocument(product: Product): string {
  return [product.title, product.description, product.bulletPoints[0] ?? "", optionText(product)].join(" ").toLowerCase();
}

/**
 * A BM25 search engine over a fixed product list.
 * @example
 * const engine = new ProductSearch(products);
 * engine.search("sulfate free shampoo").slice(0, 10); // first results page
 */
export class ProductSearch {
  private readonly index = new Bm25Index({ k1: 0.9, b: 0.4, analyzer: cachedEnglishAnalyzer() });
  private readonly products: readonly Product[];
  private readonly cache = new Map<string, readonly Product[]>();

  constructor(products: readonly Product[]) {
    this.products = products;
    for (const p of products) this.index.add(searchDocument(p));
  }

  /** Number of indexed products. */
  get size(): number {
    return this.products.length;
  }

  /** The up-to-50 best products for a keyword string, best first (ties in catalogue order). */
  search(keywords: string): readonly Product[] {
    const cached = this.cache.get(keywords);
    if (cached !== undefined) return cached;
    const hits = this.index.search(keywords.toLowerCase(), SEARCH_RETURN_N).map((h) => this.products[h.doc]!);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(keywords, hits);
    return hits;
  }
}
