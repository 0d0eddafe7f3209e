/**
 * An OpenAI-compatible HTTP server over any `Policy` (`seed serve` runs it on an embedded
 * checkpoint): `GET /v1/models`, `POST /v1/completions` (token-id or text prompts, `logprobs`,
 * `echo`), `POST /v1/chat/completions` (ChatML), `GET /health`, plus two extensions the
 * `RemotePolicy` client uses: vLLM's `return_tokens_as_token_ids` / `include_stop_str_in_output`
 * / `stop_token_ids` / `top_k`, and `GET /v1/seed/tokenizer` (the model's tokenizer.json).
 *
 * Concurrent requests are gathered into one batched `policy.sample` / `policy.score` call.
 * Deliberate limits, each answered with HTTP 400 and a message: no streaming, `n` = 1, and
 * `logprobs` of at most 1 (the engine returns the chosen token's log-prob, not alternatives, so
 * `top_logprobs` holds only the chosen token). Sampled log-probs are of the distribution actually
 * sampled (temperature, top-k/top-p applied); prompt log-probs (`echo`) are untempered.
 * A request without `seed` gets one derived from the server seed and its arrival number.
 *
 * The HTTP limits of `core/http.ts` apply: a body over `limits.maxBodyBytes` (default 8 MiB) gets
 * a readable 413, slow headers or bodies 408, connections beyond the cap are closed, and with
 * `apiKey` every route but `/health` needs `Authorization: Bearer <key>` (401 otherwise).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { HttpError as LimitError, checkApiKey, createLimitedServer, readJsonBody, resolveHttpLimits, type HttpLimits } from "../core/http.ts";
import { deriveSeed } from "../core/rng.ts";
import { SeedError } from "../core/errors.ts";
import type { Policy, Sample, SampleRequest, ScoreRequest } from "../policy/policy.ts";
import { ChatFormat, type ChatMessage } from "./chat-format.ts";

/** Options of {@link createOpenAiServer}. */
export type OpenAiServerOptions = {
  /** The model id clients name in requests and `/v1/models` lists. */
  readonly modelName: string;
  /** The model's tokenizer.json text, published at `/v1/seed/tokenizer`. */
  readonly tokenizerJson?: string;
  /** Chat formatting of `/v1/chat/completions`. @default new ChatFormat(policy.tokenizer) */
  readonly chat?: ChatFormat;
  /** Base seed of requests that carry none. @default 0 */
  readonly seed?: number;
  /** Most sequences per batched policy call. @default 64 */
  readonly maxBatch?: number;
  /** Request log (one line per request). */
  readonly log?: (line: string) => void;
  /**
   * JSON documents published at `GET /v1/seed/<name>` (`seed serve` publishes `agent`: the
   * settings the checkpoint was trained with, so a client can act as it was trained).
   */
  readonly documents?: Readonly<Record<string, unknown>>;
  /** Body size, timeouts and connection cap. @default DEFAULT_HTTP_LIMITS of core/http.ts */
  readonly limits?: Partial<HttpLimits>;
  /** When set, requests (but `GET /health`) must carry `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
};

/** An error answered as HTTP `status` with an OpenAI-style error body. */
class HttpError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, message: string, type = "BadRequestError") {
    super(message);
    this.status = status;
    this.type = type;
  }
}

type Json = Record<string, unknown>;

/** Gathers items submitted while a batch runs into the next batch. */
class Batcher<Q, R> {
  private queue: { item: Q; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private running = false;
  private readonly run: (items: Q[]) => Promise<R[]>;
  private readonly max: number;

  constructor(run: (items: Q[]) => Promise<R[]>, max: number) {
    this.run = run;
    this.max = max;
  }

  submit(item: Q): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.max);
      try {
        const results = await this.run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (e) {
        // Requests are validated before they get here, so this is a last line of defence: run
        // each alone, so whatever one request provoked fails that request and no other.
        if (batch.length === 1) batch[0]!.reject(e);
        else {
          for (const b of batch) {
            try {
              b.resolve((await this.run([b.item]))[0]!);
            } catch (alone) {
              b.reject(alone);
            }
          }
        }
      }
    }
    this.running = false;
  }
}

