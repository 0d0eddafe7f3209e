/**
 * `EmbeddedPolicy`: the policy that runs on our own engine: a Qwen2-family `Transformer`, its
 * BPE tokenizer and AdamW. Sampling drives KV caches (`model/sample.ts`), scoring and training
 * run packed batches through the transformer, and checkpoints use `model/checkpoint.ts`.
 * `FrozenPolicy` is the read-only copy `snapshot()` returns (the KL reference).
 *
 * The prefix cache (`prefix-cache.ts`) is on by default: in `full` history mode a turn feeds only
 * its new tokens. It is dropped after every optimizer step (it holds activations of the old
 * weights) and on every `save`. With the native engine a reused prefix can differ from a fresh
 * prefill in the last bits of f32 (the same holds for a row's position in a batch), so sampling is
 * a deterministic function of the calls made since the last step, save or load: identical runs
 * are bit-identical, and a run resumed from a checkpoint replays the original bit for bit. Scoring and training split large batches into chunks of at most `maxBatchTokens`
 * tokens; gradients accumulate across chunks, so the split changes nothing but memory.
 */
import { CheckpointError, SeedError } from "../core/errors.ts";
import { Rng, deriveSeed } from "../core/rng.ts";
import type { Engine } from "../engine/engine.ts";
import { AdamW } from "../model/adamw.ts";
import { loadCheckpoint, saveCheckpoint, type Checkpoint, type CheckpointState, type OptimizerState } from "../model/checkpoint.ts";
import { hasQkNorm, headDim, qDim, type ModelConfig } from "../model/config.ts";
import { KvCache } from "../model/kv-cache.ts";
import { ParamStore } from "../model/params.ts";
import { checkSamplingParams, decodeBatch, pickToken, PickScratch, type DecodeRequest, type DecodeSession } from "../model/sample.ts";
import type { BpeTokenizer } from "../model/tokenizer/bpe.ts";
import { Transformer } from "../model/transformer.ts";
import { chunks } from "./batching.ts";
import { PrefixCache } from "./prefix-cache.ts";
import type { OptimizerSettings, Policy, PolicySnapshot, Sample, SampleRequest, ScoreRequest, Tokenizer, TrainablePolicy } from "./policy.ts";

// The BPE tokenizer lives in model/ and cannot import policy/; this checks it still fits.
const tokenizerFits = (t: BpeTokenizer): Tokenizer => t;
void tokenizerFits;

/** Options shared by the embedded policies. */
export type EmbeddedOptions = {
  /** @default the process-wide engine */
  readonly engine?: Engine;
  /** Reuse KV caches across `sample` calls for prompts that extend earlier sequences. @default true */
  readonly prefixCache?: boolean;
  /**
   * Most tokens one forward pass of `score`/`backward` packs (larger batches are split; one
   * request is never split). @default what keeps saved activations near 2 GiB for the config
   * (about 50k tokens for the embedded preset, 1k for a Qwen2.5-0.5B shape), at least 512
   */
  readonly maxBatchTokens?: number;
};

/** What `EmbeddedPolicy.create` needs. */
export type CreateOptions = EmbeddedOptions & {
  readonly config: ModelConfig;
  readonly tokenizer: BpeTokenizer;
  /** Seed of the weight initialisation. */
  readonly seed: number;
};

/**
 * Bytes of activations the transformer keeps per token for backward (f32): per layer about
 * 6·D (residuals, norms) + 2·Q (q, attention out) + 2·KV (k, v) + 3·F (gate, up, h) + heads
 * (lse), and with Qwen3's q/k norm their inputs again (Q + KV).
 */
export function activationBytesPerToken(c: ModelConfig): number {
  const q = qDim(c), kv = c.nKvHeads * headDim(c), qk = hasQkNorm(c) ? q + kv : 0;
  return 4 * c.nLayers * (6 * c.dModel + 2 * q + 2 * kv + qk + 3 * c.ffnSize + c.nHeads);
}

function defaultBatchTokens(c: ModelConfig): number {
  return Math.max(512, Math.min(65536, Math.floor(2 ** 31 / activationBytesPerToken(c))));
}

