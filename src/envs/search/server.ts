/**
 * An HTTP retrieval server with Search-R1's `/retrieve` API over any
 * synchronous `Retriever`, on node:http. `POST /retrieve` accepts Search-R1's batched body
 * `{"queries": [...], "topk": 3, "return_scores": true}` and verl-agent's `{"query": "..."}`
 * and answers `{"result": [[{"document": {"id", "contents"}, "score"}, ...], ...]}` (bare
 * documents when `return_scores` is false, as upstream). `GET /health` reports the corpus size.
 * Bad requests get a 4xx with `{"error": "..."}`; the server never crashes on input: the body
 * (1 MiB), the queries per request (1024), their length, `topk` (100) and queries × topk
 * (20,000 hits) are capped before any
 * search runs, and `core/http.ts` bounds slow clients and open connections.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { checkApiKey, createLimitedServer, HttpError, readJsonBody, resolveHttpLimits, sendJson, type HttpLimits } from "../../core/http.ts";
import type { Retriever } from "./retriever.ts";

/** Options of `createRetrievalServer`. */
export type RetrievalServerOptions = {
  /** Results per query when the request gives no `topk`. @default 3 */
  readonly defaultTopk?: number;
  /** Largest `topk` a request may ask for. @default 100 */
  readonly maxTopk?: number;
  /** Most queries in one request; more get 400 (the answer's size grows with queries × topk). @default 1024 */
  readonly maxQueries?: number;
  /** Most hits in one answer, queries × topk (each hit carries a whole passage). @default 20000 */
  readonly maxResults?: number;
  /** Longest query in characters. @default 4096 */
  readonly maxQueryChars?: number;
  /** Body cap, timeouts and connection cap (`core/http.ts`); the body cap defaults to 1 MiB here. */
  readonly limits?: Partial<HttpLimits>;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (`/health` excepted). */
  readonly apiKey?: string;
  /** Reported by `/health`. */
  readonly passages?: number;
};

/** What `parseRetrieveRequest` allows. */
export type RetrieveBounds = {
  readonly defaultTopk: number;
  readonly maxTopk: number;
  readonly maxQueries: number;
  readonly maxResults: number;
  readonly maxQueryChars: number;
};

/**
 * Validate a `/retrieve` body: the queries, topk, and whether to return scores. Counts and sizes
 * are checked before any search runs, so an over-large request costs nothing but its parsing.
 * @throws HttpError 400 naming the bound a request breaks
 */
export function parseRetrieveRequest(body: unknown, bounds: RetrieveBounds): { queries: string[]; topk: number; scores: boolean } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new HttpError(400, "body must be a JSON object");
  const b = body as Record<string, unknown>;
  let queries: string[];
  if (Array.isArray(b["queries"]) && b["queries"].every((q) => typeof q === "string")) queries = b["queries"] as string[];
  else if (typeof b["query"] === "string") queries = [b["query"]];
  else throw new HttpError(400, 'expected "queries": [string, ...] or "query": string');
  if (queries.length > bounds.maxQueries) {
    throw new HttpError(400, `${queries.length} queries in one request; at most ${bounds.maxQueries} are allowed (split the batch)`);
  }
  const long = queries.findIndex((q) => q.length > bounds.maxQueryChars);
  if (long !== -1) throw new HttpError(400, `query ${long} has ${queries[long]!.length} characters; at most ${bounds.maxQueryChars} are allowed`);
  const topk = b["topk"] === undefined || b["topk"] === null ? bounds.defaultTopk : b["topk"];
  if (typeof topk !== "number" || !Number.isInteger(topk) || topk < 1 || topk > bounds.maxTopk) {
    throw new HttpError(400, `"topk" must be an integer in [1, ${bounds.maxTopk}]`);
  }
  if (queries.length * topk > bounds.maxResults) {
    throw new HttpError(400, `${queries.length} queries × topk ${topk} = ${queries.length * topk} hits; at most ${bounds.maxResults} per request are allowed (split the batch)`);
  }
  return { queries, topk, scores: b["return_scores"] === true };
}

/**
 * A server (not yet listening) answering `/retrieve` from `retriever`, with the shared HTTP limits.
 * @example
 * const server = createRetrievalServer(new Bm25Retriever(loadCorpus(path)));
 * server.listen(8000, "127.0.0.1");
 */
export function createRetrievalServer(retriever: Retriever, options: RetrievalServerOptions = {}): Server {
  const bounds: RetrieveBounds = {
    defaultTopk: options.defaultTopk ?? 3,
    maxTopk: options.maxTopk ?? 100,
    maxQueries: options.maxQueries ?? 1024,
    maxResults: options.maxResults ?? 20_000,
    maxQueryChars: options.maxQueryChars ?? 4096,
  };
  const limits = resolveHttpLimits({ maxBodyBytes: 1 << 20, ...options.limits });
  return createLimitedServer(limits, async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/health") {
      sendJson(res, 200, { status: "ok", ...(options.passages !== undefined ? { passages: options.passages } : {}) });
      return;
    }
    if (!checkApiKey(req, options.apiKey, "bearer")) throw new HttpError(401, "missing or wrong API key (send Authorization: Bearer <key>)");
    if (path !== "/retrieve") throw new HttpError(404, `no route ${path}; POST /retrieve`);
    if (req.method !== "POST") throw new HttpError(405, "use POST /retrieve");
    const { queries, topk, scores } = parseRetrieveRequest(await readJsonBody(req, limits.maxBodyBytes), bounds);
    const lists = retriever.retrieve(queries, topk);
    sendJson(res, 200, { result: scores ? lists : lists.map((l) => l.map((h) => h.document)) });
  });
}
