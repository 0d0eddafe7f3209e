/**
 * The state behind `seed serve --api tinker`: sessions, models (each an `EmbeddedPolicy` trained
 * in full: our engine has no LoRA), samplers, checkpoints on disk and futures. HTTP lives in
 * `server.ts`; this file turns decoded protocol requests into policy calls.
 *
 * - Work runs one operation at a time, in arrival order, through `job-queue.ts` (which also
 *   batches consecutive `asample` requests and deduplicates by (model_id, seq_id)).
 * - Losses: `cross_entropy` and `importance_sampling`, reduced by `sum` (the Tinker contract) or,
 *   with `reduction: "sequence-mean"`, as SkyRL's JAX back end does (each datum's loss divided by
 *   the sum of its weights, gradients by the datum count at `optim_step`), so a client's handling
 *   of that back end is tested here too. Every `forward`/`forward_backward` reports `loss:sum`.
 * - Checkpoints: `save_weights` writes our checkpoint format (weights, optimizer) under
 *   `stateDir/<model>/weights/<name>`, sampler checkpoints under `.../sampler/<name>` (weights and
 *   tokenizer, loadable by `seed eval --checkpoint`); both outlive the process, so a client can
 *   resume against a restarted server with the same state directory.
 * - Requests are deduplicated by (model_id, seq_id) and by `X-Idempotency-Key`: a retry gets the
 *   first request's future.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { EmbeddedPolicy, type FrozenPolicy } from "../embedded.ts";
import type { Policy, SampleRequest, ScoreRequest } from "../policy.ts";
import { JobQueue, type FutureState, type FutureValue } from "./job-queue.ts";
import { ProtocolError } from "./protocol-error.ts";
import { datumInput, type BatchMember, type Datum, type TensorData } from "./wire.ts";

type Model = { id: string; base: string; session: string; policy: EmbeddedPolicy; datums: number };

/** Options of the engine. */
export type TinkerEngineOptions = {
  /** Base models by name: name -> checkpoint directory. The directory path itself is accepted as a name too. */
  readonly models: ReadonlyMap<string, string>;
  /** Where checkpoints are written. */
  readonly stateDir: string;
  /** @default "sum" */
  readonly reduction?: "sum" | "sequence-mean";
  /** A session without a heartbeat for this long is dropped with its models. @default 300000 */
  readonly sessionTimeoutMs?: number;
};

let idCounter = 0;
function newId(prefix: string): string {
  return `${prefix}_${process.pid.toString(36)}${Date.now().toString(36)}${(++idCounter).toString(36)}`;
}

const NAME = /^[a-zA-Z0-9_-]{1,255}$/;

/** The engine of our Tinker server. */
export class TinkerEngine {
  private readonly options: TinkerEngineOptions;
  private readonly sessions = new Map<string, number>();
  private readonly models = new Map<string, Model>();
  private readonly samplers = new Map<string, Policy>();
  private readonly samplerCheckpoints = new Map<string, FrozenPolicy>();
  private readonly bases = new Map<string, Promise<EmbeddedPolicy>>();
  private readonly keyIndex = new Map<string, unknown>();
  private readonly jobs = new JobQueue();

  constructor(options: TinkerEngineOptions) {
    this.options = options;
    mkdirSync(options.stateDir, { recursive: true });
  }

  /** Names of the base models served. */
  get modelNames(): string[] {
    return [...this.options.models.keys()];
  }

  /** The answer already given to idempotency key `key`, if any. */
  replay(key: string | undefined): unknown {
    return key === undefined ? undefined : this.keyIndex.get(key);
  }

  /** Remembers the answer to idempotency key `key`. */
  remember(key: string | undefined, answer: unknown): void {
    if (key !== undefined) this.keyIndex.set(key, answer);
  }

  // --- sessions ---------------------------------------------------------------------------

  createSession(): string {
    const id = newId("session");
    this.sessions.set(id, Date.now());
    return id;
  }

  heartbeat(id: string): void {
    this.expire();
    if (!this.sessions.has(id)) throw new ProtocolError(404, "Session not found");
    this.sessions.set(id, Date.now());
  }

