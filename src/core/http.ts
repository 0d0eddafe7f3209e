/**
 * The limits every seed HTTP server applies (`seed serve`, `seed retrieve serve`, the Tinker
 * server), in one place so a slow, greedy or unauthenticated client is treated alike everywhere:
 *
 * - `createLimitedServer`: a node:http server with header and whole-request timeouts (a client
 *   that trickles its headers or body is cut off with 408), an idle keep-alive timeout, and a cap
 *   on open connections (extra connections are closed at once, so memory stays bounded by
 *   `maxConnections × maxBodyBytes`). A declared `Content-Length` over the cap, with
 *   `Expect: 100-continue`, is refused before the client sends the body.
 * - `readBody` / `readJsonBody`: the request body, refused with `HttpError(413)` when it is (or
 *   declares to be) over `maxBodyBytes`, before more than the cap is held in memory. The rest of
 *   an over-limit body is drained and discarded, never left unread: closing a socket with unread
 *   input makes the kernel send a reset, and the client would lose the 413 it was sent.
 * - `apiKeyFrom`, `checkApiKey`, `exposureWarning`: an optional shared secret, in the header a
 *   protocol uses (`Authorization: Bearer <key>` for OpenAI, `X-API-Key: <key>` for Tinker),
 *   compared in constant time; a warning when a server listens beyond loopback without one.
 *
 * Each server keeps its own error body shape; `HttpError` only carries the status and message.
 * @example
 * const limits = resolveHttpLimits({ maxBodyBytes: 1 << 20 });
 * const key = apiKeyFrom(flagValue, "SEED_API_KEY");
 * const server = createLimitedServer(limits, async (req, res) => {
 *   if (!checkApiKey(req, key, "bearer")) return sendJson(res, 401, { error: "missing or wrong API key" });
 *   const body = await readJsonBody(req, limits.maxBodyBytes); // throws HttpError(413 | 400)
 *   sendJson(res, 200, { ok: true, body });
 * });
 * const warning = exposureWarning(host, key !== undefined);
 * if (warning !== null) process.stderr.write(warning + "\n");
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";

/** Limits of one server; every field has a default (see `DEFAULT_HTTP_LIMITS`). */
export type HttpLimits = {
  /** Largest request body in bytes; larger ones get 413. */
  readonly maxBodyBytes: number;
  /** Time a client has to send the complete request headers (ms); then 408. */
  readonly headersTimeoutMs: number;
  /** Time a client has to send the whole request, headers and body (ms); then 408. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests (ms). */
  readonly keepAliveTimeoutMs: number;
  /** Most open connections; further ones are closed on arrival. */
  readonly maxConnections: number;
};

/** The defaults: 8 MiB bodies, 10 s for headers, 60 s per request, 5 s idle, 128 connections. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxBodyBytes: 8 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 128,
};

/** `DEFAULT_HTTP_LIMITS` with `overrides` applied; each value must be a positive integer. */
export function resolveHttpLimits(overrides: Partial<HttpLimits> = {}): HttpLimits {
  const out = { ...DEFAULT_HTTP_LIMITS, ...dropUndefined(overrides) };
  for (const [k, v] of Object.entries(out)) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`HTTP limit ${k} must be a positive integer, got ${v}`);
  }
  // Node requires headersTimeout <= requestTimeout.
  return { ...out, headersTimeoutMs: Math.min(out.headersTimeoutMs, out.requestTimeoutMs) };
}

function dropUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** An error a handler answers as HTTP `status` with `message` (in the server's own body shape). */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "HttpError";
    this.status = status;
  }
}

/** The body of a request, or 413 when it declares or reaches more than `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    drain(req);
    return Promise.reject(tooLarge(maxBytes, declared));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        req.off("data", onData);
        drain(req);
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
    req.once("close", () => {
      if (!req.complete) reject(new HttpError(400, "the client closed the connection before sending the whole body"));
    });
  });
}

/** The body parsed as a JSON object: 413 over the cap, 400 when it is not JSON or not an object. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const bytes = await readBody(req, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new HttpError(400, "the request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new HttpError(400, "the request body must be a JSON object");
  return value as Record<string, unknown>;
}

function tooLarge(maxBytes: number, declared?: number): HttpError {
  const size = declared === undefined ? "over" : `${declared} bytes,`;
  return new HttpError(413, `request body ${size} more than the limit of ${maxBytes} bytes`);
}

/** Read and discard the rest of a body (bounded in time by the server's request timeout). */
function drain(req: IncomingMessage): void {
  req.on("error", () => {});
  req.resume();
}

/** Answer `body` as JSON with its length; a no-op when the response was already sent. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * A node:http server with `limits` applied. `handler` may be async; an `HttpError` it throws is
 * answered by `onError`, which defaults to `{"error": message}`; any other error becomes a 500.
 */
export function createLimitedServer(
  limits: HttpLimits,
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  onError: (res: ServerResponse, error: HttpError) => void = (res, e) => sendJson(res, e.status, { error: e.message }),
): Server {
  const respond = (req: IncomingMessage, res: ServerResponse) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((e: unknown) => onError(res, e instanceof HttpError ? e : new HttpError(500, `internal error: ${(e as Error)?.message ?? String(e)}`)));
  };
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often Node looks for connections past their header/request timeout; its default of
    // 30 s would let a slow client hold a connection that much past the limit.
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  }, respond);
  server.maxConnections = limits.maxConnections;
  // A client announcing an over-limit body with `Expect: 100-continue` is refused before it sends it.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
      onError(res, tooLarge(limits.maxBodyBytes, declared));
      return;
    }
    res.writeContinue();
    respond(req, res);
  });
  return server;
}

/** The key from a command-line flag, else from the environment variable `envVar`; empty means none. */
export function apiKeyFrom(flag: string | undefined, envVar: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = flag ?? env[envVar];
  return key === undefined || key === "" ? undefined : key;
}

/**
 * Whether `req` carries `key` in the header of `scheme` (`bearer`: `Authorization: Bearer <key>`;
 * `x-api-key`: `X-API-Key: <key>`). Always true when `key` is undefined (no key configured).
 * Compared through SHA-256 digests in constant time, so neither timing nor length leaks the key.
 */
export function checkApiKey(req: IncomingMessage, key: string | undefined, scheme: "bearer" | "x-api-key"): boolean {
  if (key === undefined) return true;
  let given: string | undefined;
  if (scheme === "bearer") {
    const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
    given = m?.[1]?.trim();
  } else {
    const h = req.headers["x-api-key"];
    given = Array.isArray(h) ? h[0] : h;
  }
  if (given === undefined) return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(key));
}

/** Whether `host` (a name or address a server binds to) is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h.startsWith("::ffff:127.");
}

/** A one-line warning when `host` is beyond loopback and no API key is set; otherwise null. */
export function exposureWarning(host: string, hasKey: boolean, keyHint = "--api-key or SEED_API_KEY"): string | null {
  if (hasKey || isLoopbackHost(host)) return null;
  return `warning: listening on ${host} without an API key: anyone who can reach this address can use the server (set ${keyHint})`;
}
