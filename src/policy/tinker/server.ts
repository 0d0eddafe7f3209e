/**
 * `createTinkerServer`: the HTTP face of `TinkerEngine` (`seed serve --api tinker`), the Tinker
 * protocol's `/api/v1/*` routes over our embedded engine:
 *
 *   GET  healthz, get_server_capabilities, training_runs/{model}/checkpoints/{id}/archive,
 *        seed/model_info?base_model= (our extension: context length, vocabulary size, tokenizer.json)
 *   POST create_session, session_heartbeat, create_model, forward (JSON), forward_backward (JSON
 *        or protobuf, `forward_only` included), optim_step, save_weights_for_sampler, asample,
 *        save_weights, load_weights, retrieve_future, client/config
 *
 * `retrieve_future` long-polls (`pollMs`, default 30 s) and answers 408 when the result is not
 * ready, as SkyRL does; results of forward/forward_backward/asample go out as protobuf when the
 * request's `Accept` names it, JSON otherwise. Errors are `{"detail": message}` with a 4xx/5xx
 * status. The HTTP limits of `core/http.ts` apply (body cap with 413, header and request
 * timeouts with 408, a connection cap), and with `apiKey` every route but `healthz` needs the
 * Tinker SDK's `X-API-Key: <key>` header (401 otherwise).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { HttpError, checkApiKey, createLimitedServer, readBody, resolveHttpLimits, type HttpLimits } from "../../core/http.ts";
import { decodeForwardBackward, encodeForwardBackwardOutput, encodeSampleResponse } from "./proto.ts";
import { ProtocolError } from "./protocol-error.ts";
import type { TinkerEngine } from "./server-engine.ts";
import { packDir } from "./tar.ts";
import { BATCH_HEADER, PROTO_CONTENT_TYPE, type BatchMember, type Datum } from "./wire.ts";
import type { SampleRequest } from "../policy.ts";

/** Options of the HTTP layer. */
export type TinkerServerOptions = {
  /** Longest `retrieve_future` wait before 408, in milliseconds. @default 30000 */
  readonly pollMs?: number;
  /** Body size (default 64 MiB here: a `forward_backward` carries whole batches), timeouts and connection cap (default 512 here). */
  readonly limits?: Partial<HttpLimits>;
  /** When set, requests (but `GET /api/v1/healthz`) must carry `X-API-Key: <apiKey>`. */
  readonly apiKey?: string;
  /** One line per request. */
  readonly log?: (line: string) => void;
};

type Json = Record<string, unknown>;

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

function sendBytes(res: ServerResponse, type: string, bytes: Uint8Array): void {
  res.writeHead(200, { "Content-Type": type, "Content-Length": bytes.length });
  res.end(bytes);
}

function str(j: Json, k: string, required = true): string | undefined {
  const v = j[k];
  if (v === undefined || v === null) {
    if (required) throw new ProtocolError(422, `field '${k}' is required`);
    return undefined;
  }
  if (typeof v !== "string") throw new ProtocolError(422, `field '${k}' must be a string`);
  return v;
}

function int(j: Json, k: string): number | null {
  const v = j[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== "number" || !Number.isInteger(v)) throw new ProtocolError(422, `field '${k}' must be an integer`);
  return v;
}

function obj(j: Json, k: string): Json {
  const v = j[k];
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ProtocolError(422, `field '${k}' must be an object`);
  return v as Json;
}

function tokensOf(input: Json, where: string): number[] {
  const chunks = input["chunks"];
  if (!Array.isArray(chunks)) throw new ProtocolError(422, `${where}.chunks must be a list`);
  return chunks.flatMap((c: Json) => {
    if (c?.["type"] !== undefined && c["type"] !== "encoded_text") throw new ProtocolError(400, `${where}: only encoded_text chunks are supported`);
    const t = c?.["tokens"];
    if (!Array.isArray(t) || t.some((x) => !Number.isInteger(x))) throw new ProtocolError(422, `${where}: tokens must be a list of integers`);
    return t as number[];
  });
}

function datumsOf(input: Json): { data: Datum[]; lossFn: string } {
  const data = input["data"];
  if (!Array.isArray(data)) throw new ProtocolError(422, "data must be a list of datums");
  const lossFn = str(input, "loss_fn")!;
  return {
    lossFn,
    data: data.map((d: Json, i: number) => {
      if (typeof d !== "object" || d === null) throw new ProtocolError(422, `datum ${i} must be an object`);
      const tokens = tokensOf(obj(d, "model_input"), `datum ${i}.model_input`);
      return { model_input: { chunks: [{ type: "encoded_text" as const, tokens }] }, loss_fn_inputs: obj(d, "loss_fn_inputs") as Datum["loss_fn_inputs"] };
    }),
  };
}