function int(body: Json, key: string, fallback: number, min: number): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw new HttpError(400, `'${key}' must be an integer >= ${min}`);
  return v;
}

/** A number in [min, max], or (min, max] when `openMin`. */
function num(body: Json, key: string, fallback: number, min: number, max: number, openMin = false): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  const ok = typeof v === "number" && (openMin ? v > min : v >= min) && v <= max;
  if (!ok) throw new HttpError(400, `'${key}' must be a number in ${openMin ? "(" : "["}${min}, ${max}]`);
  return v;
}

function bool(body: Json, key: string): boolean {
  const v = body[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw new HttpError(400, `'${key}' must be a boolean`);
  return v;
}

function stopStrings(body: Json): string[] {
  const v = body["stop"];
  if (v === undefined || v === null) return [];
  const list = typeof v === "string" ? [v] : v;
  if (!Array.isArray(list) || !list.every((s) => typeof s === "string" && s.length > 0)) throw new HttpError(400, "'stop' must be a string or a list of non-empty strings");
  if (list.length > MAX_STOP) throw new HttpError(400, `'stop' may hold at most ${MAX_STOP} strings`);
  return list as string[];
}

/** Most stop strings per request (OpenAI allows 4; vLLM more). Each is searched for in every sample. */
const MAX_STOP = 64;

/** Shared sampling parameters of both endpoints. */
type Generation = {
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  seed: number;
  stop: string[];
  stopTokens: number[];
  includeStop: boolean;
};

/**
 * An HTTP server answering the OpenAI API subset above with `policy`. Call `listen` on it.
 * @example
 * const server = createOpenAiServer(policy, { modelName: "seed-agent" });
 * server.listen(8000, "127.0.0.1");
 */
export function createOpenAiServer(policy: Policy, options: OpenAiServerOptions): Server {
  const tok = policy.tokenizer;
  const chat = options.chat ?? new ChatFormat(tok);
  const maxBatch = options.maxBatch ?? 64;
  const limits = resolveHttpLimits(options.limits);
  let maxTokenBytes = 0;
  /**
   * Refuses, before tokenizing, a text that cannot fit the context: every token stands for at most
   * `maxTokenBytes` UTF-8 bytes (a lossy decode only over-counts), so a text of more than
   * `maxContext * maxTokenBytes` bytes needs more than `maxContext` tokens. This keeps a client's
   * megabytes out of the tokenizer, whose work grows with the text.
   */
  const checkTextFits = (texts: readonly string[], what: string) => {
    if (maxTokenBytes === 0) for (let id = 0; id < tok.vocabSize; id++) maxTokenBytes = Math.max(maxTokenBytes, Buffer.byteLength(tok.decode([id])));
    const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
    if (bytes > policy.maxContext * Math.max(1, maxTokenBytes)) {
      throw new HttpError(400, `This model's maximum context length is ${policy.maxContext} tokens; the ${what} holds ${bytes} bytes of text, more than that many tokens can hold`);
    }
  };
  const created = Math.floor(Date.now() / 1000);
  let arrivals = 0;
  const sampler = new Batcher<SampleRequest, Sample>((rs) => policy.sample(rs), maxBatch);
  const scorer = new Batcher<ScoreRequest, Float32Array>((rs) => policy.score(rs), maxBatch);

  /**
   * Every sampling field of one request, validated in full here, before it joins a batch: a
   * value the sampler would refuse (top_p 0, a fractional max_completion_tokens) must fail its
   * own request with 400, never the batched call of its neighbours.
   */
  const generation = (body: Json, promptLength: number, defaultMax: number): Generation => {
    const maxTokens = int(body, "max_tokens", int(body, "max_completion_tokens", defaultMax, 0), 0);
    if (body["max_tokens"] !== undefined && body["max_tokens"] !== null && body["max_completion_tokens"] !== undefined && body["max_completion_tokens"] !== null && body["max_tokens"] !== body["max_completion_tokens"]) {
      throw new HttpError(400, "'max_tokens' and 'max_completion_tokens' disagree; give one");
    }
    if (promptLength + maxTokens > policy.maxContext) {
      throw new HttpError(400, `This model's maximum context length is ${policy.maxContext} tokens; the request needs ${promptLength} prompt + ${maxTokens} completion tokens`);
    }
    const topK = int(body, "top_k", 0, -1);
    const stopIds = body["stop_token_ids"];
    if (stopIds !== undefined && stopIds !== null && !(Array.isArray(stopIds) && stopIds.every((x) => Number.isInteger(x) && x >= 0 && x < tok.vocabSize))) {
      throw new HttpError(400, "'stop_token_ids' must be a list of token ids");
    }
    if (bool(body, "stream")) throw new HttpError(400, "streaming is not supported by this server");
    if (int(body, "n", 1, 1) !== 1) throw new HttpError(400, "only n = 1 is supported");
    return {
      maxTokens,
      temperature: num(body, "temperature", 1, 0, 100),
      topP: num(body, "top_p", 1, 0, 1, true),
      topK: topK < 0 ? 0 : topK,
      seed: int(body, "seed", deriveSeed(options.seed ?? 0, "request", arrivals++), Number.MIN_SAFE_INTEGER),
      stop: stopStrings(body),
      stopTokens: [...new Set([...chat.stopTokens, ...((stopIds as number[] | undefined) ?? [])])],
      includeStop: bool(body, "include_stop_str_in_output"),
    };
  };

  const sampleOne = async (prompt: number[], g: Generation): Promise<Sample> => {
    if (g.maxTokens === 0) return { tokens: [], logprobs: [], finishReason: "length" };
    return sampler.submit({
      prompt, maxTokens: g.maxTokens, temperature: g.temperature, topP: g.topP, topK: g.topK,
      seed: g.seed >>> 0, stopTokens: g.stopTokens, ...(g.stop.length > 0 ? { stopStrings: g.stop } : {}),
    });
  };

  /** The generated ids and text a client sees: final stop token out of the text; stop string cut unless asked to keep it. */
  const visible = (s: Sample, g: Generation): { ids: number[]; lps: number[]; text: string } => {
    let ids = [...s.tokens];
    let lps = [...s.logprobs];
    let text = chat.responseText(ids);
    if (!g.includeStop && g.stop.length > 0) {
      const at = g.stop.reduce((first, x) => {
        const i = text.indexOf(x);
        return i !== -1 && i < first ? i : first;
      }, Infinity);
      if (Number.isFinite(at)) {
        text = text.slice(0, at);
        while (ids.length > 0 && tok.decode(ids).length > at) {
          ids = ids.slice(0, -1);
          lps = lps.slice(0, -1);
        }
      }
    }
    return { ids, lps, text };
  };

  const tokenString = (id: number, asIds: boolean) => (asIds ? `token_id:${id}` : tok.decode([id]));

  const completions = async (body: Json): Promise<Json> => {
    const raw = body["prompt"];
    let prompts: number[][];
    const isIds = (x: unknown) => Array.isArray(x) && x.every((t) => Number.isInteger(t) && t >= 0 && t < tok.vocabSize);
    if (typeof raw === "string" || (Array.isArray(raw) && raw.every((p) => typeof p === "string"))) {
      for (const p of typeof raw === "string" ? [raw] : (raw as string[])) checkTextFits([p], "prompt");
    }
    if (typeof raw === "string") prompts = [tok.encode(raw, { allowSpecial: true })];
    else if (isIds(raw)) prompts = [raw as number[]];
    else if (Array.isArray(raw) && raw.length > 0 && raw.every((p) => typeof p === "string")) prompts = (raw as string[]).map((p) => tok.encode(p, { allowSpecial: true }));
    else if (Array.isArray(raw) && raw.length > 0 && raw.every(isIds)) prompts = raw as number[][];
    else throw new HttpError(400, "'prompt' must be a string, a list of strings, a list of token ids, or a list of such lists");
    if (prompts.some((p) => p.length === 0)) throw new HttpError(400, "'prompt' must not be empty");
    const logprobs = body["logprobs"];
    if (logprobs !== undefined && logprobs !== null && !(logprobs === 0 || logprobs === 1)) {
      throw new HttpError(400, "'logprobs' may be 0 or 1 here: the engine returns the chosen token's log-prob only, not alternatives");
    }
    const wantLogprobs = logprobs === 0 || logprobs === 1;
    const echo = bool(body, "echo");
    const asIds = bool(body, "return_tokens_as_token_ids");
    const gens = prompts.map((p) => generation(body, p.length, 16));
    if (!echo && gens.some((g) => g.maxTokens === 0)) throw new HttpError(400, "'max_tokens' of 0 needs 'echo': true");
    const results = await Promise.all(
      prompts.map(async (prompt, i) => {
        const g = gens[i]!;
        const [sample, promptScores] = await Promise.all([
          sampleOne(prompt, g),
          echo && wantLogprobs ? scorer.submit({ tokens: prompt, start: 1 }) : Promise.resolve(undefined),
        ]);
        return { prompt, g, sample, promptScores };
      }),
    );
    let completionTokens = 0;
    const choices = results.map(({ prompt, g, sample, promptScores }, index) => {
      const v = visible(sample, g);
      completionTokens += v.ids.length;
      const text = (echo ? tok.decode(prompt) : "") + v.text;
      let lp: Json | null = null;
      if (wantLogprobs) {
        const ids = [...(echo ? prompt : []), ...v.ids];
        const values: (number | null)[] = [...(echo ? [null, ...Array.from(promptScores ?? [])] : []), ...v.lps];
        const offsets: number[] = [];
        let at = 0;
        for (const id of ids) {
          offsets.push(at);
          at += tok.decode([id]).length;
        }
        lp = {
          tokens: ids.map((id) => tokenString(id, asIds)),
          token_logprobs: values,
          top_logprobs: ids.map((id, i) => (values[i] === null ? null : { [tokenString(id, asIds)]: values[i]! })),
          text_offset: offsets,
        };
      }
      const finish = sample.finishReason === "stop" ? "stop" : "length";
      return { index, text, logprobs: lp, finish_reason: finish, stop_reason: null };
    });
    const promptTokens = prompts.reduce((n, p) => n + p.length, 0);
    return {
      id: `cmpl-${arrivals}`, object: "text_completion", created: Math.floor(Date.now() / 1000), model: options.modelName, choices,
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  };

  const chatCompletions = async (body: Json): Promise<Json> => {
    const raw = body["messages"];
    if (!Array.isArray(raw) || raw.length === 0) throw new HttpError(400, "'messages' must be a non-empty list");
    const messages: ChatMessage[] = raw.map((m: unknown, i) => {
      const msg = m as Json;
      const role = msg?.["role"];
      if (role !== "system" && role !== "user" && role !== "assistant") throw new HttpError(400, `messages[${i}].role must be system, user or assistant`);
      const c = msg["content"];
      let content: string;
      if (typeof c === "string") content = c;
      else if (Array.isArray(c) && c.every((p) => (p as Json)?.["type"] === "text" && typeof (p as Json)["text"] === "string")) content = c.map((p) => (p as Json)["text"] as string).join("");
      else throw new HttpError(400, `messages[${i}].content must be a string or a list of text parts`);
      return { role, content };
    });
    checkTextFits(messages.map((m) => m.content), "conversation");
    const prompt = chat.conversation(messages);
    const g = generation(body, prompt.length, Math.max(0, Math.min(512, policy.maxContext - prompt.length)));
    if (g.maxTokens === 0) throw new HttpError(400, "'max_tokens' must be at least 1 for chat completions");
    const top = int(body, "top_logprobs", 0, 0);
    if (top > 1) throw new HttpError(400, "'top_logprobs' may be at most 1 here: the engine returns the chosen token's log-prob only");
    const sample = await sampleOne(prompt, g);
    const v = visible(sample, g);
    const logprobs = bool(body, "logprobs")
      ? { content: v.ids.map((id, i) => ({ token: tok.decode([id]), logprob: v.lps[i]!, bytes: [...Buffer.from(tok.decode([id]))], top_logprobs: top === 1 ? [{ token: tok.decode([id]), logprob: v.lps[i]! }] : [] })) }
      : null;
    return {
      id: `chatcmpl-${arrivals}`, object: "chat.completion", created: Math.floor(Date.now() / 1000), model: options.modelName,
      choices: [{ index: 0, message: { role: "assistant", content: v.text }, logprobs, finish_reason: sample.finishReason === "stop" ? "stop" : "length" }],
      usage: { prompt_tokens: prompt.length, completion_tokens: v.ids.length, total_tokens: prompt.length + v.ids.length },
    };
  };

  const route = async (req: IncomingMessage): Promise<{ status: number; body: unknown; raw?: string }> => {
    const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/health") return { status: 200, body: { status: "ok" } };
    if (req.method === "GET" && path === "/v1/models") {
      return { status: 200, body: { object: "list", data: [{ id: options.modelName, object: "model", created, owned_by: "seed", max_model_len: policy.maxContext }] } };
    }
    const doc = /^\/v1\/seed\/([\w-]+)$/.exec(path)?.[1];
    if (req.method === "GET" && doc !== undefined && doc !== "tokenizer") {
      if (options.documents === undefined || !Object.hasOwn(options.documents, doc)) throw new HttpError(404, `this server publishes no '${doc}' document`, "NotFoundError");
      return { status: 200, body: options.documents[doc] };
    }
    if (req.method === "GET" && path === "/v1/seed/tokenizer") {
      if (options.tokenizerJson === undefined) throw new HttpError(404, "this server has no tokenizer.json to publish", "NotFoundError");
      return { status: 200, body: null, raw: options.tokenizerJson };
    }
    if (req.method === "POST" && (path === "/v1/completions" || path === "/v1/chat/completions")) {
      const body = await readJsonBody(req, limits.maxBodyBytes);
      if (body["model"] !== undefined && body["model"] !== options.modelName) {
        throw new HttpError(404, `The model '${String(body["model"])}' does not exist (this server serves '${options.modelName}')`, "NotFoundError");
      }
      return { status: 200, body: path === "/v1/completions" ? await completions(body) : await chatCompletions(body) };
    }
    throw new HttpError(404, `no route for ${req.method} ${path}`, "NotFoundError");
  };

  const fail = (res: ServerResponse, e: unknown) => {
    const http = asApiError(e);
    send(res, http.status, JSON.stringify({ error: { message: http.message, type: http.type, code: http.status } }));
  };
  return createLimitedServer(limits, (req, res) => {
    const t0 = performance.now();
    return Promise.resolve()
      .then(() => {
        if (!checkApiKey(req, options.apiKey, "bearer") && (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "") !== "/health") {
          throw new HttpError(401, "missing or wrong API key (send Authorization: Bearer <key>)", "AuthenticationError");
        }
        return route(req);
      })
      .then((r) => send(res, r.status, r.raw ?? JSON.stringify(r.body)))
      .catch((e: unknown) => fail(res, e))
      .finally(() => options.log?.(`${req.method} ${req.url} ${res.statusCode} ${(performance.now() - t0).toFixed(0)}ms`));
  }, fail);
}

/** Any error as the HTTP error a client gets: ours as they are, a user-facing one as 400, the rest 500. */
function asApiError(e: unknown): HttpError {
  if (e instanceof HttpError) return e;
  if (e instanceof LimitError) return new HttpError(e.status, e.message, e.status === 413 ? "RequestTooLargeError" : e.status === 408 ? "RequestTimeoutError" : "BadRequestError");
  if (e instanceof SeedError) return new HttpError(400, e.message);
  return new HttpError(500, `internal error: ${(e as Error)?.message ?? String(e)}`, "InternalServerError");
}

function send(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