  /** Drops every session and its models (what a restart does; tests use it). */
  dropSessions(): void {
    this.sessions.clear();
    this.models.clear();
    this.samplers.clear();
  }

  private expire(): void {
    const limit = this.options.sessionTimeoutMs ?? 300_000;
    const now = Date.now();
    for (const [id, last] of this.sessions) {
      if (now - last <= limit) continue;
      this.sessions.delete(id);
      for (const [mid, m] of this.models) if (m.session === id) this.models.delete(mid);
    }
  }

  private model(id: string): Model {
    this.expire();
    const m = this.models.get(id);
    if (m === undefined) throw new ProtocolError(404, `Model not found: ${id}`);
    return m;
  }

  private baseDir(name: string): string {
    const dir = this.options.models.get(name) ?? [...this.options.models.values()].find((d) => resolve(d) === resolve(name));
    if (dir === undefined) throw new ProtocolError(400, `unknown base model '${name}' (this server has: ${this.modelNames.join(", ")})`);
    return dir;
  }

  /** Context length, vocabulary size and tokenizer.json text of a base model (`seed/model_info`). */
  async modelInfo(name: string): Promise<{ base_model: string; max_context: number; vocab_size: number; tokenizer_json: string | null }> {
    const dir = this.baseDir(name);
    const p = await this.base(name);
    const tok = join(dir, "tokenizer.json");
    return { base_model: name, max_context: p.maxContext, vocab_size: p.config.vocabSize, tokenizer_json: existsSync(tok) ? readFileSync(tok, "utf8") : null };
  }

  private base(name: string): Promise<EmbeddedPolicy> {
    const dir = this.baseDir(name);
    let p = this.bases.get(dir);
    if (p === undefined) {
      p = EmbeddedPolicy.load(dir);
      this.bases.set(dir, p);
    }
    return p;
  }

  /** Waits up to `ms` for future `id`: its state, or null on timeout. */
  waitFuture(id: string, ms: number): Promise<FutureState | null> {
    return this.jobs.waitFuture(id, ms);
  }

  // --- models -----------------------------------------------------------------------------

  createModel(sessionId: string, baseModel: string, rank: number): { modelId: string; requestId: string } {
    this.expire();
    if (!this.sessions.has(sessionId)) throw new ProtocolError(404, "Session not found");
    if (rank !== 0) throw new ProtocolError(400, `this server trains all weights (full fine-tuning); create the model with lora_config.rank 0, not ${rank}`);
    const dir = this.baseDir(baseModel);
    const modelId = newId("model");
    const requestId = this.jobs.enqueue({
      run: async () => {
        const policy = await EmbeddedPolicy.load(dir);
        this.models.set(modelId, { id: modelId, base: baseModel, session: sessionId, policy, datums: 0 });
        return { kind: "json", value: { model_id: modelId } };
      },
    });
    return { modelId, requestId };
  }

  /** `forward` / `forward_backward`. */
  modelPass(modelId: string, seqId: number | null, data: readonly Datum[], lossFn: string, forwardOnly: boolean): string {
    this.model(modelId);
    if (lossFn !== "cross_entropy" && lossFn !== "importance_sampling") throw new ProtocolError(400, `loss_fn '${lossFn}' is not supported here (cross_entropy, importance_sampling)`);
    if (data.length === 0) throw new ProtocolError(400, "data is empty");
    return this.jobs.enqueue({ run: () => this.runModelPass(modelId, data, lossFn, forwardOnly) }, seqId === null ? undefined : `${modelId}:${seqId}`, JSON.stringify([lossFn, forwardOnly, data]));
  }

