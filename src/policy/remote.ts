/**
 * `RemotePolicy`: sampling and scoring against an OpenAI-compatible server (vLLM, SGLang,
 * llama.cpp, `seed serve`) through `/v1/completions`, keeping the library token-in/token-out.
 *
 * How token ids are obtained (pick with `tokenIds`):
 * - `"server"` (default, required for training): prompts are sent as token-id arrays and the
 *   server returns each sampled token as `token_id:<n>` (`return_tokens_as_token_ids`, a vLLM
 *   option that `seed serve` also honours), so ids are exactly the sampled ones. A server that
 *   answers with plain token strings is a `RemoteError` naming the option.
 * - `"retokenize"` (evaluation only): the returned text is encoded with the local tokenizer.
 *   Decoding and re-encoding does not give back the sampled ids, so these trajectories must
 *   never be trained on; log-probs are NaN where the token counts disagree.
 * The local tokenizer must be the model's own (its `tokenizer.json`); `seed serve` publishes
 * it at `GET {baseUrl}/seed/tokenizer` and `connect` fetches it from there when none is given.
 *
 * Log-probs: sampling requests `logprobs: 0`; what comes back is whatever distribution the server
 * reports (vLLM's default is the unprocessed model distribution; `seed serve` reports the
 * distribution actually sampled). Scoring uses prompt log-probs (`echo: true`, one generated
 * token that is discarded) of the untempered distribution; action masks cannot be applied
 * remotely and are a `RemoteError`. Stop strings are sent with `include_stop_str_in_output`.
 *
 * Transport: each sequence is one HTTP request (at most `concurrency` in flight), with a timeout,
 * and retries with exponential back-off on network errors, timeouts, 429 and 5xx. Other 4xx
 * answers are the server saying it lacks a feature and are reported at once.
 */
import { RemoteError } from "../core/errors.ts";
import { tokenizerFromHfJson } from "../model/tokenizer/hf-json.ts";
import type { FinishReason, Policy, Sample, SampleRequest, ScoreRequest, Tokenizer } from "./policy.ts";

/** Options of {@link RemotePolicy.connect}. */
export type RemotePolicyOptions = {
  /** Base URL of the API, with its `/v1` (e.g. `http://127.0.0.1:8000/v1`). */
  readonly baseUrl: string;
  /** Model name as the server lists it in `/v1/models`. */
  readonly model: string;
  /** The model's tokenizer. @default fetched from `{baseUrl}/seed/tokenizer` (seed serve) */
  readonly tokenizer?: Tokenizer;
  /** How sampled token ids are obtained (see the file header). @default "server" */
  readonly tokenIds?: "server" | "retokenize";
  /** Context length. @default the model's `max_model_len` from `/v1/models`, else 4096 */
  readonly maxContext?: number;
  /** Per-request timeout in milliseconds. @default 120000 */
  readonly timeoutMs?: number;
  /** Retries after the first attempt for transient failures. @default 3 */
  readonly retries?: number;
  /** First back-off delay in milliseconds, doubled after each retry. @default 500 */
  readonly backoffMs?: number;
  /** Most requests in flight at once. @default 8 */
  readonly concurrency?: number;
  /** Bearer token sent as `Authorization`, for servers that need one. */
  readonly apiKey?: string;
};

type Json = Record<string, unknown>;

/** The `logprobs` object of a completions choice (OpenAI legacy format). */
export type CompletionLogprobs = {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: (Record<string, number> | null)[] | null;
  text_offset: number[];
};

const TOKEN_ID = /^token_id:(\d+)$/;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Run `fn` over `items` with at most `limit` promises in flight, keeping order. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A policy served by an OpenAI-compatible server. Build it with {@link RemotePolicy.connect}. */
export class RemotePolicy implements Policy {
  readonly tokenizer: Tokenizer;
  readonly maxContext: number;
  readonly baseUrl: string;
  readonly model: string;
  readonly tokenIds: "server" | "retokenize";
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly concurrency: number;
  private readonly apiKey: string | undefined;

  /** `Policy.clearCaches`: a remote policy keeps no cache here. */
  clearCaches(): void {}

