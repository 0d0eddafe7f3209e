/**
 * `TinkerPolicy`: a `TrainablePolicy` whose weights live on a Tinker server, so the trainer, every
 * preset and every baseline run unchanged against remote GPUs. The mapping:
 *
 * - `sample` -> `asample` on the weights of this update: after every `step` the weights are
 *   published once with an ephemeral `save_weights_for_sampler` (a new sampling session); one
 *   request per sequence, seeded, stop tokens as ids. Before the model exists (a fresh run that
 *   has not trained yet) it samples the base model itself.
 * - `score` -> `forward` on the training weights (`cross_entropy`, zero weights; the log-probs of
 *   every target are read from `start` on). Before the model exists, and for frozen snapshots, the
 *   prompt log-probs of `asample` (one throw-away token) on the base model or sampler checkpoint.
 * - `backward(w)` -> `forward_backward`, weights normalised for the server's reduction
 *   (`reduction.ts`); `step` -> `optim_step` with all of our AdamW settings sent explicitly.
 * - `snapshot` -> a persistent `save_weights_for_sampler` (the analyzer's θ_old, the KL reference
 *   before training starts: the base model); `save(dir)` -> `save_weights` (weights + optimizer)
 *   plus `tinker.json` and the tokenizer in `dir`, which `loadTrainablePolicy` opens again:
 *   `create_model` + `load_weights`, so a killed run resumes from its last checkpoint.
 *
 * The model is created lazily, on the first operation that needs trainable weights; that is
 * when the reduction probe runs. Action masks (`TokenConstraint`, `allowed`) cannot be expressed
 * in the protocol and are refused.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { RemoteError } from "../../core/errors.ts";
import { loadTokenizer } from "../../model/tokenizer/hf-json.ts";
import type { BpeTokenizer } from "../../model/tokenizer/bpe.ts";
import type { FinishReason, OptimizerSettings, Policy, PolicySnapshot, Sample, SampleRequest, ScoreRequest, TrainablePolicy } from "../policy.ts";
import { TinkerClient, type SamplerRef } from "./client.ts";
import { readDescriptor, writeDescriptor, type TinkerDescriptor } from "./descriptor.ts";
import { probeReduction, type Reduction } from "./reduction.ts";
import { unpackTo } from "./tar.ts";
import { datumOf, float32, type BatchMember, type Datum, type SamplingParams } from "./wire.ts";

/** Connection settings not stored in the descriptor. */
export type TinkerConnectOptions = {
  /** `X-API-Key`. @default the TINKER_API_KEY environment variable */
  readonly apiKey?: string;
  /** Per-request timeout in milliseconds. @default 120000 */
  readonly timeoutMs?: number;
  /** Retries of transient failures. @default 4 */
  readonly retries?: number;
  /** Most requests in flight at once (a turn's sequences go out together, so a server can batch them). @default 256 */
  readonly concurrency?: number;
};

let connectDefaults: TinkerConnectOptions = {};

// Batch ids unique per process and start time: several clients may share one server.
const BATCH_PREFIX = `b${process.pid.toString(36)}${Date.now().toString(36)}`;
let batchCounter = 0;

/** Sets the connection settings of policies opened later through `loadTrainablePolicy` (the CLI's flags). */
export function setTinkerConnectDefaults(options: TinkerConnectOptions): void {
  connectDefaults = { ...options };
}

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

/** Shared by the trainable policy and its snapshots: sampling and prompt-log-prob scoring. */
abstract class TinkerBase implements Policy {
  readonly tokenizer: BpeTokenizer;
  readonly maxContext: number;
  protected readonly client: TinkerClient;
  protected readonly desc: TinkerDescriptor;
  protected readonly tokenizerPath: string;
  protected readonly concurrency: number;

  protected constructor(client: TinkerClient, desc: TinkerDescriptor, tokenizer: BpeTokenizer, tokenizerPath: string, concurrency: number) {
    this.client = client;
    this.desc = desc;
    this.tokenizer = tokenizer;
    this.tokenizerPath = tokenizerPath;
    this.maxContext = desc.maxContext;
    this.concurrency = concurrency;
  }