  private async runModelPass(modelId: string, data: readonly Datum[], lossFn: string, forwardOnly: boolean): Promise<FutureValue> {
    const m = this.model(modelId);
    const vocab = m.policy.config.vocabSize;
    const requests: ScoreRequest[] = data.map((d, i) => {
      const input = datumInput(d);
      const targets = tensor(d, "target_tokens", i)!;
      if (input.length === 0 || targets.length !== input.length) throw new ProtocolError(400, `datum ${i}: target_tokens has ${targets.length} entries for ${input.length} input tokens`);
      for (let t = 0; t + 1 < input.length; t++) {
        if (targets[t] !== input[t + 1]) throw new ProtocolError(400, `datum ${i}: this server scores sequences, so target_tokens must be model_input shifted by one (position ${t} differs)`);
      }
      const tokens = [...input, targets[targets.length - 1]!];
      const bad = tokens.find((x) => !Number.isInteger(x) || x < 0 || x >= vocab);
      if (bad !== undefined) throw new ProtocolError(400, `datum ${i}: token id ${bad} is outside the vocabulary of base model '${m.base}' (${vocab} tokens)`);
      if (tokens.length > m.policy.maxContext) throw new ProtocolError(400, `datum ${i}: ${tokens.length} tokens exceed the context of ${m.policy.maxContext}`);
      return { tokens, start: 1 };
    });
    const n = requests.map((r) => r.tokens.length - 1);
    // Each datum's tensors are read (and type-checked) once: the per-token loops below index
    // them, and re-reading a tensor per token made a pass quadratic in the sequence length.
    const weights = data.map((d, i) => tensor(d, "weights", i) ?? new Array<number>(n[i]!).fill(1));
    const weightsOf = (i: number) => weights[i]!;
    const mean = this.options.reduction === "sequence-mean";
    const denoms = weights.map((w) => (mean ? Math.max(w.reduce((a, b) => a + b, 0), 1e-9) : 1));
    const denom = (i: number) => denoms[i]!;
    let logprobs: Float32Array[];
    let lossPerToken: (i: number, lp: Float32Array) => Float32Array;
    if (lossFn === "cross_entropy") {
      lossPerToken = (i, lp) => Float32Array.from(lp, (x, t) => -x * weightsOf(i)[t]!);
      if (forwardOnly) logprobs = await m.policy.score(requests);
      else logprobs = await m.policy.backwardScored(requests, requests.map((_, i) => Float32Array.from(weightsOf(i), (w) => -w / denom(i))));
    } else {
      const olds = data.map((d, i) => tensor(d, "logprobs", i) ?? []);
      const advs = data.map((d, i) => tensor(d, "advantages", i) ?? []);
      const old = (i: number) => olds[i]!;
      const adv = (i: number) => advs[i]!;
      data.forEach((_, i) => {
        if (old(i).length !== n[i] || adv(i).length !== n[i]) throw new ProtocolError(400, `datum ${i}: importance_sampling needs logprobs and advantages of ${n[i]} entries`);
      });
      logprobs = await m.policy.score(requests);
      const ratio = (i: number, t: number) => Math.exp(logprobs[i]![t]! - old(i)[t]!);
      lossPerToken = (i, lp) => Float32Array.from(lp, (_, t) => -ratio(i, t) * adv(i)[t]! * weightsOf(i)[t]!);
      if (!forwardOnly) {
        // d/dlogprob of -(ratio * A * w) is -(ratio * A * w); backward accumulates d(sum w' logprob).
        await m.policy.backward(requests, requests.map((_, i) => Float32Array.from({ length: n[i]! }, (_, t) => (-ratio(i, t) * adv(i)[t]! * weightsOf(i)[t]!) / denom(i))));
      }
    }
    if (!forwardOnly) m.datums += data.length;
    let total = 0;
    const outputs = logprobs.map((lp, i) => {
      const loss = lossPerToken(i, lp);
      let s = 0;
      for (const x of loss) s += x;
      total += s / denom(i);
      return { logprobs: f32(lp), elementwise_loss: f32(loss) };
    });
    return { kind: "forward", value: { loss_fn_output_type: "scalar", loss_fn_outputs: outputs, metrics: { "loss:sum": total } } };
  }

