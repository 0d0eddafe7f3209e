/**
 * The shape of a Qwen2-family decoder: sizes, RoPE base, biases, tying, context and compute
 * dtype. Validation reports every problem at once as a `ConfigError`. Named presets cover the
 * tests (`tiny`), the embedded default (`embedded`), the engine benchmark (`bench`) and the shape
 * of Qwen2.5-0.5B. The mapping to and from Hugging Face `config.json` field names lives here too;
 * reading and writing the file itself is the checkpoint code's job, not this file's.
 */
import { ConfigError, type ConfigIssue } from "../core/errors.ts";

/** Compute dtype of the matmuls. Master weights, gradients and optimizer state are always f32. */
export type ComputeDtype = "f32" | "bf16";

/** A Qwen2-family decoder. Head size is `dModel / nHeads`, as in Hugging Face Qwen2. */
export type ModelConfig = {
  readonly vocabSize: number;
  readonly dModel: number;
  readonly nLayers: number;
  /** Query heads. */
  readonly nHeads: number;
  /** Key/value heads (grouped-query attention); divides `nHeads`. */
  readonly nKvHeads: number;
  /** Hidden size of the SwiGLU MLP (Hugging Face `intermediate_size`). */
  readonly ffnSize: number;
  /** RoPE base. */
  readonly ropeTheta: number;
  /** Bias on the q, k and v projections (true in Qwen2). */
  readonly qkvBias: boolean;
  /** The LM head reuses `model.embed_tokens.weight`. */
  readonly tiedEmbeddings: boolean;
  /** Longest sequence (prompt + response) the model accepts; bounds the KV cache. */
  readonly maxContext: number;
  readonly rmsNormEps: number;
  /**
   * Matmul compute dtype. "bf16" rounds matmul inputs to bf16 and accumulates in f32 (AMX
   * where the CPU has it); master weights stay f32. @default "f32"
   */
  readonly dtype: ComputeDtype;
};

/** Size of one attention head. */
export function headDim(c: ModelConfig): number {
  return c.dModel / c.nHeads;
}

const INT_FIELDS = ["vocabSize", "dModel", "nLayers", "nHeads", "nKvHeads", "ffnSize", "maxContext"] as const;

/** The problems of a candidate config, empty when it is valid. Never throws. */
export function configIssues(input: unknown): ConfigIssue[] {
  if (typeof input !== "object" || input === null) return [{ path: "", message: "a model config is an object" }];
  const c = input as Record<string, unknown>;
  const issues: ConfigIssue[] = [];
  for (const f of INT_FIELDS) {
    const v = c[f];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1) issues.push({ path: f, message: `must be a positive integer, got ${String(v)}` });
  }
  const num = (f: string) => c[f];
  if (typeof num("ropeTheta") !== "number" || !((num("ropeTheta") as number) > 1)) issues.push({ path: "ropeTheta", message: `must be a number > 1, got ${String(num("ropeTheta"))}` });
  const eps = num("rmsNormEps");
  if (typeof eps !== "number" || !(eps > 0 && eps < 1)) issues.push({ path: "rmsNormEps", message: `must be in (0, 1), got ${String(eps)}` });
  for (const f of ["qkvBias", "tiedEmbeddings"]) {
    if (typeof c[f] !== "boolean") issues.push({ path: f, message: `must be a boolean, got ${String(c[f])}` });
  }
  if (c["dtype"] !== "f32" && c["dtype"] !== "bf16") issues.push({ path: "dtype", message: `must be "f32" or "bf16", got ${String(c["dtype"])}` });
  if (issues.length > 0) return issues;
  const m = c as unknown as ModelConfig;
  if (m.dModel % m.nHeads !== 0) issues.push({ path: "nHeads", message: `must divide dModel (${m.dModel}), got ${m.nHeads}` });
  else if ((m.dModel / m.nHeads) % 2 !== 0) issues.push({ path: "nHeads", message: `head size dModel/nHeads = ${m.dModel / m.nHeads} must be even for RoPE` });
  if (m.nHeads % m.nKvHeads !== 0) issues.push({ path: "nKvHeads", message: `must divide nHeads (${m.nHeads}), got ${m.nKvHeads}` });
  for (const k of Object.keys(c)) {
    if (!(k in TINY)) issues.push({ path: k, message: "unknown field" });
  }
  return issues;
}

/** A validated config (a fresh frozen copy), or a `ConfigError` listing every problem. */
export function modelConfig(input: unknown): ModelConfig {
  const issues = configIssues(input);
  if (issues.length > 0) throw new ConfigError(issues.map((i) => ({ path: `model.${i.path}`.replace(/\.$/, ""), message: i.message })));
  return Object.freeze({ ...(input as ModelConfig) });
}

const TINY: ModelConfig = {
  vocabSize: 64, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, ffnSize: 48,
  ropeTheta: 10000, qkvBias: true, tiedEmbeddings: true, maxContext: 64, rmsNormEps: 1e-6, dtype: "f32",
};

/**
 * Named shapes. `tiny`: tests (GQA and biases exercised, ~30k params). `embedded`: the laptop-class
 * default of DESIGN.md §5 (~2M params with a 2k vocab). `bench`: the engine benchmark of issue 2
 * (4 layers, d 256, 4 heads, vocab 2048, SwiGLU at about 8/3 d rounded up to a multiple of 64).
 * `qwen2.5-0.5b`: the Hugging Face Qwen2.5-0.5B shape, for loading real checkpoints and the bf16
 * memory benchmark.
 */