/** Sampling and scoring over a transformer; the base of both embedded policies. */
export class EmbeddedBase implements Policy {
  readonly tokenizer: BpeTokenizer;
  readonly maxContext: number;
  readonly config: ModelConfig;
  protected readonly model: Transformer;
  protected readonly prefix: PrefixCache | null;
  protected readonly maxBatchTokens: number;

  protected constructor(model: Transformer, tokenizer: BpeTokenizer, options: EmbeddedOptions) {
    if (tokenizer.vocabSize > model.config.vocabSize) {
      throw new SeedError(`the tokenizer has ${tokenizer.vocabSize} tokens but the model only ${model.config.vocabSize}`);
    }
    this.model = model;
    this.tokenizer = tokenizer;
    this.config = model.config;
    this.maxContext = model.config.maxContext;
    this.prefix = options.prefixCache === false ? null : new PrefixCache(model);
    this.maxBatchTokens = options.maxBatchTokens ?? defaultBatchTokens(model.config);
  }

  /** Which engine runs the kernels ("native" or "reference"). */
  get engineKind(): string {
    return this.model.engine.kind;
  }

  /** The weights (shared, not copied). */
  get params(): ParamStore {
    return this.model.params;
  }

  /** Forget the prefix cache (its memory is kept for reuse). */
  clearPrefixCache(): void {
    this.prefix?.invalidate();
  }

  /** `Policy.clearCaches`: the prefix cache is the only cache. */
  clearCaches(): void {
    this.clearPrefixCache();
  }

  /** Prompt tokens served from / fed past the prefix cache so far (zeros when it is off). */
  cacheStats(): { reused: number; fed: number } {
    return { reused: this.prefix?.reusedTokens ?? 0, fed: this.prefix?.fedTokens ?? 0 };
  }

  /** Batched sampling; see `SampleRequest`. Log-probs are of the distribution actually sampled. */
  async sample(requests: readonly SampleRequest[]): Promise<Sample[]> {
    if (requests.length === 0) return [];
    const tok = this.tokenizer;
    const decodeReqs: DecodeRequest[] = requests.map((r) => {
      const constraint = r.constraint;
      return {
        prompt: r.prompt, maxTokens: r.maxTokens, seed: r.seed,
        temperature: r.temperature ?? 1, topP: r.topP ?? 1, topK: r.topK ?? 0,
        stopTokens: r.stopTokens ?? [tok.eosId], stopStrings: r.stopStrings ?? [],
        allowed: constraint === undefined ? null : (g) => constraint.allowed(g),
      };
    });
    const options = { modelVocab: this.config.vocabSize, vocab: tok.vocabSize, maxContext: this.maxContext, decode: (ids: readonly number[]) => tok.decode(ids) };
    if (this.prefix === null) {
      const cache = new KvCache(this.model, requests.length);
      return decodeBatch(cache, decodeReqs, options);
    }
    const { cache, slots, cached } = this.prefix.assign(requests.map((r) => r.prompt));
    const session: DecodeSession = { append: (rows, tokens) => cache.append(rows.map((i) => slots[i]!), tokens) };
    try {
      const results = decodeBatch(session, decodeReqs, { ...options, cached });
      results.forEach((res, i) => this.prefix!.record(slots[i]!, [...requests[i]!.prompt, ...res.tokens]));
      return results;
    } catch (e) {
      this.prefix.invalidate(); // a failed call may have left slots half-fed
      throw e;
    }
  }

  /** Batched scoring: the log-prob of every token from `start` on (masked by `allowed` where given). */
  async score(requests: readonly ScoreRequest[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const [a, b] of chunks(requests, this.maxBatchTokens)) out.push(...this.model.logprobs(requests.slice(a, b)));
    return out;
  }