  private constructor(options: RemotePolicyOptions, tokenizer: Tokenizer, maxContext: number) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.model = options.model;
    this.tokenizer = tokenizer;
    this.maxContext = maxContext;
    this.tokenIds = options.tokenIds ?? "server";
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 500;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.apiKey = options.apiKey;
  }

  /**
   * Check that the server lists the model, read its context length, and get the tokenizer.
   * @throws RemoteError when the server is unreachable, lacks the model, or (without a given
   *   tokenizer) does not publish one
   * @example
   * const policy = await RemotePolicy.connect({ baseUrl: "http://127.0.0.1:8000/v1", model: "qwen", tokenizer });
   */
  static async connect(options: RemotePolicyOptions): Promise<RemotePolicy> {
    const probe = new RemotePolicy(options, { vocabSize: 0, eosId: 0, encode: () => [], decode: () => "", specialTokenId: () => undefined }, 0);
    const models = (await probe.request("GET", "/models")) as { data?: { id?: string; max_model_len?: number }[] };
    const list = Array.isArray(models.data) ? models.data : [];
    const entry = list.find((m) => m.id === options.model);
    if (entry === undefined) {
      throw new RemoteError(`${probe.baseUrl} does not serve model '${options.model}' (it lists: ${list.map((m) => m.id).join(", ") || "none"})`);
    }
    let tokenizer = options.tokenizer;
    if (tokenizer === undefined) {
      let json: unknown;
      try {
        json = await probe.request("GET", "/seed/tokenizer");
      } catch (e) {
        throw new RemoteError(`${probe.baseUrl} does not publish its tokenizer (only 'seed serve' does); pass the model's tokenizer.json explicitly`, { cause: e });
      }
      try {
        tokenizer = tokenizerFromHfJson(json, `${probe.baseUrl}/seed/tokenizer`);
      } catch (e) {
        throw new RemoteError(`${probe.baseUrl}/seed/tokenizer is not a usable tokenizer.json: ${(e as Error).message}`, { cause: e });
      }
    }
    const maxContext = options.maxContext ?? (typeof entry.max_model_len === "number" ? entry.max_model_len : 4096);
    return new RemotePolicy(options, tokenizer, maxContext);
  }

  /** One HTTP call with timeout and retries; returns the parsed JSON body. */
  async request(method: "GET" | "POST", path: string, body?: Json): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(this.backoffMs * 2 ** (attempt - 1));
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: { "content-type": "application/json", ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (e) {
        lastError = e; // connection refused, reset, or timeout: transient
        continue;
      }
      const text = await res.text();
      if (res.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new RemoteError(`${method} ${url}: the answer is not JSON: ${text.slice(0, 200)}`);
        }
      }
      const message = serverMessage(text);
      if (res.status === 429 || res.status >= 500) {
        lastError = new RemoteError(`${method} ${url}: HTTP ${res.status}: ${message}`);
        continue;
      }
      throw new RemoteError(`${method} ${url}: HTTP ${res.status}: ${message}`);
    }
    const why = lastError instanceof Error ? lastError.message : String(lastError);
    throw new RemoteError(`${method} ${url}: failed after ${this.retries + 1} attempt(s): ${why}`, { cause: lastError });
  }

  async sample(requests: readonly SampleRequest[]): Promise<Sample[]> {
    return pool(requests, this.concurrency, (r) => this.sampleOne(r));
  }

  private async sampleOne(r: SampleRequest): Promise<Sample> {
    if (r.constraint !== undefined) throw new RemoteError("a remote policy cannot apply an action mask (TokenConstraint); run without actionMask");
    const body: Json = {
      model: this.model,
      prompt: [...r.prompt],
      max_tokens: r.maxTokens,
      temperature: r.temperature ?? 1,
      top_p: r.topP ?? 1,
      seed: r.seed,
      logprobs: 0,
      skip_special_tokens: false,
      return_tokens_as_token_ids: this.tokenIds === "server",
      stop_token_ids: [...(r.stopTokens ?? [this.tokenizer.eosId])],
    };
    if ((r.topK ?? 0) > 0) body["top_k"] = r.topK;
    if (r.stopStrings && r.stopStrings.length > 0) {
      body["stop"] = [...r.stopStrings];
      body["include_stop_str_in_output"] = true;
    }
    const answer = (await this.request("POST", "/completions", body)) as Json;
    const choice = firstChoice(answer, "/completions");
    const text = typeof choice["text"] === "string" ? choice["text"] : "";
    const logprobs = choice["logprobs"] as CompletionLogprobs | null | undefined;
    const finishReason: FinishReason = choice["finish_reason"] === "length" ? "length" : "stop";
    if (this.tokenIds === "retokenize") {
      const tokens = this.tokenizer.encode(text, { allowSpecial: true });
      const lps = logprobs?.token_logprobs;
      const same = Array.isArray(lps) && lps.length === tokens.length;
      return { tokens, logprobs: tokens.map((_, i) => (same ? Number(lps[i] ?? Number.NaN) : Number.NaN)), finishReason };
    }
    if (!logprobs || !Array.isArray(logprobs.tokens) || !Array.isArray(logprobs.token_logprobs)) {
      throw new RemoteError(`${this.baseUrl}/completions returned no logprobs; the server must support 'logprobs' on completions`);
    }
    const tokens = logprobs.tokens.map((t) => parseTokenId(t, this.baseUrl));
    return { tokens, logprobs: logprobs.token_logprobs.map((x) => Number(x ?? Number.NaN)), finishReason };
  }

  async score(requests: readonly ScoreRequest[]): Promise<Float32Array[]> {
    return pool(requests, this.concurrency, (r) => this.scoreOne(r));
  }

  private async scoreOne(r: ScoreRequest): Promise<Float32Array> {
    if (r.allowed?.some((a) => a !== null)) throw new RemoteError("a remote policy cannot score under an action mask (ScoreRequest.allowed)");
    if (r.start < 1 || r.start > r.tokens.length) throw new RemoteError(`score start ${r.start} is outside [1, ${r.tokens.length}]`);
    const body: Json = {
      model: this.model,
      prompt: [...r.tokens],
      max_tokens: 1,
      temperature: 1,
      echo: true,
      logprobs: 0,
      return_tokens_as_token_ids: true,
    };
    const answer = (await this.request("POST", "/completions", body)) as Json;
    const logprobs = firstChoice(answer, "/completions")["logprobs"] as CompletionLogprobs | null | undefined;
    if (!logprobs || !Array.isArray(logprobs.token_logprobs) || logprobs.token_logprobs.length < r.tokens.length) {
      throw new RemoteError(`${this.baseUrl}/completions returned no prompt log-probs for echo=true; the server must support 'echo' with 'logprobs'`);
    }
    // The echoed ids must be ours: a server that re-tokenized the prompt would score other tokens.
    for (let i = 0; i < r.tokens.length; i++) {
      const t = logprobs.tokens[i];
      const m = t === undefined ? null : TOKEN_ID.exec(t);
      if (m && Number(m[1]) !== r.tokens[i]) throw new RemoteError(`${this.baseUrl} echoed token ${m[1]} at position ${i} where ${r.tokens[i]} was sent (the prompt was re-tokenized)`);
    }
    const out = new Float32Array(r.tokens.length - r.start);
    for (let i = 0; i < out.length; i++) {
      const v = logprobs.token_logprobs[r.start + i];
      if (typeof v !== "number") throw new RemoteError(`${this.baseUrl} returned no log-prob for prompt position ${r.start + i}`);
      out[i] = v;
    }
    return out;
  }
}

function parseTokenId(token: string, baseUrl: string): number {
  const m = TOKEN_ID.exec(token);
  if (!m) {
    throw new RemoteError(
      `${baseUrl} returned token strings instead of ids (got ${JSON.stringify(token)}); the server must support 'return_tokens_as_token_ids' ` +
        `(vLLM, seed serve), or use tokenIds: "retokenize" for evaluation only`,
    );
  }
  return Number(m[1]);
}

function firstChoice(answer: Json, path: string): Json {
  const choices = answer["choices"];
  if (!Array.isArray(choices) || typeof choices[0] !== "object" || choices[0] === null) throw new RemoteError(`${path}: the answer has no choices`);
  return choices[0] as Json;
}

function serverMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: string };
    if (typeof j.error === "string") return j.error;
    return j.error?.message ?? j.message ?? j.detail ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}
