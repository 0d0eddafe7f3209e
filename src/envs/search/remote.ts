/**
 * A client for a retrieval server with Search-R1's `/retrieve` API, e.g.
 * Search-R1's own E5 server or `seed retrieve serve`.
 *
 * `Env.step` is synchronous, HTTP is not. The design: the rollout awaits `env.prepare(action)`
 * for every action of a batch before stepping (`SearchEnv.prepare` calls `prefetch` here);
 * prefetches made in the same tick are coalesced into one POST with all their queries, and the
 * synchronous `retrieve` that `step` makes is then answered from that cache. A `retrieve` whose
 * query was never prefetched is a programming error (`EnvStateError`), never a silent blocking
 * request. Each cached answer is kept until as many `retrieve`s as `prefetch`es consumed it.
 */
import { EnvStateError, RemoteError } from "../../core/errors.ts";
import type { Passage, RetrievalHit, Retriever } from "./retriever.ts";

/** A retriever that must be told the queries before `retrieve` is called synchronously. */
export interface PrefetchingRetriever extends Retriever {
  prefetch(queries: readonly string[], topk: number): Promise<void>;
}

/** Options of `RemoteRetriever`. */
export type RemoteRetrieverOptions = {
  /**
   * Request body shape: Search-R1's batched `{"queries": [...]}` or verl-agent's one-query
   * `{"query": "..."}` (one request per query).
   * @default "search-r1"
   */
  readonly api?: "search-r1" | "verl-agent";
  /** Per-request timeout. @default 30000 */
  readonly timeoutMs?: number;
  /** Sent as `Authorization: Bearer <apiKey>` (`seed retrieve serve --api-key`). */
  readonly apiKey?: string;
  /**
   * Most queries per POST; a larger batch is split, and each POST also keeps queries × topk
   * within `seed retrieve serve`'s 20,000 hits. @default 256
   */
  readonly maxQueriesPerRequest?: number;
};

type Pending = { query: string; topk: number; resolve: () => void; reject: (e: unknown) => void };

/**
 * HTTP client for `POST <url>` (the full endpoint, e.g. `http://127.0.0.1:8000/retrieve`).
 * @example
 * const r = new RemoteRetriever("http://127.0.0.1:8000/retrieve");
 * const hits = await r.retrieveAsync(["who wrote hamlet"], 3);
 */
export class RemoteRetriever implements PrefetchingRetriever {
  readonly url: string;
  readonly api: "search-r1" | "verl-agent";
  readonly timeoutMs: number;
  private readonly apiKey: string | undefined;
  private readonly maxQueries: number;
  private readonly cache = new Map<string, { hits: RetrievalHit[]; uses: number }>();
  private queue: Pending[] = [];
  private flushScheduled = false;

  constructor(url: string, options: RemoteRetrieverOptions = {}) {
    try {
      new URL(url);
    } catch {
      throw new RemoteError(`'${url}' is not a retriever URL (expected e.g. http://127.0.0.1:8000/retrieve)`);
    }
    this.url = url;
    this.api = options.api ?? "search-r1";
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.apiKey = options.apiKey;
    this.maxQueries = options.maxQueriesPerRequest ?? 256;
  }

  /** Retrieve over HTTP now (no cache). Throws `RemoteError` on any transport or format problem. */
  async retrieveAsync(queries: readonly string[], topk: number): Promise<RetrievalHit[][]> {
    if (queries.length === 0) return [];
    if (this.api === "verl-agent") {
      const lists = await Promise.all(queries.map((query) => this.post({ query, topk, return_scores: true })));
      return lists.map((l) => l[0] ?? []);
    }
    const per = Math.max(1, Math.min(this.maxQueries, Math.floor(20_000 / topk)));
    const parts: Promise<RetrievalHit[][]>[] = [];
    for (let at = 0; at < queries.length; at += per) {
      const part = queries.slice(at, at + per);
      parts.push(this.post({ queries: part, topk, return_scores: true }).then((lists) => {
        if (lists.length !== part.length) throw new RemoteError(`${this.url}: ${lists.length} result lists for ${part.length} queries`);
        return lists;
      }));
    }
    return (await Promise.all(parts)).flat();
  }

  prefetch(queries: readonly string[], topk: number): Promise<void> {
    return Promise.all(queries.map((query) => new Promise<void>((resolve, reject) => {
      this.queue.push({ query, topk, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    }))).then(() => undefined);
  }

  retrieve(queries: readonly string[], topk: number): RetrievalHit[][] {
    return queries.map((q) => {
      const key = cacheKey(q, topk);
      const entry = this.cache.get(key);
      if (entry === undefined) {
        throw new EnvStateError(`remote retriever: '${q}' was not prefetched; await env.prepare(action) before env.step(action)`);
      }
      if (--entry.uses <= 0) this.cache.delete(key);
      return entry.hits;
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.flushScheduled = false;
    const byTopk = new Map<number, Pending[]>();
    for (const p of batch) byTopk.set(p.topk, [...(byTopk.get(p.topk) ?? []), p]);
    await Promise.all([...byTopk].map(async ([topk, pending]) => {
      const unique = [...new Set(pending.map((p) => p.query))];
      try {
        const lists = await this.retrieveAsync(unique, topk);
        unique.forEach((q, i) => {
          const key = cacheKey(q, topk);
          const uses = pending.filter((p) => p.query === q).length;
          const old = this.cache.get(key);
          this.cache.set(key, { hits: lists[i]!, uses: uses + (old?.uses ?? 0) });
        });
        for (const p of pending) p.resolve();
      } catch (e) {
        for (const p of pending) p.reject(e);
      }
    }));
  }

  private async post(body: unknown): Promise<RetrievalHit[][]> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(this.apiKey !== undefined ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new RemoteError(`${this.url}: request failed (${(e as Error).message})`, { cause: e });
    }
    const text = await response.text();
    if (!response.ok) throw new RemoteError(`${this.url}: HTTP ${response.status}: ${text.slice(0, 200)}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RemoteError(`${this.url}: response is not JSON: ${text.slice(0, 200)}`);
    }
    return parseRetrieveResponse(json, this.url);
  }
}

function cacheKey(query: string, topk: number): string {
  return `${topk}\u0000${query}`;
}

/**
 * Validate a `/retrieve` response: `{"result": [[{"document": {id, contents}, "score"}, ...], ...]}`,
 * or lists of bare documents when scores were not requested (scored 0 here).
 */
export function parseRetrieveResponse(json: unknown, source: string): RetrievalHit[][] {
  const result = (json as { result?: unknown } | null)?.result;
  if (!Array.isArray(result)) throw new RemoteError(`${source}: response has no "result" list`);
  return result.map((list, qi) => {
    if (!Array.isArray(list)) throw new RemoteError(`${source}: result[${qi}] is not a list`);
    return list.map((item: unknown, i) => {
      const scored = item as { document?: unknown; score?: unknown } | null;
      const doc = (scored !== null && typeof scored === "object" && "document" in scored ? scored.document : item) as Partial<Passage> | null;
      if (doc === null || typeof doc !== "object" || typeof doc.contents !== "string") {
        throw new RemoteError(`${source}: result[${qi}][${i}] has no document contents`);
      }
      const score = typeof scored?.score === "number" ? scored.score : 0;
      return { document: { id: String(doc.id ?? ""), contents: doc.contents }, score };
    });
  });
}
