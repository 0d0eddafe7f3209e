/**
 * An in-memory Okapi BM25 index with an inverted file, synchronous and deterministic, for the
 * environments' search engines (WebShop products, Search-QA passages). Scores use Lucene's
 * always-positive idf, ln(1 + (N − df + 0.5)/(df + 0.5)), and Pyserini's defaults k1 = 0.9,
 * b = 0.4; ties rank by insertion order, so results never depend on the platform.
 *
 * Written here rather than taken from npm: the closest maintained package,
 * `wink-bm25-text-search`, is configurable but freezes its index at `consolidate()` (no adds
 * afterwards, and a minimum collection size) and has its own idf and tie order; the environments
 * need a synchronous search (Env.step is synchronous), Lucene's idf with Pyserini's parameters
 * and analyzer, incremental adds, and a stable tie order, in about a hundred lines and no
 * dependency. This file is deliberately not a general search engine: no fields, phrases, or
 * deletes. Documents are numbered 0..size−1 in the order added; callers keep their own ids.
 */
import { englishAnalyzer, type Analyzer } from "./analyzer.ts";

/** Options of a `Bm25Index`. */
export type Bm25Options = {
  /** Term-frequency saturation. @default 0.9 (Pyserini) */
  readonly k1?: number;
  /** Length normalisation (0 = none, 1 = full). @default 0.4 (Pyserini) */
  readonly b?: number;
  /** Document and query analyzer. @default englishAnalyzer */
  readonly analyzer?: Analyzer;
};

/** One search hit: the document number (insertion order) and its BM25 score. */
export type Bm25Hit = { readonly doc: number; readonly score: number };

type Postings = { docs: number[]; tfs: number[] };

/**
 * BM25 over documents added one by one.
 * @example
 * const index = new Bm25Index();
 * index.addAll(passages.map((p) => p.contents));
 * index.search("who founded genentech", 3); // [{ doc, score }, ...] best first
 */
export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  readonly analyzer: Analyzer;
  private readonly postings = new Map<string, Postings>();
  private readonly lengths: number[] = [];
  private totalLength = 0;
  // Reused per search: a dense accumulator is faster than a Map for the corpus sizes we index.
  private scores = new Float64Array(0);
  private touched = new Uint8Array(0);

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 0.9;
    this.b = options.b ?? 0.4;
    this.analyzer = options.analyzer ?? englishAnalyzer;
    if (!(this.k1 >= 0) || !(this.b >= 0 && this.b <= 1)) {
      throw new RangeError(`BM25 needs k1 >= 0 and 0 <= b <= 1, got k1=${this.k1}, b=${this.b}`);
    }
  }

  /** Number of documents added. */
  get size(): number {
    return this.lengths.length;
  }

  /** Add one document; returns its number. */
  add(text: string): number {
    const doc = this.lengths.length;
    const terms = this.analyzer(text);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let p = this.postings.get(term);
      if (p === undefined) {
        p = { docs: [], tfs: [] };
        this.postings.set(term, p);
      }
      p.docs.push(doc);
      p.tfs.push(tf);
    }
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    return doc;
  }

  /** Add many documents; returns the number of the first. */
  addAll(texts: Iterable<string>): number {
    const first = this.size;
    for (const t of texts) this.add(t);
    return first;
  }

  /** Documents containing the (already analyzed) term. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /** Lucene's BM25 idf of an analyzed term. */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /**
   * The `topk` best documents for a query, best first; ties by document number. Documents that
   * share no term with the query are never returned, so a query of stop words finds nothing.
   */
  search(query: string, topk: number): Bm25Hit[] {
    if (!Number.isInteger(topk) || topk < 0) throw new RangeError(`topk must be a non-negative integer, got ${topk}`);
    const n = this.size;
    if (n === 0 || topk === 0) return [];
    if (this.scores.length < n) {
      this.scores = new Float64Array(Math.max(n, this.scores.length * 2));
      this.touched = new Uint8Array(this.scores.length);
    }
    const scores = this.scores, touched = this.touched;
    const hitDocs: number[] = [];
    const avgdl = this.totalLength / n || 1;
    const k1 = this.k1, b = this.b;
    // A repeated query term counts once per occurrence, as repeated clauses do in Lucene.
    for (const term of this.analyzer(query)) {
      const p = this.postings.get(term);
      if (p === undefined) continue;
      const idf = this.idf(term);
      for (let i = 0; i < p.docs.length; i++) {
        const doc = p.docs[i]!, tf = p.tfs[i]!;
        const norm = k1 * (1 - b + (b * this.lengths[doc]!) / avgdl);
        if (touched[doc] === 0) {
          touched[doc] = 1;
          scores[doc] = 0;
          hitDocs.push(doc);
        }
        scores[doc] = scores[doc]! + (idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
    const best = selectTop(hitDocs, scores, topk);
    for (const d of hitDocs) touched[d] = 0;
    return best;
  }
}

/** The k highest-scoring documents, ties by lower document number; O(n·k) for the small k we use. */
function selectTop(docs: readonly number[], scores: Float64Array, k: number): Bm25Hit[] {
  const top: Bm25Hit[] = [];
  for (const doc of docs) {
    const score = scores[doc]!;
    if (top.length === k) {
      const last = top[k - 1]!;
      if (score < last.score || (score === last.score && doc > last.doc)) continue;
      top.pop();
    }
    let i = top.length;
    while (i > 0 && (top[i - 1]!.score < score || (top[i - 1]!.score === score && top[i - 1]!.doc > doc))) i--;
    top.splice(i, 0, { doc, score });
  }
  return top;
}