/** The `X-Seed-Batch` header (`<id> <index> <size>`), or undefined when absent. @throws ProtocolError (400) when malformed */
function batchMemberOf(header: string | string[] | undefined): BatchMember | undefined {
  if (header === undefined) return undefined;
  const m = /^(\S{1,128}) (\d{1,6}) (\d{1,6})$/.exec(Array.isArray(header) ? header.join(",") : header.trim());
  const index = Number(m?.[2]), size = Number(m?.[3]);
  if (m === null || size < 1 || index >= size) throw new ProtocolError(400, `${BATCH_HEADER} must be '<batch id> <index> <size>' with index < size, got '${header}'`);
  return { id: m[1]!, index, size };
}

function sampleRequestOf(body: Json): { request: SampleRequest; n: number; promptLogprobs: boolean } {
  const prompt = tokensOf(obj(body, "prompt"), "prompt");
  const p = obj(body, "sampling_params");
  const num = (k: string, d: number) => {
    const v = p[k];
    if (v === undefined || v === null) return d;
    if (typeof v !== "number" || !Number.isFinite(v)) throw new ProtocolError(422, `sampling_params.${k} must be a number`);
    return v;
  };
  const maxTokens = p["max_tokens"];
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens <= 0) throw new ProtocolError(400, "sampling_params.max_tokens must be a positive integer");
  const stop = p["stop"];
  let stopTokens: number[] | undefined, stopStrings: string[] | undefined;
  if (Array.isArray(stop) && stop.length > 0) {
    if (stop.every((s) => Number.isInteger(s))) stopTokens = stop as number[];
    else if (stop.every((s) => typeof s === "string")) stopStrings = stop as string[];
    else throw new ProtocolError(400, "stop must be either all integers (token IDs) or all strings, not mixed");
  }
  const topK = num("top_k", -1);
  const request: SampleRequest = {
    prompt, maxTokens, temperature: num("temperature", 1), topP: num("top_p", 1), topK: topK < 0 ? 0 : topK,
    seed: num("seed", 0) >>> 0, stopTokens: stopTokens ?? [],
    ...(stopStrings ? { stopStrings } : {}),
  };
  const n = body["num_samples"] === undefined ? 1 : Number(body["num_samples"]);
  return { request, n, promptLogprobs: body["prompt_logprobs"] === true };
}

/**
 * An HTTP server for `engine` (not yet listening).
 * @example
 * const server = createTinkerServer(new TinkerEngine({ models: new Map([["base", dir]]), stateDir }));
 * server.listen(0, "127.0.0.1");
 */