  optimStep(modelId: string, seqId: number | null, adam: Record<string, unknown>): string {
    this.model(modelId);
    const num = (k: string, d: number) => {
      const v = adam[k];
      if (v === undefined) return d;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new ProtocolError(400, `adam_params.${k} must be a non-negative number`);
      return v;
    };
    // The protocol's defaults (SDK AdamParams) where a field is absent.
    const settings = { lr: num("learning_rate", 1e-4), beta1: num("beta1", 0.9), beta2: num("beta2", 0.95), eps: num("eps", 1e-12), weightDecay: num("weight_decay", 0), maxGradNorm: num("grad_clip_norm", 0) };
    return this.jobs.enqueue({
      run: async () => {
        const m = this.model(modelId);
        if (this.options.reduction === "sequence-mean" && m.datums > 1) {
          for (const g of m.policy.grads.tensors().values()) for (let i = 0; i < g.length; i++) g[i] = g[i]! / m.datums;
        }
        m.datums = 0;
        const r = await m.policy.step(settings);
        return { kind: "json", value: { metrics: { grad_norm: r.gradNorm, skipped: r.skipped ? 1 : 0 } } };
      },
    }, seqId === null ? undefined : `${modelId}:${seqId}`, JSON.stringify(["optim", settings]));
  }

  saveWeightsForSampler(modelId: string, path: string | null, seqId: number | null): string {
    this.model(modelId);
    if (path !== null && !NAME.test(path)) throw new ProtocolError(400, "path must match ^[a-zA-Z0-9_-]+$");
    return this.jobs.enqueue({
      run: async () => {
        const m = this.model(modelId);
        const frozen = await m.policy.snapshot();
        if (path === null) {
          const id = newId("sampling");
          this.samplers.set(id, frozen);
          // Each update makes one; kept without bound, their weights and KV caches (about 150 MB
          // each at the demo size once used) would grow the server by that much per update.
          evictOldest(this.samplers, MAX_SAMPLING_SESSIONS);
          return { kind: "json", value: { sampling_session_id: id, path: null } };
        }
        await frozen.save(join(this.options.stateDir, modelId, "sampler", path));
        this.samplerCheckpoints.set(`${modelId}/${path}`, frozen);
        evictOldest(this.samplerCheckpoints, MAX_LOADED_SAMPLER_CHECKPOINTS);
        return { kind: "json", value: { path: `tinker://${modelId}/sampler_weights/${path}` } };
      },
    }, seqId === null ? undefined : `${modelId}:${seqId}`, JSON.stringify(["sampler", path]));
  }

  saveWeights(modelId: string, path: string): string {
    this.model(modelId);
    if (!NAME.test(path)) throw new ProtocolError(400, "path must match ^[a-zA-Z0-9_-]+$");
    return this.jobs.enqueue({
      run: async () => {
        await this.model(modelId).policy.save(join(this.options.stateDir, modelId, "weights", path));
        return { kind: "json", value: { path: `tinker://${modelId}/weights/${path}` } };
      },
    });
  }

  loadWeights(modelId: string, path: string, seqId: number | null): string {
    this.model(modelId);
    const m = /^tinker:\/\/([a-zA-Z0-9_-]+)\/weights\/([a-zA-Z0-9_-]+)$/.exec(path);
    if (m === null) throw new ProtocolError(400, "path must be tinker://<model_id>/weights/<checkpoint_id>");
    const dir = join(this.options.stateDir, m[1]!, "weights", m[2]!);
    if (!existsSync(join(dir, "config.json"))) throw new ProtocolError(404, `checkpoint not found: ${path}`);
    return this.jobs.enqueue({
      run: async () => {
        const model = this.model(modelId);
        model.policy = await EmbeddedPolicy.load(dir);
        return { kind: "json", value: { path } };
      },
    }, seqId === null ? undefined : `${modelId}:${seqId}`, JSON.stringify(["load", path]));
  }