  /** The server root. */
  get url(): string {
    return this.client.baseUrl;
  }

  /** Nothing is cached client-side. */
  clearCaches(): void {}

  /** The sampler the next `sample` uses. */
  protected abstract samplerRef(): Promise<SamplerRef>;

  async sample(requests: readonly SampleRequest[]): Promise<Sample[]> {
    if (requests.length === 0) return [];
    for (const r of requests) {
      if (r.constraint !== undefined) throw new RemoteError("a Tinker policy cannot apply an action mask (TokenConstraint); run with rollout.actionMask=false");
      if (r.stopStrings !== undefined && r.stopStrings.length > 0) throw new RemoteError("a Tinker policy stops on token ids only (the protocol's stop is all ids or all strings); drop the stop strings");
    }
    const from = await this.samplerRef();
    const sent = requests.filter((r) => Math.min(r.maxTokens, this.maxContext - r.prompt.length) > 0).length;
    const group = this.group(sent);
    let index = 0;
    return pool(requests, this.concurrency, async (r): Promise<Sample> => {
      const budget = Math.min(r.maxTokens, this.maxContext - r.prompt.length);
      if (budget <= 0) return { tokens: [], logprobs: [], finishReason: r.prompt.length >= this.maxContext ? "context" : "length" };
      const batch = group?.(index++);
      // The seed goes out as a signed 32-bit integer (SkyRL keeps it in an int32); servers that read
      // it back as unsigned (ours) get exactly the in-process seed.
      const params: SamplingParams = {
        max_tokens: budget, temperature: r.temperature ?? 1, top_p: r.topP ?? 1, top_k: (r.topK ?? 0) > 0 ? r.topK! : -1,
        seed: r.seed | 0, stop: [...(r.stopTokens ?? [this.tokenizer.eosId])],
      };
      const res = await this.client.asample(from, r.prompt, params, batch === undefined ? {} : { batch });
      const s = res.sequences[0];
      if (s === undefined) throw new RemoteError(`tinker ${this.url}: asample returned no sequence`);
      let finishReason: FinishReason = s.stop_reason === "length" ? "length" : "stop";
      if (finishReason === "length" && budget < r.maxTokens && s.tokens.length >= budget) finishReason = "context";
      return { tokens: s.tokens, logprobs: s.logprobs, finishReason };
    });
  }

  /**
   * Tags for `size` requests sent together (`BATCH_HEADER`), in the order the pool sends them;
   * none when the pool cannot have the whole group in flight at once (a server waiting for all of
   * it would wait for requests the client holds back), or for a single request.
   */
  private group(size: number): ((index: number) => BatchMember) | undefined {
    if (size < 2 || size > this.concurrency) return undefined;
    const id = `${BATCH_PREFIX}-${++batchCounter}`;
    return (index) => ({ id, index, size });
  }

  /** Scores through prompt log-probs of `asample` on `from` (base model or a sampler checkpoint). */
  protected async scoreBySampler(from: SamplerRef, requests: readonly ScoreRequest[]): Promise<Float32Array[]> {
    const group = this.group(requests.length);
    let index = 0;
    return pool(requests, this.concurrency, async (r) => {
      const params: SamplingParams = { max_tokens: 1, temperature: 1, top_p: 1, top_k: -1, seed: 0 };
      const batch = group?.(index++);
      const res = await this.client.asample(from, r.tokens, params, { promptLogprobs: true, ...(batch === undefined ? {} : { batch }) });
      const lp = res.prompt_logprobs;
      // One entry per prompt token (the first null: ours, the SDK's), or one per predicted token (SkyRL's JAX back end).
      const skip = lp == null ? -1 : lp.length === r.tokens.length ? 0 : lp.length === r.tokens.length - 1 ? 1 : -1;
      if (lp == null || skip < 0) throw new RemoteError(`tinker ${this.url}: asample returned ${lp?.length ?? "no"} prompt log-probs for ${r.tokens.length} tokens (the server must support prompt_logprobs)`);
      return Float32Array.from(lp.slice(r.start - skip), (x) => x ?? NaN);
    });
  }