export const MODEL_PRESETS = {
  tiny: TINY,
  embedded: { ...TINY, vocabSize: 2048, dModel: 128, nLayers: 4, nHeads: 4, nKvHeads: 2, ffnSize: 384, maxContext: 2048 },
  bench: { ...TINY, vocabSize: 2048, dModel: 256, nLayers: 4, nHeads: 4, nKvHeads: 4, ffnSize: 704, maxContext: 1024 },
  "qwen2.5-0.5b": {
    vocabSize: 151936, dModel: 896, nLayers: 24, nHeads: 14, nKvHeads: 2, ffnSize: 4864,
    ropeTheta: 1000000, qkvBias: true, tiedEmbeddings: true, maxContext: 32768, rmsNormEps: 1e-6, dtype: "bf16",
  },
} as const satisfies Record<string, ModelConfig>;

/** Name of a preset in `MODEL_PRESETS`. */
export type ModelPresetName = keyof typeof MODEL_PRESETS;

/**
 * A preset, optionally with fields overridden, validated.
 * @example presetConfig("tiny", { vocabSize: 300 })
 */
export function presetConfig(name: string, overrides: Partial<ModelConfig> = {}): ModelConfig {
  if (!(name in MODEL_PRESETS)) {
    throw new ConfigError([{ path: "model.preset", message: `unknown preset '${name}' (one of ${Object.keys(MODEL_PRESETS).join(", ")})` }]);
  }
  return modelConfig({ ...MODEL_PRESETS[name as ModelPresetName], ...overrides });
}

/** Number of parameters of a config (tied embeddings counted once). */
export function parameterCount(c: ModelConfig): number {
  const hd = headDim(c);
  const kv = c.nKvHeads * hd;
  const attn = c.dModel * c.dModel * 2 + 2 * kv * c.dModel + (c.qkvBias ? c.dModel + 2 * kv : 0);
  const layer = attn + 3 * c.dModel * c.ffnSize + 2 * c.dModel;
  return c.vocabSize * c.dModel * (c.tiedEmbeddings ? 1 : 2) + c.nLayers * layer + c.dModel;
}

/**
 * The Hugging Face `config.json` object of a config (Qwen2ForCausalLM). Our `dtype` becomes
 * `torch_dtype` ("float32" / "bfloat16"); saved weights are always f32.
 */
export function toHfConfig(c: ModelConfig): Record<string, unknown> {
  return {
    architectures: ["Qwen2ForCausalLM"],
    model_type: "qwen2",
    vocab_size: c.vocabSize,
    hidden_size: c.dModel,
    num_hidden_layers: c.nLayers,
    num_attention_heads: c.nHeads,
    num_key_value_heads: c.nKvHeads,
    intermediate_size: c.ffnSize,
    rope_theta: c.ropeTheta,
    max_position_embeddings: c.maxContext,
    rms_norm_eps: c.rmsNormEps,
    tie_word_embeddings: c.tiedEmbeddings,
    hidden_act: "silu",
    torch_dtype: c.dtype === "bf16" ? "bfloat16" : "float32",
    // Not a Hugging Face field: Qwen2 always has qkv biases; we record ours so a bias-free model round-trips.
    seed_qkv_bias: c.qkvBias,
  };
}

/**
 * A config from a Hugging Face Qwen2 `config.json` object. Fields we do not model (sliding
 * window, rope scaling) are rejected when they would change the numerics. `dtype` may be forced
 * (e.g. run a bf16 checkpoint in f32).
 */
export function fromHfConfig(json: unknown, options: { dtype?: ComputeDtype } = {}): ModelConfig {
  if (typeof json !== "object" || json === null) throw new ConfigError([{ path: "config.json", message: "not a JSON object" }]);
  const j = json as Record<string, unknown>;
  const issues: ConfigIssue[] = [];
  const mt = j["model_type"];
  if (mt !== undefined && mt !== "qwen2") issues.push({ path: "config.json.model_type", message: `only "qwen2" is supported, got ${JSON.stringify(mt)}` });
  const act = j["hidden_act"];
  if (act !== undefined && act !== "silu") issues.push({ path: "config.json.hidden_act", message: `only "silu" is supported, got ${JSON.stringify(act)}` });
  if (j["rope_scaling"] !== undefined && j["rope_scaling"] !== null) issues.push({ path: "config.json.rope_scaling", message: "rope scaling is not supported" });
  if (j["use_sliding_window"] === true) issues.push({ path: "config.json.use_sliding_window", message: "sliding-window attention is not supported" });
  if (issues.length > 0) throw new ConfigError(issues);
  const heads = j["num_attention_heads"];
  const dtype = options.dtype ?? (j["torch_dtype"] === "bfloat16" ? "bf16" : "f32");
  return modelConfig({
    vocabSize: j["vocab_size"],
    dModel: j["hidden_size"],
    nLayers: j["num_hidden_layers"],
    nHeads: heads,
    nKvHeads: j["num_key_value_heads"] ?? heads,
    ffnSize: j["intermediate_size"],
    ropeTheta: j["rope_theta"] ?? 10000,
    qkvBias: j["seed_qkv_bias"] ?? true,
    tiedEmbeddings: j["tie_word_embeddings"] ?? false,
    maxContext: j["max_position_embeddings"],
    rmsNormEps: j["rms_norm_eps"] ?? 1e-6,
    dtype,
  });
}