  /**
   * The log-prob of every prompt token after the first and one sampled next token per request,
   * from a single forward pass each: what a Tinker `asample` with `prompt_logprobs` and
   * `max_tokens: 1` asks for (a sampling prefill plus a score pass would run the prompt twice).
   * Each request samples one token with no constraint and no stop strings, from
   * `Rng.from(seed)` as `sample` does, and must leave room for it in the context.
   * @throws SeedError for a request outside that shape
   */
  async scoreAndSampleOne(requests: readonly SampleRequest[]): Promise<{ promptLogprobs: Float32Array[]; samples: Sample[] }> {
    requests.forEach((r, i) => {
      if (r.maxTokens !== 1 || r.constraint !== undefined || (r.stopStrings?.length ?? 0) > 0) throw new SeedError(`scoreAndSampleOne: request ${i} must sample exactly one token, without a constraint or stop strings`);
      if (r.prompt.length < 1 || r.prompt.length >= this.maxContext) throw new SeedError(`scoreAndSampleOne: request ${i} has ${r.prompt.length} prompt tokens; it needs 1 to ${this.maxContext - 1}`);
      checkSamplingParams({ temperature: r.temperature ?? 1, topP: r.topP ?? 1, topK: r.topK ?? 0 });
    });
    const rows = requests.map((r) => ({ tokens: r.prompt, start: 1 }));
    const promptLogprobs: Float32Array[] = [], samples: Sample[] = [];
    const scratch = new PickScratch(), V = this.config.vocabSize, tok = this.tokenizer;
    // One placeholder token per row: chunks are sized for the rows as they will be packed.
    for (const [a, b] of chunks(requests.map((r) => ({ tokens: { length: r.prompt.length + 1 } })), this.maxBatchTokens)) {
      const { logprobs, next } = this.model.logprobsAndNext(rows.slice(a, b));
      promptLogprobs.push(...logprobs);
      for (let i = a; i < b; i++) {
        const r = requests[i]!;
        const pick = pickToken(next.subarray((i - a) * V, (i - a + 1) * V), tok.vocabSize, { temperature: r.temperature ?? 1, topP: r.topP ?? 1, topK: r.topK ?? 0 }, null, Rng.from(r.seed), scratch);
        samples.push({ tokens: [pick.token], logprobs: [pick.logprob], finishReason: (r.stopTokens ?? [tok.eosId]).includes(pick.token) ? "stop" : "length" });
      }
    }
    return { promptLogprobs, samples };
  }
}

/** The read-only copy of an `EmbeddedPolicy` (what `snapshot()` returns). */
export class FrozenPolicy extends EmbeddedBase implements PolicySnapshot {
  /** @internal use `EmbeddedPolicy.snapshot()` */
  constructor(model: Transformer, tokenizer: BpeTokenizer, options: EmbeddedOptions) {
    super(model, tokenizer, options);
  }

  /** Saves weights and tokenizer (no optimizer state) atomically into `dir`; `EmbeddedPolicy.load` reads it. */
  async save(dir: string): Promise<void> {
    saveCheckpoint(dir, { config: this.config, params: this.model.params, tokenizer: this.tokenizer });
  }
}

/** The state of an AdamW optimizer in checkpoint form (moments under plain parameter names). */
function optimizerState(opt: AdamW): OptimizerState {
  const exported = opt.exportState();
  const m = new Map<string, Float32Array>(), v = new Map<string, Float32Array>();
  for (const [name, t] of exported) {
    if (name.startsWith("adamw.m.")) m.set(name.slice(8), t);
    else if (name.startsWith("adamw.v.")) v.set(name.slice(8), t);
  }
  return { step: opt.step, m, v };
}

function restoreOptimizer(opt: AdamW, state: OptimizerState): void {
  const named = new Map<string, Float32Array>([["adamw.step", new Float32Array([state.step])]]);
  for (const [n, t] of state.m) named.set(`adamw.m.${n}`, t);
  for (const [n, t] of state.v) named.set(`adamw.v.${n}`, t);
  opt.importState(named);
}

/**
 * The trainable policy on the embedded engine.
 * @example
 * const policy = EmbeddedPolicy.create({ config: presetConfig("embedded", { vocabSize: tok.vocabSize }), tokenizer: tok, seed: 1 });
 * const [s] = await policy.sample([{ prompt: tok.encode("go to"), maxTokens: 16, seed: 7 }]);
 * await policy.backward([{ tokens: [...prompt, ...s.tokens], start: prompt.length }], [weights]);
 * await policy.step({ lr: 1e-3 });
 * await policy.save("runs/x/checkpoints/step-000001");
 */
export class EmbeddedPolicy extends EmbeddedBase implements TrainablePolicy {
  private readonly optimizer: AdamW;
  private readonly options: EmbeddedOptions;
  /** The `state.json` contents of the checkpoint this policy was loaded from (null when created fresh). */
  readonly checkpointState: CheckpointState | null;

  private constructor(model: Transformer, tokenizer: BpeTokenizer, options: EmbeddedOptions, state: CheckpointState | null) {
    super(model, tokenizer, options);
    this.options = options;
    this.optimizer = new AdamW(model.params, model.engine);
    this.checkpointState = state;
  }

  /** A fresh policy with seeded initial weights (same config and seed: same weights everywhere). */
  static create(options: CreateOptions): EmbeddedPolicy {
    const params = ParamStore.init(options.config, Rng.from(deriveSeed(options.seed, "init")));
    const model = new Transformer(options.config, params, options.engine === undefined ? {} : { engine: options.engine });
    return new EmbeddedPolicy(model, options.tokenizer, options, null);
  }

  /** A policy from a loaded checkpoint (ours: optimizer and state restored; Hugging Face: weights only). */
  static fromCheckpoint(ckpt: Checkpoint, dir: string, options: EmbeddedOptions = {}): EmbeddedPolicy {
    if (ckpt.tokenizer === null) throw new CheckpointError(dir, "has no tokenizer.json, which a policy needs");
    const model = new Transformer(ckpt.config, ckpt.params, options.engine === undefined ? {} : { engine: options.engine });
    const policy = new EmbeddedPolicy(model, ckpt.tokenizer, options, ckpt.state);
    if (ckpt.optimizer !== null) restoreOptimizer(policy.optimizer, ckpt.optimizer);
    return policy;
  }

  /**
   * Loads a checkpoint directory written by `save` (or a Hugging Face Qwen2 model directory).
   * @throws CheckpointError naming the file and the problem
   */
  static async load(dir: string, options: EmbeddedOptions & { dtype?: ModelConfig["dtype"] } = {}): Promise<EmbeddedPolicy> {
    return EmbeddedPolicy.fromCheckpoint(loadCheckpoint(dir, options.dtype === undefined ? {} : { dtype: options.dtype }), dir, options);
  }

  /** Optimizer steps taken (restored on load). */
  get optimizerStep(): number {
    return this.optimizer.step;
  }

  /** The accumulated gradients (same layout as `params`). */
  get grads(): ParamStore {
    return this.model.grads;
  }

  /** Accumulates the gradient of Σ_t w_t · logprob_t (weights laid out like `score`'s output). */
  async backward(requests: readonly ScoreRequest[], weights: readonly Float32Array[]): Promise<void> {
    await this.backwardScored(requests, weights);
  }

  /**
   * `backward` that also returns the log-probs of the forward pass it ran (the numbers `score`
   * gives), so a caller that needs both (a loss to print) pays for one forward.
   */
  async backwardScored(requests: readonly ScoreRequest[], weights: readonly Float32Array[]): Promise<Float32Array[]> {
    if (weights.length !== requests.length) throw new SeedError(`backward: ${weights.length} weight arrays for ${requests.length} requests`);
    const out: Float32Array[] = [];
    for (const [a, b] of chunks(requests, this.maxBatchTokens)) out.push(...this.model.backward(requests.slice(a, b), weights.slice(a, b)));
    return out;
  }

  /** Clip (global norm), AdamW, zero the gradient. A non-finite norm skips the update. */
  async step(settings: OptimizerSettings): Promise<{ gradNorm: number; skipped: boolean }> {
    const report = this.optimizer.update(this.model.grads, settings);
    this.model.zeroGrad();
    if (!report.skipped) this.prefix?.invalidate();
    return { gradNorm: report.gradNorm, skipped: report.skipped };
  }

  /** A frozen copy of the current weights (the KL reference); later steps do not affect it. */
  async snapshot(): Promise<FrozenPolicy> {
    const model = new Transformer(this.config, this.model.params.clone(), { engine: this.model.engine });
    return new FrozenPolicy(model, this.tokenizer, this.options);
  }

  /**
   * Saves weights, tokenizer, optimizer state and `state` atomically into `dir`. Gradients
   * accumulated since the last `step` are not saved.
   */
  async save(dir: string, state: CheckpointState = { rng: {}, extra: null }): Promise<void> {
    // A resumed run starts with an empty cache; dropping ours keeps the two runs identical.
    this.prefix?.invalidate();
    saveCheckpoint(dir, { config: this.config, params: this.model.params, tokenizer: this.tokenizer, optimizer: optimizerState(this.optimizer), state });
  }
}
