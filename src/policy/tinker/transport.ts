/**
 * HTTP to a Tinker server (node:http, keep-alive; GETs follow redirects): one POST or GET with a
 * per-request timeout, bounded retries with exponential back-off on what can pass (network
 * errors, timeouts, 429, 5xx), the same `X-Idempotency-Key` on every retry of one logical
 * request (the SDK's header; servers use it, with `seq_id`, to run a retried training request
 * once), and one-line errors that name the endpoint and quote what the server said. Futures
 * (`retrieve_future`) are in `futures.ts`.
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { RemoteError } from "../../core/errors.ts";
import { PROTO_CONTENT_TYPE } from "./wire.ts";

/** A request the Tinker server refused or that could not be completed. */
export class TinkerError extends RemoteError {
  /** HTTP status, or 0 when no answer came (network error, timeout). */
  readonly status: number;
  /** The server's own words (its `detail`), or the network error. */
  readonly detail: string;
  constructor(endpoint: string, status: number, detail: string) {
    super(`tinker ${endpoint}: ${status === 0 ? "" : `HTTP ${status}: `}${detail}`);
    this.status = status;
    this.detail = detail;
  }
}

/** Transport settings. */
export type TransportOptions = {
  /** Server root, e.g. `http://127.0.0.1:8000` (`/api/v1` is added). */
  readonly baseUrl: string;
  /** Sent as `X-API-Key` when given (hosted Tinker needs one; SkyRL takes any). */
  readonly apiKey?: string;
  /** Per-request timeout in milliseconds. @default 120000 */
  readonly timeoutMs?: number;
  /** Retries after the first attempt for transient failures. @default 4 */
  readonly retries?: number;
  /** First back-off delay in milliseconds, doubled after each retry. @default 250 */
  readonly backoffMs?: number;
};

/** A body: JSON (an object) or protobuf bytes. */
export type Body = { json: unknown } | { proto: Uint8Array };

/** What came back: JSON, or bytes when the server answered with protobuf. */
export type Reply = { json: unknown } | { proto: Uint8Array };

let keyCounter = 0;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The server's message in an error body (`{"detail": ...}` in FastAPI and ours), else the raw text. */
function detailOf(text: string): string {
  try {
    const j = JSON.parse(text) as { detail?: unknown; error?: unknown; message?: unknown };
    const d = j.detail ?? j.error ?? j.message;
    if (typeof d === "string") return d;
    if (d !== undefined) return JSON.stringify(d).slice(0, 300);
  } catch {
    // not JSON: fall through to the text
  }
  return text.replace(/\s+/g, " ").trim().slice(0, 300) || "(empty body)";
}