  abstract score(requests: readonly ScoreRequest[]): Promise<Float32Array[]>;

  /** Writes `tinker.json` (with `extra`) and the tokenizer into `dir`, atomically as a whole. */
  protected writeDir(dir: string, extra: { weights?: string; sampler?: string }): void {
    const target = resolve(dir);
    const tmp = `${target}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    copyFileSync(this.tokenizerPath, join(tmp, "tokenizer.json"));
    const { weights: _w, sampler: _s, ...base } = this.desc;
    writeDescriptor(tmp, { ...base, ...extra });
    if (existsSync(target)) rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  }
}

function checkScoreRequests(requests: readonly ScoreRequest[]): void {
  for (const r of requests) {
    if (r.allowed !== undefined && r.allowed.some((a) => a !== null)) throw new RemoteError("a Tinker policy cannot score under an action mask; run with rollout.actionMask=false");
  }
}

/** A frozen copy on the server: a sampler checkpoint, or the base model itself. */
export class TinkerSnapshot extends TinkerBase implements PolicySnapshot {
  private readonly from: SamplerRef;

  /** @internal made by `TinkerPolicy.snapshot()` */
  constructor(client: TinkerClient, desc: TinkerDescriptor, tokenizer: BpeTokenizer, tokenizerPath: string, concurrency: number, samplerPath: string | null) {
    super(client, desc, tokenizer, tokenizerPath, concurrency);
    this.from = samplerPath === null ? { baseModel: desc.baseModel } : { modelPath: samplerPath };
  }

  protected async samplerRef(): Promise<SamplerRef> {
    return this.from;
  }

  async score(requests: readonly ScoreRequest[]): Promise<Float32Array[]> {
    checkScoreRequests(requests);
    return this.scoreBySampler(this.from, requests);
  }

  /** Writes `tinker.json` naming the sampler checkpoint (weights only, as `PolicySnapshot.save` asks). */
  async save(dir: string): Promise<void> {
    this.writeDir(dir, "modelPath" in this.from ? { sampler: this.from.modelPath } : {});
  }
}

/** The trainable policy on a Tinker server. */
export class TinkerPolicy extends TinkerBase implements TrainablePolicy {
  private modelId: string | null = null;
  private modelPromise: Promise<string> | null = null;
  private reduction: Reduction | null = null;
  private sampler: SamplerRef | null = null;
  private pending: { requests: readonly ScoreRequest[]; weights: readonly Float32Array[] }[] = [];
  private saves = 0;
  private readonly options: TinkerConnectOptions;

  private constructor(client: TinkerClient, desc: TinkerDescriptor, tokenizer: BpeTokenizer, tokenizerPath: string, options: TinkerConnectOptions) {
    super(client, desc, tokenizer, tokenizerPath, options.concurrency ?? 256);
    this.options = options;
  }

  /** Opens the Tinker policy directory `dir` (`tinker.json` + `tokenizer.json`): a new session on its server. */
  static async open(dir: string, options: TinkerConnectOptions = connectDefaults): Promise<TinkerPolicy> {
    const desc = readDescriptor(dir);
    const tokenizerPath = join(dir, "tokenizer.json");
    const tokenizer = loadTokenizer(tokenizerPath);
    const apiKey = options.apiKey ?? process.env["TINKER_API_KEY"];
    const client = await TinkerClient.connect({
      baseUrl: desc.url, wire: desc.wire,
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
    });
    return new TinkerPolicy(client, desc, tokenizer, tokenizerPath, options);
  }

  /** The model id on the server (null until created). */
  get serverModelId(): string | null {
    return this.modelId;
  }

  /** The reduction in use (null until the model exists). */
  get lossReduction(): Reduction | null {
    return this.reduction;
  }

  /** Stops the session heartbeat. */
  close(): void {
    this.client.close();
  }

  /** Creates the model (once): `create_model`, `load_weights` of the saved checkpoint, the reduction probe. */
  private ensureModel(): Promise<string> {
    this.modelPromise ??= (async () => {
      if (this.desc.sampler !== undefined && this.desc.weights === undefined) throw new RemoteError(`tinker ${this.url}: this directory holds a frozen sampler snapshot (${this.desc.sampler}), which cannot be trained`);
      const id = await this.client.createModel(this.desc.baseModel, this.desc.loraRank, this.desc.seed);
      if (this.desc.weights !== undefined) await this.client.loadWeights(id, this.desc.weights, true);
      const t = this.tokenizer;
      const probed = await probeReduction(this.client, id, this.desc.baseModel, [t.eosId, 0, Math.min(1, t.vocabSize - 1), t.vocabSize - 1], t.vocabSize);
      if (this.desc.reduction === "probe") {
        if (probed === null) throw new RemoteError(`tinker ${this.url}: the server reports no loss, so its loss reduction cannot be probed; refusing to train. Name it: --reduction sum (Tinker, SkyRL-train) or --reduction sequence-mean (SkyRL's JAX back end)`);
        this.reduction = probed;
      } else {
        if (probed !== null && probed !== this.desc.reduction) throw new RemoteError(`tinker ${this.url}: the reduction was given as ${this.desc.reduction} but the probe measured ${probed}; refusing to train`);
        this.reduction = this.desc.reduction;
      }
      this.modelId = id;
      return id;
    })();
    return this.modelPromise;
  }

  private hasTrainableState(): boolean {
    return this.modelPromise !== null || this.desc.weights !== undefined;
  }

  protected async samplerRef(): Promise<SamplerRef> {
    if (!this.hasTrainableState()) return this.desc.sampler !== undefined ? { modelPath: this.desc.sampler } : { baseModel: this.desc.baseModel };
    const id = await this.ensureModel();
    if (this.sampler === null) {
      const r = await this.client.saveWeightsForSampler(id);
      this.sampler = { samplingSessionId: r.samplingSessionId! };
    }
    return this.sampler;
  }

  async score(requests: readonly ScoreRequest[]): Promise<Float32Array[]> {
    checkScoreRequests(requests);
    if (requests.length === 0) return [];
    if (!this.hasTrainableState()) return this.scoreBySampler(this.desc.sampler !== undefined ? { modelPath: this.desc.sampler } : { baseModel: this.desc.baseModel }, requests);
    const id = await this.ensureModel();
    const data = requests.map((r) => datumOf(r.tokens, { weights: float32(new Float32Array(r.tokens.length - 1)) }));
    const out = await this.client.forward(id, data);
    return requests.map((r, i) => this.logprobsOf(out.loss_fn_outputs[i]?.["logprobs"]?.data, r));
  }

  private logprobsOf(lp: readonly number[] | undefined, r: ScoreRequest): Float32Array {
    if (lp === undefined || lp.length !== r.tokens.length - 1) throw new RemoteError(`tinker ${this.url}: forward returned ${lp?.length ?? "no"} log-probs for a datum of ${r.tokens.length - 1} targets`);
    return Float32Array.from(lp.slice(r.start - 1));
  }

  async backward(requests: readonly ScoreRequest[], weights: readonly Float32Array[]): Promise<void> {
    checkScoreRequests(requests);
    if (weights.length !== requests.length) throw new RemoteError(`backward: ${weights.length} weight arrays for ${requests.length} requests`);
    const id = await this.ensureModel();
    if (this.reduction === "sequence-mean") {
      this.pending.push({ requests, weights }); // held until step, when the datum count D is known
      return;
    }
    // Sum reduction: cross_entropy descends sum_t -logprob_t * weight_t, so weight = -w.
    const data = requests.map((r, i) => datumOf(r.tokens, { weights: float32(targetWeights(r, weights[i]!, -1)) }));
    if (data.length > 0) await this.client.forwardBackward(id, data, "cross_entropy");
  }

  /** Sends the held backward calls of a sequence-mean server (see reduction.ts). */
  private async flushSequenceMean(id: string): Promise<void> {
    const held = this.pending;
    this.pending = [];
    const requests = held.flatMap((h) => h.requests), weights = held.flatMap((h) => h.weights);
    if (requests.length === 0) return;
    const D = requests.length;
    const current = await this.client.forward(id, requests.map((r) => datumOf(r.tokens, { weights: float32(new Float32Array(r.tokens.length - 1)) })));
    const data: Datum[] = requests.map((r, i) => {
      const n = r.tokens.length - 1;
      const lp = current.loss_fn_outputs[i]?.["logprobs"]?.data;
      if (lp === undefined || lp.length !== n) throw new RemoteError(`tinker ${this.url}: forward returned ${lp?.length ?? "no"} log-probs for a datum of ${n} targets`);
      return datumOf(r.tokens, { logprobs: float32(lp), advantages: float32(targetWeights(r, weights[i]!, -n * D)) });
    });
    await this.client.forwardBackward(id, data, "importance_sampling");
  }

  async step(settings: OptimizerSettings): Promise<{ gradNorm: number; skipped: boolean }> {
    const id = await this.ensureModel();
    if (this.reduction === "sequence-mean") await this.flushSequenceMean(id);
    const m = await this.client.optimStep(id, {
      learning_rate: settings.lr, beta1: settings.beta1 ?? 0.9, beta2: settings.beta2 ?? 0.999, eps: settings.eps ?? 1e-8,
      weight_decay: settings.weightDecay ?? 0, grad_clip_norm: settings.maxGradNorm ?? 1,
    });
    this.sampler = null; // new weights: publish them again before the next sample
    const gradNorm = m["grad_norm"] ?? m["skyrl.ai/grad_norm"] ?? NaN;
    return { gradNorm, skipped: m["skipped"] === 1 };
  }

  async snapshot(): Promise<PolicySnapshot> {
    if (!this.hasTrainableState()) return new TinkerSnapshot(this.client, this.desc, this.tokenizer, this.tokenizerPath, this.concurrency, this.desc.sampler ?? null);
    const id = await this.ensureModel();
    const r = await this.client.saveWeightsForSampler(id, `seed-snapshot-${Date.now().toString(36)}-${++this.saves}`);
    return new TinkerSnapshot(this.client, this.desc, this.tokenizer, this.tokenizerPath, this.concurrency, r.path!);
  }

  /** Saves weights and optimizer state on the server (`save_weights`) and `tinker.json` + tokenizer in `dir`. */
  async save(dir: string): Promise<void> {
    const id = await this.ensureModel();
    const path = await this.client.saveWeights(id, `seed-${Date.now().toString(36)}-${++this.saves}`);
    this.writeDir(dir, { weights: path });
  }

  /**
   * Exports the current weights through the protocol into `dir`: a persistent sampler
   * checkpoint, downloaded as its archive and unpacked (with our server: a checkpoint that
   * `seed eval --checkpoint` loads). Returns the files written.
   */
  async exportWeights(dir: string): Promise<string[]> {
    const id = await this.ensureModel();
    const r = await this.client.saveWeightsForSampler(id, `seed-export-${Date.now().toString(36)}-${++this.saves}`);
    const bytes = await this.client.downloadSamplerArchive(r.path!);
    const tmp = `${resolve(dir)}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    const files = unpackTo(bytes, tmp);
    if (!existsSync(join(tmp, "tokenizer.json"))) writeFileSync(join(tmp, "tokenizer.json"), readFileSync(this.tokenizerPath));
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, resolve(dir));
    return files;
  }

  /** Connection settings this policy was opened with. */
  get connectOptions(): TinkerConnectOptions {
    return this.options;
  }
}

/** Per-target weights of a datum for `r`: zero before `start`, `scale * w` from there on. */
function targetWeights(r: ScoreRequest, w: Float32Array, scale: number): Float32Array {
  const out = new Float32Array(r.tokens.length - 1);
  if (w.length !== r.tokens.length - r.start) throw new RemoteError(`backward: ${w.length} weights for ${r.tokens.length - r.start} scored tokens`);
  for (let i = 0; i < w.length; i++) out[r.start - 1 + i] = scale * w[i]!;
  return out;
}
