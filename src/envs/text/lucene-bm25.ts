/**
 * BM25 ranking as Lucene 8.11 computes it for Pyserini (the engine WebShop's product search runs
 * on), reproduced to the bit: document lengths stored as one-byte norms (`SmallFloat.intToByte4`,
 * exact below 24 tokens, then 4 significant bits) and decoded before use; every factor in
 * single precision (`BM25Similarity`: idf, avgdl, the per-norm cache, `weight − weight / (1 +
 * freq · normInverse)`); a query term repeated n times is one clause boosted by n (Anserini's
 * `BagOfWordsQueryGenerator`); clause scores summed in double and rounded to single; hits sorted
 * by score, ties by the document id string (Anserini's `BREAK_SCORE_TIES_BY_DOCID`), never by
 * insertion order. Exact ties are common under quantised norms, so the tie rule decides pages.
 */
import type { Analyzer } from "./analyzer.ts";
import { luceneEnglishAnalyzer } from "./lucene-analyzer.ts";

const f = Math.fround;

/** Lucene `SmallFloat.longToInt4`: 4 significant bits and a 4-bit exponent (values below 8 exact). */
function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i;
  const shift = numBits - 4;
  return ((i >>> shift) & 7) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 7;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 8) * 2 ** shift;
}

// 255 - longToInt4(Integer.MAX_VALUE): lengths below this are stored exactly.
const NUM_FREE_VALUES = 255 - longToInt4(0x7fffffff);

/** Lucene `SmallFloat.intToByte4`: the norm byte (0..255) of a field length. */
export function intToByte4(length: number): number {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`field length must be a non-negative integer, got ${length}`);
  return length < NUM_FREE_VALUES ? length : NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}

/** Lucene `SmallFloat.byte4ToInt`: the length a norm byte stands for. */
export function byte4ToInt(b: number): number {
  return b < NUM_FREE_VALUES ? b : NUM_FREE_VALUES + int4ToLong(b - NUM_FREE_VALUES);
}

const LENGTH_TABLE = Float32Array.from({ length: 256 }, (_, i) => byte4ToInt(i));

/** One hit: the document number (insertion order), its id and its single-precision score. */
export type LuceneHit = { readonly doc: number; readonly id: string; readonly score: number };

type Postings = { docs: number[]; tfs: number[] };

/** Options of a `LuceneBm25Index`. */
export type LuceneBm25Options = {
  /** @default 0.9 (Pyserini) */
  readonly k1?: number;
  /** @default 0.4 (Pyserini) */
  readonly b?: number;
  /** @default luceneEnglishAnalyzer */
  readonly analyzer?: Analyzer;
};

/** Code-point order, which is the UTF-8 byte order Lucene sorts `BytesRef` ids by. */
function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!, y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * A Lucene-faithful BM25 index over documents with string ids.
 * @example
 * const index = new LuceneBm25Index();
 * index.add("B000000001", "acme sulfate free shampoo");
 * index.search("sulfate free shampoo", 50); // [{ doc: 0, id: "B000000001", score }]
 */
export class LuceneBm25Index {
  readonly k1: number;
  readonly b: number;
  readonly analyzer: Analyzer;
  private readonly postings = new Map<string, Postings>();
  private readonly ids: string[] = [];
  private readonly norms: number[] = [];
  private sumTotalTermFreq = 0;
  private docCount = 0;

  constructor(options: LuceneBm25Options = {}) {
    this.k1 = f(options.k1 ?? 0.9);
    this.b = f(options.b ?? 0.4);
    this.analyzer = options.analyzer ?? luceneEnglishAnalyzer;
    if (!(this.k1 >= 0) || !(this.b >= 0 && this.b <= 1)) throw new RangeError(`BM25 needs k1 >= 0 and 0 <= b <= 1, got k1=${this.k1}, b=${this.b}`);
  }

  /** Number of documents added. */
  get size(): number {
    return this.ids.length;
  }

  /** Add a document; returns its number. */
  add(id: string, text: string): number {
    const doc = this.ids.length;
    const terms = this.analyzer(text);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let p = this.postings.get(term);
      if (p === undefined) this.postings.set(term, (p = { docs: [], tfs: [] }));
      p.docs.push(doc);
      p.tfs.push(tf);
    }
    this.ids.push(id);
    this.norms.push(intToByte4(terms.length));
    this.sumTotalTermFreq += terms.length;
    // Lucene's docCount counts documents with at least one term in the field.
    if (terms.length > 0) this.docCount++;
    return doc;
  }

  /** The `topk` best documents for a query: score descending, ties by id. */
  search(query: string, topk: number): LuceneHit[] {
    if (!Number.isInteger(topk) || topk < 0) throw new RangeError(`topk must be a non-negative integer, got ${topk}`);
    const boosts = new Map<string, number>();
    for (const t of this.analyzer(query)) boosts.set(t, (boosts.get(t) ?? 0) + 1);
    if (topk === 0 || this.docCount === 0) return [];
    const { k1, b } = this;
    const avgdl = f(this.sumTotalTermFreq / this.docCount);
    const cache = new Float32Array(256);
    for (let i = 0; i < 256; i++) cache[i] = f(1 / f(k1 * f(f(1 - b) + f(f(b * LENGTH_TABLE[i]!) / avgdl))));
    const scores = new Map<number, number>();
    for (const [term, boost] of boosts) {
      const p = this.postings.get(term);
      if (p === undefined) continue;
      const df = p.docs.length;
      const idf = f(Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5)));
      const weight = f(boost * idf);
      for (let i = 0; i < df; i++) {
        const doc = p.docs[i]!;
        const s = f(weight - f(weight / f(1 + f(p.tfs[i]! * cache[this.norms[doc]!]!))));
        scores.set(doc, (scores.get(doc) ?? 0) + s);
      }
    }
    const hits: LuceneHit[] = [];
    for (const [doc, sum] of scores) hits.push({ doc, id: this.ids[doc]!, score: f(sum) });
    hits.sort((x, y) => y.score - x.score || compareIds(x.id, y.id));
    return hits.slice(0, topk);
  }
}