/** HTTP to one Tinker server. */
export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  /** A session-unique prefix of idempotency keys. */
  private readonly keyPrefix = `seed-${process.pid}-${Date.now().toString(36)}`;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 250;
  }

  /** A fresh idempotency key (one per logical request, reused by its retries). */
  newKey(): string {
    return `${this.keyPrefix}-${++keyCounter}`;
  }

  /**
   * POSTs `body` to `/api/v1/<op>`. Retries transient failures with the same idempotency key;
   * `retryable(status)` may widen what counts as transient (retrieve_future's 408).
   * @throws TinkerError naming the endpoint and the server's message
   */
  async post(op: string, body: Body, options: { key?: string; accept?: "json" | "proto"; retryable?: (status: number) => boolean; timeoutMs?: number; headers?: Readonly<Record<string, string>> } = {}): Promise<Reply> {
    return this.request("POST", op, body, options);
  }

  /** GETs `/api/v1/<path>`; the reply's raw bytes. */
  async getBytes(path: string): Promise<Uint8Array> {
    const r = await this.request("GET", path, null, { raw: true });
    return "proto" in r ? r.proto : new TextEncoder().encode(JSON.stringify(r.json));
  }

  /** GETs `/api/v1/<path>` as JSON. */
  async getJson(path: string): Promise<unknown> {
    const r = await this.request("GET", path, null, {});
    if (!("json" in r)) throw new TinkerError(`${this.baseUrl}/api/v1/${path}`, 200, "expected a JSON answer");
    return r.json;
  }

  private async request(method: string, op: string, body: Body | null, options: { key?: string; accept?: "json" | "proto"; retryable?: (status: number) => boolean; timeoutMs?: number; raw?: boolean; headers?: Readonly<Record<string, string>> }): Promise<Reply> {
    const url = `${this.baseUrl}/api/v1/${op}`;
    const endpoint = `${method} ${url}`;
    const key = options.key ?? (method === "POST" ? this.newKey() : undefined);
    const headers: Record<string, string> = { ...options.headers };
    if (this.apiKey !== undefined) headers["X-API-Key"] = this.apiKey;
    if (key !== undefined) headers["X-Idempotency-Key"] = key;
    if (options.accept === "proto") headers["Accept"] = `${PROTO_CONTENT_TYPE}, application/json`;
    let payload: string | Uint8Array | undefined;
    if (body !== null && "json" in body) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body.json);
    } else if (body !== null) {
      headers["Content-Type"] = PROTO_CONTENT_TYPE;
      payload = body.proto;
    }
    let last: TinkerError | null = null;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(this.backoffMs * 2 ** (attempt - 1));
      const timeoutMs = options.timeoutMs ?? this.timeoutMs;
      let res: RawResponse;
      try {
        res = await this.exchange(method, url, headers, payload, timeoutMs);
        // A GET may be redirected (SkyRL answers a checkpoint archive with 302 to the file): follow
        // up to 5 hops, sending the key only to the same origin.
        for (let hop = 0; method === "GET" && res.status >= 300 && res.status < 400 && res.location !== undefined; hop++) {
          if (hop === 5) throw new TinkerError(endpoint, res.status, "more than 5 redirects");
          const next = new URL(res.location, url);
          const sameOrigin = next.origin === new URL(url).origin;
          res = await this.exchange("GET", next.href, sameOrigin ? headers : {}, undefined, timeoutMs);
        }
      } catch (e) {
        if (e instanceof TinkerError) throw e;
        const err = e as Error & { code?: string };
        const why = err.name === "TimeoutError" ? `no answer within ${(timeoutMs / 1000).toFixed(1)} s` : `unreachable (${err.code ?? err.message})`;
        last = new TinkerError(endpoint, 0, why);
        continue;
      }
      const type = (res.contentType ?? "").split(";")[0]!.trim().toLowerCase();
      if (res.status >= 200 && res.status < 300) {
        if (options.raw || type === PROTO_CONTENT_TYPE) return { proto: new Uint8Array(res.body) }; // a copy: a small Buffer is a view into Node's shared pool
        const text = res.body.toString("utf8");
        try {
          return { json: text === "" ? null : JSON.parse(text) };
        } catch {
          throw new TinkerError(endpoint, res.status, `answered with something that is not JSON: ${text.slice(0, 120)}`);
        }
      }
      const err = new TinkerError(endpoint, res.status, detailOf(res.body.toString("utf8")));
      const transient = res.status === 429 || res.status >= 500 || (options.retryable?.(res.status) ?? false);
      if (!transient) throw err;
      last = err;
    }
    throw last!;
  }

  /**
   * One HTTP exchange over node:http(s) with a keep-alive agent. Not `fetch`: a turn of a rollout
   * is one asample and one retrieve_future per sequence, and fetch's per-request cost (about
   * 0.4-0.6 ms on loopback, measured) was most of what the protocol path adds to an update;
   * node:http's is about a third of that.
   * @throws an Error named "TimeoutError" when no full answer came within `timeoutMs`, else the socket's error (with its `code`)
   */
  private exchange(method: string, url: string, headers: Record<string, string>, payload: string | Uint8Array | undefined, timeoutMs: number): Promise<RawResponse> {
    const secure = url.startsWith("https:");
    const send = secure ? httpsRequest : httpRequest;
    const all: Record<string, string | number> = { ...headers };
    if (payload !== undefined) all["Content-Length"] = typeof payload === "string" ? Buffer.byteLength(payload) : payload.byteLength;
    return new Promise<RawResponse>((resolve, reject) => {
      let settled = false;
      const finish = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        f();
      };
      const req = send(url, { method, headers: all, agent: secure ? httpsAgent : httpAgent }, (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => finish(() => resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], location: res.headers.location, body: Buffer.concat(parts) })));
        res.on("error", (e) => finish(() => reject(e)));
      });
      const timer = setTimeout(() => {
        const e = new Error(`no answer within ${timeoutMs} ms`);
        e.name = "TimeoutError";
        finish(() => reject(e));
        req.destroy();
      }, timeoutMs);
      req.on("error", (e) => finish(() => reject(e)));
      req.end(payload);
    });
  }
}

/** A whole answer as it came off the socket. */
type RawResponse = { status: number; contentType: string | undefined; location: string | undefined; body: Buffer };

// One keep-alive pool per process: a rollout turn sends a request per sequence at once.
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });
