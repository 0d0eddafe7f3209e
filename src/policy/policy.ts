/**
 * The policy interfaces. A policy maps token ids to token ids and log-probs; it knows nothing
 * of environments or algorithms. Implementations: `EmbeddedPolicy` (our engine), `RemotePolicy`
 * (any OpenAI-compatible server) and `ScriptedPolicy` (a test double in `src/testing`).
 */

/** Text <-> token ids. Implemented by the BPE tokenizer in `model/tokenizer/`. */
export interface Tokenizer {
  readonly vocabSize: number;
  /** Encode text. Special-token strings (`<|im_start|>`) map to their ids only if `allowSpecial`. */
  encode(text: string, options?: { allowSpecial?: boolean }): number[];
  /** Decode ids to text (special tokens rendered as their strings). */
  decode(ids: readonly number[]): string;
  /** Id of a special token by its string, or undefined. */
  specialTokenId(token: string): number | undefined;
  /** End-of-sequence id (the default stop token). */
  readonly eosId: number;
}

/**
 * Restricts which tokens may be sampled next (action masking). `allowed` gets the tokens sampled
 * so far in this response and returns the allowed next ids, or null for no restriction.
 * The same constraint is replayed when the sampled tokens are scored, so every log-prob used in a
 * ratio, a gate or a KL is of the distribution actually sampled.
 */
export interface TokenConstraint {
  allowed(generated: readonly number[]): readonly number[] | null;
}

/** One sequence to continue. */
export type SampleRequest = {
  /** Context token ids. */
  readonly prompt: readonly number[];
  /** Most new tokens to sample. */
  readonly maxTokens: number;
  /** Softmax temperature; 0 means greedy (argmax, deterministic for any seed). @default 1 */
  readonly temperature?: number;
  /** Nucleus sampling mass; 1 disables it. @default 1 */
  readonly topP?: number;
  /** Keep only the k most likely tokens; 0 disables it. @default 0 */
  readonly topK?: number;
  /** Token ids that end the response (included in the output). @default [eosId] */
  readonly stopTokens?: readonly number[];
  /** Strings that end the response once the decoded text contains them (included). */
  readonly stopStrings?: readonly string[];
  /** Seed of this request's sampling stream. */
  readonly seed: number;
  /** Optional action mask. */
  readonly constraint?: TokenConstraint;
};

/** Why sampling stopped. */
export type FinishReason = "stop" | "length" | "context";

/** The result of one `SampleRequest`. */
export type Sample = {
  /** Sampled ids, exactly as sampled (the stop token included when one ended the response). */
  readonly tokens: number[];
  /**
   * log-prob of each sampled token under the distribution actually sampled from: after
   * temperature, top-k/top-p renormalisation and the constraint. With temperature 0 it is the
   * log-prob under the untempered, constrained distribution.
   */
  readonly logprobs: number[];
  readonly finishReason: FinishReason;
};

/**
 * One sequence to score: the log-prob of every token from `start` on, given all before it.
 * `allowed[i]`, when given, restricts the softmax at scored position i (start + i) to those ids.
 */
export type ScoreRequest = {
  readonly tokens: readonly number[];
  /** First scored position (>= 1). */
  readonly start: number;
  readonly allowed?: ReadonlyArray<readonly number[] | null>;
};

/** Settings of one optimizer step. */
export type OptimizerSettings = {
  readonly lr: number;
  /** @default 0.9 */
  readonly beta1?: number;
  /** @default 0.999 */
  readonly beta2?: number;
  /** @default 1e-8 */
  readonly eps?: number;
  /** Decoupled weight decay (AdamW). @default 0 */
  readonly weightDecay?: number;
  /** Global gradient-norm clip; 0 disables it. @default 1 */
  readonly maxGradNorm?: number;
};

/** A policy that can sample and score. */
export interface Policy {
  readonly tokenizer: Tokenizer;
  /** Largest sequence (prompt + response) the policy accepts. */
  readonly maxContext: number;
  /** Batched sampling. */
  sample(requests: readonly SampleRequest[]): Promise<Sample[]>;
  /** Batched scoring: one array per request, of length `tokens.length - start`. */
  score(requests: readonly ScoreRequest[]): Promise<Float32Array[]>;
  /**
   * Forget whatever the policy caches between calls (the embedded prefix cache; a no-op where
   * nothing is cached). The trainer calls it at every update start, so a resumed run replays an
   * uninterrupted one bit for bit.
   */
  clearCaches(): void;
}

/** A frozen copy of a trainable policy's weights that can be written to a directory (and loaded back with `loadTrainablePolicy`). */
export interface PolicySnapshot extends Policy {
  /** Save the weights (no optimizer state) atomically into `dir`. */
  save(dir: string): Promise<void>;
}

/**
 * A policy that can be trained through the per-token-weight seam: `backward` accumulates the
 * gradient of `sum_t w_t * logprob_t` (same layout as `score`'s output), and `step` applies it.
 * The engine never sees an algorithm name.
 */
export interface TrainablePolicy extends Policy {
  /** Accumulate d(sum_t w_t * logprob_t)/d(theta); weights of length `tokens.length - start`. */
  backward(requests: readonly ScoreRequest[], weights: readonly Float32Array[]): Promise<void>;
  /**
   * Clip the accumulated gradient (global norm), apply one AdamW step, zero the gradient.
   * Gradients are *descended*: pass weights of the loss (e.g. -1/n for NLL), not of the objective.
   * Returns the pre-clip global gradient norm; a non-finite norm skips the update.
   */
  step(settings: OptimizerSettings): Promise<{ gradNorm: number; skipped: boolean }>;
  /** A frozen copy of the current weights (the KL reference, the analyzer snapshot). */
  snapshot(): Promise<PolicySnapshot>;
  /** Save weights, optimizer state and format version atomically into `dir`. */
  save(dir: string): Promise<void>;
}