  /** `asample` from a sampling session, a sampler checkpoint path or a base model. */
  async asample(body: { sampling_session_id?: string; model_path?: string; base_model?: string }, request: SampleRequest, n: number, promptLogprobs: boolean, group?: BatchMember): Promise<string> {
    let policy: Policy;
    if (body.sampling_session_id !== undefined) {
      const s = this.samplers.get(body.sampling_session_id);
      if (s === undefined) throw new ProtocolError(404, `Sampling session not found (this server keeps the ${MAX_SAMPLING_SESSIONS} newest; save_weights_for_sampler makes a new one)`);
      policy = s;
    } else if (body.model_path !== undefined) {
      policy = await this.samplerCheckpoint(body.model_path);
    } else if (body.base_model !== undefined) {
      policy = await this.base(body.base_model);
    } else throw new ProtocolError(400, "give one of sampling_session_id, model_path, base_model");
    const vocab = (policy as { tokenizer: { vocabSize: number } }).tokenizer.vocabSize;
    const bad = request.prompt.find((x) => !Number.isInteger(x) || x < 0 || x >= vocab);
    if (bad !== undefined) throw new ProtocolError(400, `token id ${bad} is outside the vocabulary (${vocab} tokens)`);
    if (request.prompt.length === 0) throw new ProtocolError(400, "the prompt is empty");
    if (!Number.isInteger(n) || n < 1 || n > 64) throw new ProtocolError(400, "num_samples must be an integer in [1, 64]");
    return this.jobs.enqueue({ run: async () => ({ kind: "json", value: null }), sample: { policy, request, promptLogprobs, n, ...(group === undefined ? {} : { group }) } });
  }

  private async samplerCheckpoint(path: string): Promise<Policy> {
    const m = /^tinker:\/\/([a-zA-Z0-9_-]+)\/(?:sampler_weights\/)?([a-zA-Z0-9_-]+)$/.exec(path);
    if (m === null) throw new ProtocolError(400, "model_path must be tinker://<model_id>/sampler_weights/<checkpoint_id>");
    const key = `${m[1]}/${m[2]}`;
    const cached = this.samplerCheckpoints.get(key);
    if (cached !== undefined) {
      // Most recently used last, so eviction drops the one unused longest.
      this.samplerCheckpoints.delete(key);
      this.samplerCheckpoints.set(key, cached);
      return cached;
    }
    const dir = this.samplerDir(path);
    const frozen = await (await EmbeddedPolicy.load(dir)).snapshot();
    this.samplerCheckpoints.set(key, frozen);
    evictOldest(this.samplerCheckpoints, MAX_LOADED_SAMPLER_CHECKPOINTS);
    return frozen;
  }

  /** The directory of sampler checkpoint `model/name` (for the archive download). */
  samplerDir(path: string): string {
    const m = /^(?:tinker:\/\/)?([a-zA-Z0-9_-]+)\/(?:sampler_weights\/)?([a-zA-Z0-9_-]+)$/.exec(path);
    if (m === null) throw new ProtocolError(400, `not a sampler checkpoint: ${path}`);
    const dir = join(this.options.stateDir, m[1]!, "sampler", m[2]!);
    if (!existsSync(join(dir, "config.json"))) throw new ProtocolError(404, `checkpoint not found: ${path}`);
    return dir;
  }
}

/**
 * Ephemeral sampling sessions kept in memory (the newest; a client samples from the one of its
 * current update), and named sampler checkpoints kept loaded (the most recently used; the others
 * stay on disk and load again when asked for).
 */
export const MAX_SAMPLING_SESSIONS = 4;
/** See `MAX_SAMPLING_SESSIONS`. */
export const MAX_LOADED_SAMPLER_CHECKPOINTS = 4;

/** Drops the oldest entries of an insertion-ordered map until it holds at most `max`. */
function evictOldest<K, V>(map: Map<K, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}

/** A prompt-log-prob request that samples a single token: what `scoreAndSampleOne` serves in one pass. */

function tensor(d: Datum, name: string, i: number): number[] | undefined {
  const t: TensorData | undefined = d.loss_fn_inputs[name];
  if (t === undefined) return undefined;
  if (!Array.isArray(t.data) || t.data.some((x) => typeof x !== "number")) throw new ProtocolError(400, `datum ${i}: loss_fn_inputs.${name}.data must be a list of numbers`);
  return t.data;
}

function f32(a: Float32Array): TensorData {
  return { data: Array.from(a), dtype: "float32", shape: [a.length] };
}