export function createTinkerServer(engine: TinkerEngine, options: TinkerServerOptions = {}): Server {
  const pollMs = options.pollMs ?? 30_000;
  // 512 connections: TinkerPolicy keeps up to 256 requests in flight (one per sequence), and a
  // connection past the cap is closed unanswered; the client chunks bodies to 5 MB, so memory stays
  // far below 512 x 64 MiB in practice.
  // Keep-alive for 75 s, not 5: a trainer's connections sit idle through its analyze and update
  // stages, and reconnecting a whole rollout turn's sockets at the next update spreads that
  // turn's requests over several milliseconds, splitting one batch into two.
  const limits = resolveHttpLimits({ maxBodyBytes: 64 * 1024 * 1024, maxConnections: 512, keepAliveTimeoutMs: 75_000, ...options.limits });
  const future = (id: string) => ({ request_id: id, future_id: id, status: "pending" });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/^\/api\/v1\//, "");
    if (!url.pathname.startsWith("/api/v1/")) throw new ProtocolError(404, `no route ${url.pathname}`);
    if (path !== "healthz" && !checkApiKey(req, options.apiKey, "x-api-key")) throw new ProtocolError(401, "missing or wrong API key (send X-API-Key: <key>)");
    if (req.method === "GET") {
      if (path === "healthz") return send(res, 200, { status: "ok" });
      if (path === "get_server_capabilities") return send(res, 200, { supported_models: engine.modelNames.map((model_name) => ({ model_name })) });
      // Our extension (like `/v1/seed/tokenizer` of the OpenAI server): what a client needs to know of a base model.
      if (path === "seed/model_info") return send(res, 200, await engine.modelInfo(url.searchParams.get("base_model") ?? engine.modelNames[0] ?? ""));
      const m = /^training_runs\/([a-zA-Z0-9_-]+)\/checkpoints\/([a-zA-Z0-9_-]+)\/(?:archive|download)$/.exec(path);
      if (m !== null) return sendBytes(res, "application/gzip", packDir(engine.samplerDir(`${m[1]}/${m[2]}`)));
      throw new ProtocolError(404, `no route GET ${url.pathname}`);
    }
    if (req.method !== "POST") throw new ProtocolError(405, `method ${req.method} not allowed`);
    const raw = await readBody(req, limits.maxBodyBytes);
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const key = typeof req.headers["x-idempotency-key"] === "string" ? req.headers["x-idempotency-key"] : undefined;
    if (path === "forward_backward" && type === PROTO_CONTENT_TYPE) {
      const replayed = engine.replay(key);
      if (replayed !== undefined) return send(res, 200, replayed);
      let r;
      try {
        r = decodeForwardBackward(new Uint8Array(raw));
      } catch (e) {
        throw new ProtocolError(422, `Invalid proto forward_backward body: ${(e as Error).message}`);
      }
      const answer = future(engine.modelPass(r.modelId, r.seqId, r.data, r.lossFn, r.forwardOnly));
      engine.remember(key, answer);
      return send(res, 200, answer);
    }
    let body: Json;
    try {
      body = raw.length === 0 ? {} : (JSON.parse(raw.toString("utf8")) as Json);
    } catch {
      throw new ProtocolError(422, "the body is not valid JSON");
    }
    if (typeof body !== "object" || body === null) throw new ProtocolError(422, "the body must be a JSON object");
    if (path === "retrieve_future") {
      const id = String(body["request_id"] ?? "");
      const f = await engine.waitFuture(id, pollMs);
      if (f === null) return send(res, 408, { detail: "Timeout waiting for result" });
      if (f.status === "failed") return send(res, 400, { detail: f.error });
      const v = f.value!;
      const proto = (req.headers["accept"] ?? "").includes(PROTO_CONTENT_TYPE);
      if (proto && v.kind === "forward") return sendBytes(res, PROTO_CONTENT_TYPE, encodeForwardBackwardOutput(v.value));
      if (proto && v.kind === "sample") return sendBytes(res, PROTO_CONTENT_TYPE, encodeSampleResponse(v.value));
      return send(res, 200, v.value);
    }
    if (path === "create_session") return send(res, 200, { type: "create_session", session_id: engine.createSession() });
    if (path === "session_heartbeat") {
      engine.heartbeat(str(body, "session_id")!);
      return send(res, 200, { type: "session_heartbeat" });
    }
    if (path === "client/config") return send(res, 200, { pjwt_auth_enabled: false });
    const replayed = engine.replay(key);
    if (replayed !== undefined) return send(res, 200, replayed);
    let answer: unknown;
    if (path === "create_model") {
      const lora = body["lora_config"] === undefined ? {} : obj(body, "lora_config");
      const { modelId, requestId } = engine.createModel(str(body, "session_id")!, str(body, "base_model")!, Number(lora["rank"] ?? 0));
      answer = { model_id: modelId, base_model: body["base_model"], lora_config: lora, status: "created", request_id: requestId };
    } else if (path === "forward" || path === "forward_backward") {
      const input = obj(body, path === "forward" ? "forward_input" : "forward_backward_input");
      const { data, lossFn } = datumsOf(input);
      answer = future(engine.modelPass(str(body, "model_id")!, int(body, "seq_id"), data, lossFn, path === "forward"));
    } else if (path === "optim_step") {
      answer = future(engine.optimStep(str(body, "model_id")!, int(body, "seq_id"), obj(body, "adam_params")));
    } else if (path === "save_weights_for_sampler") {
      const p = str(body, "path", false) ?? null;
      if (p === null && (int(body, "sampling_session_seq_id") === null || int(body, "seq_id") === null)) throw new ProtocolError(422, "Either 'path' or both 'sampling_session_seq_id' and 'seq_id' must be provided");
      answer = future(engine.saveWeightsForSampler(str(body, "model_id")!, p, p === null ? int(body, "seq_id") : null));
    } else if (path === "save_weights") {
      answer = future(engine.saveWeights(str(body, "model_id")!, str(body, "path")!));
    } else if (path === "load_weights") {
      answer = future(engine.loadWeights(str(body, "model_id")!, str(body, "path")!, int(body, "seq_id")));
    } else if (path === "asample") {
      const { request, n, promptLogprobs } = sampleRequestOf(body);
      const from: { sampling_session_id?: string; model_path?: string; base_model?: string } = {};
      for (const k of ["sampling_session_id", "model_path", "base_model"] as const) {
        const v = str(body, k, false);
        if (v !== undefined) from[k] = v;
      }
      answer = future(await engine.asample(from, request, n, promptLogprobs, batchMemberOf(req.headers[BATCH_HEADER.toLowerCase()])));
    } else throw new ProtocolError(404, `no route POST ${url.pathname}`);
    engine.remember(key, answer);
    send(res, 200, answer);
  }

  const fail = (res: ServerResponse, e: unknown) => {
    const status = e instanceof ProtocolError || e instanceof HttpError ? e.status : 500;
    if (!res.headersSent) send(res, status, { detail: e instanceof Error ? e.message : String(e) });
    else res.destroy();
  };
  return createLimitedServer(limits, (req, res) => {
    const t0 = performance.now();
    return route(req, res)
      .catch((e: unknown) => fail(res, e))
      .finally(() => options.log?.(`${req.method} ${req.url} ${res.statusCode} ${(performance.now() - t0).toFixed(0)}ms`));
  }, fail);
}
