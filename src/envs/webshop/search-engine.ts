/**
 * WebShop's product search (upstream `search_engine/convert_product_file_format.py`): one document
 * per product,
 * `lower(Title + ' ' + Description + ' ' + BulletPoints[0] + ' ' + option_text)`, indexed and
 * ranked as Pyserini 0.17 (Lucene 8.11) does by `../text/lucene-bm25.ts` with Lucene's analysis
 * (`../text/lucene-analyzer.ts`): quantised length norms, single-precision BM25 (k1 = 0.9,
 * b = 0.4), ties broken by ASIN; the top 50 are the results. Repeated queries are answered from
 * a bounded cache, since agents and experts search the same words again and again. The upstream
 * debug queries (`<r>`, `<a>`, `<c>`, `<q>` as first keyword) are not special here.
 */
import { LuceneBm25Index } from "../text/lucene-bm25.ts";
import type { Product } from "./types.ts";

/** Hits a search returns (upstream `SEARCH_RETURN_N`). */
export const SEARCH_RETURN_N = 50;

const CACHE_LIMIT = 4096;

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
  private readonly index = new LuceneBm25Index({ k1: 0.9, b: 0.4 });
  private readonly products: readonly Product[];
  private readonly cache = new Map<string, readonly Product[]>();

  constructor(products: readonly Product[]) {
    this.products = products;
    for (const p of products) this.index.add(p.asin, searchDocument(p));
  }

  /** Number of indexed products. */
  get size(): number {
    return this.products.length;
  }

  /** The up-to-50 best products for a keyword string, best first (ties by ASIN, as Pyserini breaks them). */
  search(keywords: string): readonly Product[] {
    const cached = this.cache.get(keywords);
    if (cached !== undefined) return cached;
    const hits = this.index.search(keywords, SEARCH_RETURN_N).map((h) => this.products[h.doc]!);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(keywords, hits);
    return hits;
  }

  /** The Lucene scores of `search(keywords)`'s hits, in the same order (for checks against Lucene). */
  scores(keywords: string): number[] {
    return this.index.search(keywords, SEARCH_RETURN_N).map((h) => h.score);
  }
}
