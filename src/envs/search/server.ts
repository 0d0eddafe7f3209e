/**
 * An HTTP retrieval server with Search-R1's `/retrieve` API over any
 * synchronous `Retriever`, on node:http. `POST /retrieve` accepts Search-R1's batched body
 * `{"queries": [...], "topk": 3, "return_scores": true}` and verl-agent's `{"query": "..."}`
 * and answers `{"result": [[{"document": {"id", "contents"}, "score"}, ...], ...]}` (bare
 * documents when `return_scores` is false, as upstream). `GET /health` reports the corpus size.
 * Bad requests get a 4xx with `{"error": "..."}`; the server never crashes on input.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Retriever } from "./retriever.ts";

/** Options of `createRetrievalServer`. */
export type RetrievalServerOptions = {
  /** Results per query when the request gives no `topk`. @default 3 */
  readonly defaultTopk?: number;
  /** Largest `topk` a request may ask for. @default 100 */
  readonly maxTopk?: number;
  /** Largest request body in bytes. @default 1 MiB */
  readonly maxBodyBytes?: number;
  /** Reported by `/health`. */
  readonly passages?: number;
};

class BadRequest extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BadRequest(413, `request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Validate a `/retrieve` body: the queries, topk, and whether to return scores. */
export function parseRetrieveRequest(body: unknown, defaultTopk: number, maxTopk: number): { queries: string[]; topk: number; scores: boolean } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new BadRequest(400, "body must be a JSON object");
  const b = body as Record<string, unknown>;
  let queries: string[];
  if (Array.isArray(b["queries"]) && b["queries"].every((q) => typeof q === "string")) queries = b["queries"] as string[];
  else if (typeof b["query"] === "string") queries = [b["query"]];
  else throw new BadRequest(400, 'expected "queries": [string, ...] or "query": string');
  const topk = b["topk"] === undefined || b["topk"] === null ? defaultTopk : b["topk"];
  if (typeof topk !== "number" || !Number.isInteger(topk) || topk < 1 || topk > maxTopk) {
    throw new BadRequest(400, `"topk" must be an integer in [1, ${maxTopk}]`);
  }
  return { queries, topk, scores: b["return_scores"] === true };
}

/**
 * A server (not yet listening) answering `/retrieve` from `retriever`.
 * @example
 * const server = createRetrievalServer(new Bm25Retriever(loadCorpus(path)));
 * server.listen(8000, "127.0.0.1");
 */
export function createRetrievalServer(retriever: Retriever, options: RetrievalServerOptions = {}): Server {
  const defaultTopk = options.defaultTopk ?? 3;
  const maxTopk = options.maxTopk ?? 100;
  const maxBody = options.maxBodyBytes ?? 1 << 20;
  return createServer((req, res) => {
    void (async () => {
      try {
        const path = (req.url ?? "/").split("?")[0];
        if (path === "/health") {
          send(res, 200, { status: "ok", ...(options.passages !== undefined ? { passages: options.passages } : {}) });
          return;
        }
        if (path !== "/retrieve") throw new BadRequest(404, `no route ${path}; POST /retrieve`);
        if (req.method !== "POST") throw new BadRequest(405, "use POST /retrieve");
        const text = await readBody(req, maxBody);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new BadRequest(400, "body is not valid JSON");
        }
        const { queries, topk, scores } = parseRetrieveRequest(body, defaultTopk, maxTopk);
        const lists = retriever.retrieve(queries, topk);
        send(res, 200, { result: scores ? lists : lists.map((l) => l.map((h) => h.document)) });
      } catch (e) {
        if (res.headersSent || res.destroyed) return;
        if (e instanceof BadRequest) send(res, e.status, { error: e.message });
        else send(res, 500, { error: (e as Error).message ?? String(e) });
      }
    })();
  });
}
