/**
 * Retrievers for Search-QA, in the shape of Search-R1's `/retrieve` API:
 * a list of queries in, one ranked list of `{ document: { id, contents }, score }` per query out.
 * `Bm25Retriever` is the in-process one over a Search-R1 JSONL corpus; `RemoteRetriever`
 * (remote.ts) speaks the API over HTTP. Upstream's E5 dense index is not reproduced: BM25 stands
 * in for it over the shipped or generated passages.
 */
import { readFileSync } from "node:fs";
import { DataError } from "../../core/errors.ts";
import { Bm25Index, type Bm25Options } from "../text/bm25.ts";

/** One corpus passage: `contents` is `"Title"\ntext`, the title in double quotes. */
export type Passage = { readonly id: string; readonly contents: string };

/** One retrieved passage and its score. */
export type RetrievalHit = { readonly document: Passage; readonly score: number };

/** A synchronous retriever (what `SearchEnv.step` calls). */
export interface Retriever {
  /** One ranked list of at most `topk` hits per query. */
  retrieve(queries: readonly string[], topk: number): RetrievalHit[][];
}

/**
 * BM25 over passages held in memory. Indexes the whole `contents` (title and text), as Pyserini
 * indexes Search-R1's corpus field.
 * @example
 * const r = new Bm25Retriever(loadCorpus("../shared/data/search-qa/wiki18_sample_1000.jsonl"));
 * r.retrieve(["Evan Morris lobbyist"], 3)[0]![0]!.document.id // "0"
 */
export class Bm25Retriever implements Retriever {
  readonly passages: readonly Passage[];
  private readonly index: Bm25Index;

  constructor(passages: readonly Passage[], options: Bm25Options = {}) {
    this.passages = passages;
    this.index = new Bm25Index(options);
    for (const p of passages) this.index.add(p.contents);
  }

  retrieve(queries: readonly string[], topk: number): RetrievalHit[][] {
    return queries.map((q) => this.index.search(q, topk).map((h) => ({ document: this.passages[h.doc]!, score: h.score })));
  }
}

/** Parse a Search-R1 corpus (`{"id","contents"}` per line); `DataError` names the bad line. */
export function parseCorpus(text: string, source = "corpus"): Passage[] {
  const out: Passage[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new DataError(`${source}:${i + 1}: not a JSON object`);
    }
    const r = row as Partial<Record<"id" | "contents", unknown>> | null;
    if (r === null || typeof r !== "object" || typeof r.contents !== "string" || (typeof r.id !== "string" && typeof r.id !== "number")) {
      throw new DataError(`${source}:${i + 1}: expected {"id": string, "contents": string}`);
    }
    out.push({ id: String(r.id), contents: r.contents });
  }
  return out;
}

/** Read a Search-R1 JSONL corpus file. */
export function loadCorpus(path: string): Passage[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new DataError(`cannot read corpus ${path}: ${(e as Error).message}`);
  }
  return parseCorpus(text, path);
}
