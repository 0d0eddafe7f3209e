/**
 * The shape of a decoder of the Qwen2 family and its relatives (Qwen3, Llama): architecture,
 * sizes, RoPE base, biases, tying, context and compute dtype. Validation reports every problem at
 * once as a `ConfigError`. Named presets cover the tests (`tiny`, `tiny-qwen3`), the embedded
 * default (`embedded`), the engine benchmark (`bench`) and the shapes of Qwen2.5-0.5B, Qwen3-1.7B
 * and SmolLM2-135M. The mapping to and from Hugging Face `config.json` field names lives here too;
 * reading and writing the file itself is the checkpoint code's job, not this file's.
 */
import { ConfigError, type ConfigIssue } from "../core/errors.ts";

/** Compute dtype of the matmuls. Master weights, gradients and optimizer state are always f32. */
export type ComputeDtype = "f32" | "bf16";

/**
 * The architecture family. All three share one graph (pre-norm RMSNorm, rotate-half RoPE, GQA,
 * SwiGLU) and the Hugging Face tensor names; they differ in a few options:
 * - `qwen2`: q, k, v biases (`qkvBias`, true in every real Qwen2);
 * - `qwen3`: no biases, a per-head RMSNorm on q and on k before RoPE (`q_norm`, `k_norm`), and a
 *   head size that need not be `dModel / nHeads`;
 * - `llama`: no biases, no q/k norm (SmolLM2, Llama 2/3 without rope scaling).
 */
export type ModelArch = "qwen2" | "qwen3" | "llama";

/** A decoder of one of the `ModelArch` families. */
export type ModelConfig = {
  readonly arch: ModelArch;
  readonly vocabSize: number;
  readonly dModel: number;
  readonly nLayers: number;
  /** Query heads. */
  readonly nHeads: number;
  /**
   * Size of one attention head, when it is not `dModel / nHeads` (Qwen3: 128 for every size).
   * Absent means `dModel / nHeads`; `modelConfig` drops it when it equals that. @default dModel / nHeads
   */
  readonly headDim?: number;
  /** Key/value heads (grouped-query attention); divides `nHeads`. */
  readonly nKvHeads: number;
  /** Hidden size of the SwiGLU MLP (Hugging Face `intermediate_size`). */
  readonly ffnSize: number;
  /** RoPE base. */
  readonly ropeTheta: number;
  /** Bias on the q, k and v projections (true in Qwen2; qwen3 and llama have none). */
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
  return c.headDim ?? c.dModel / c.nHeads;
}

/** Width of the concatenated query heads, `nHeads * headDim` (equals `dModel` unless `headDim` is set). */
export function qDim(c: ModelConfig): number {
  return c.nHeads * headDim(c);
}

/** True when the architecture normalises each q and k head before RoPE (Qwen3). */
export function hasQkNorm(c: ModelConfig): boolean {
  return c.arch === "qwen3";
}

const ARCHS: readonly ModelArch[] = ["qwen2", "qwen3", "llama"];
const INT_FIELDS = ["vocabSize", "dModel", "nLayers", "nHeads", "nKvHeads", "ffnSize", "maxContext"] as const;
const KNOWN_FIELDS = new Set(["arch", ...INT_FIELDS, "headDim", "ropeTheta", "qkvBias", "tiedEmbeddings", "rmsNormEps", "dtype"]);

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
  if (!ARCHS.includes(c["arch"] as ModelArch)) issues.push({ path: "arch", message: `must be one of ${ARCHS.join(", ")}, got ${String(c["arch"])}` });
  const hd = c["headDim"];
  if (hd !== undefined && (typeof hd !== "number" || !Number.isInteger(hd) || hd < 2)) issues.push({ path: "headDim", message: `must be an integer >= 2 when given, got ${String(hd)}` });
  if (issues.length > 0) return issues;
  const m = c as unknown as ModelConfig;
  if (m.headDim === undefined && m.dModel % m.nHeads !== 0) issues.push({ path: "nHeads", message: `must divide dModel (${m.dModel}) unless headDim is given, got ${m.nHeads}` });
  else if (headDim(m) % 2 !== 0) issues.push({ path: m.headDim === undefined ? "nHeads" : "headDim", message: `head size ${headDim(m)} must be even for RoPE` });
  if (m.nHeads % m.nKvHeads !== 0) issues.push({ path: "nKvHeads", message: `must divide nHeads (${m.nHeads}), got ${m.nKvHeads}` });
  if (m.arch !== "qwen2" && m.qkvBias) issues.push({ path: "qkvBias", message: `${m.arch} has no q/k/v biases` });
  for (const k of Object.keys(c)) {
    if (!KNOWN_FIELDS.has(k)) issues.push({ path: k, message: "unknown field" });
  }
  return issues;
}

/** A validated config (a fresh frozen copy), or a `ConfigError` listing every problem. */
export function modelConfig(input: unknown): ModelConfig {
  const issues = configIssues(input);
  if (issues.length > 0) throw new ConfigError(issues.map((i) => ({ path: `model.${i.path}`.replace(/\.$/, ""), message: i.message })));
  const c = { ...(input as ModelConfig) } as { -readonly [K in keyof ModelConfig]: ModelConfig[K] };
  // One spelling per shape, so configs compare equal whether or not the default head size was written out.
  if (c.headDim === undefined || c.headDim * c.nHeads === c.dModel) delete c.headDim;
  return Object.freeze(c);
}

const TINY: ModelConfig = {
  arch: "qwen2", vocabSize: 64, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, ffnSize: 48,
  ropeTheta: 10000, qkvBias: true, tiedEmbeddings: true, maxContext: 64, rmsNormEps: 1e-6, dtype: "f32",
};

/**
 * Named shapes. `tiny`: tests (GQA and biases exercised, ~30k params). `tiny-qwen3`: the same with
 * Qwen3's q/k norms, no biases and a head size (12) other than dModel / nHeads. `embedded`: the
 * laptop-class default (~2M params with a 2k vocab). `bench`: the engine
 * benchmark of issue 2 (4 layers, d 256, 4 heads, vocab 2048, SwiGLU at about 8/3 d rounded up to
 * a multiple of 64). `qwen2.5-0.5b`, `qwen3-1.7b`, `smollm2-135m`: the Hugging Face shapes, for
 * loading real checkpoints and the memory benchmarks.
 */
export const MODEL_PRESETS = {
  tiny: TINY,
  embedded: { ...TINY, vocabSize: 2048, dModel: 128, nLayers: 4, nHeads: 4, nKvHeads: 2, ffnSize: 384, maxContext: 2048 },
  bench: { ...TINY, vocabSize: 2048, dModel: 256, nLayers: 4, nHeads: 4, nKvHeads: 4, ffnSize: 704, maxContext: 1024 },
  "tiny-qwen3": { ...TINY, arch: "qwen3", headDim: 12, qkvBias: false },
  "qwen2.5-0.5b": {
    arch: "qwen2", vocabSize: 151936, dModel: 896, nLayers: 24, nHeads: 14, nKvHeads: 2, ffnSize: 4864,
    ropeTheta: 1000000, qkvBias: true, tiedEmbeddings: true, maxContext: 32768, rmsNormEps: 1e-6, dtype: "bf16",
  },
  "qwen3-1.7b": {
    arch: "qwen3", vocabSize: 151936, dModel: 2048, nLayers: 28, nHeads: 16, nKvHeads: 8, headDim: 128, ffnSize: 6144,
    ropeTheta: 1000000, qkvBias: false, tiedEmbeddings: true, maxContext: 40960, rmsNormEps: 1e-6, dtype: "bf16",
  },
  "smollm2-135m": {
    arch: "llama", vocabSize: 49152, dModel: 576, nLayers: 30, nHeads: 9, nKvHeads: 3, ffnSize: 1536,
    ropeTheta: 100000, qkvBias: false, tiedEmbeddings: true, maxContext: 8192, rmsNormEps: 1e-5, dtype: "f32",
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
  const hd = headDim(c), q = qDim(c);
  const kv = c.nKvHeads * hd;
  const attn = q * c.dModel * 2 + 2 * kv * c.dModel + (c.qkvBias ? q + 2 * kv : 0) + (hasQkNorm(c) ? 2 * hd : 0);
  const layer = attn + 3 * c.dModel * c.ffnSize + 2 * c.dModel;
  return c.vocabSize * c.dModel * (c.tiedEmbeddings ? 1 : 2) + c.nLayers * layer + c.dModel;
}

/** Hugging Face class name and `model_type` of each architecture. */
const HF_NAMES: Readonly<Record<ModelArch, { cls: string; type: string }>> = {
  qwen2: { cls: "Qwen2ForCausalLM", type: "qwen2" },
  qwen3: { cls: "Qwen3ForCausalLM", type: "qwen3" },
  llama: { cls: "LlamaForCausalLM", type: "llama" },
};

/**
 * The Hugging Face `config.json` object of a config (Qwen2ForCausalLM, Qwen3ForCausalLM or
 * LlamaForCausalLM). Our `dtype` becomes `torch_dtype` ("float32" / "bfloat16"), which
 * Transformers 4 and 5 both read; saved weights are always f32.
 */
export function toHfConfig(c: ModelConfig): Record<string, unknown> {
  const common = {
    architectures: [HF_NAMES[c.arch].cls],
    model_type: HF_NAMES[c.arch].type,
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
  };
  // Not a Hugging Face field: Qwen2 always has qkv biases; we record ours so a bias-free model round-trips.
  if (c.arch === "qwen2") return { ...common, seed_qkv_bias: c.qkvBias };
  // Both set no bias anywhere: their `attention_bias` would also put one on the output projection.
  const noBias = c.arch === "llama" ? { attention_bias: false, mlp_bias: false } : { attention_bias: false, use_sliding_window: false };
  return { ...common, head_dim: headDim(c), ...noBias };
}

/** The RoPE base of a config.json: `rope_theta`, or Transformers 5's `rope_parameters`; scaled RoPE is refused. */
function hfRopeTheta(j: Record<string, unknown>, issues: ConfigIssue[]): unknown {
  if (j["rope_scaling"] !== undefined && j["rope_scaling"] !== null) issues.push({ path: "config.json.rope_scaling", message: "rope scaling is not supported" });
  const rp = j["rope_parameters"];
  if (typeof rp === "object" && rp !== null) {
    const r = rp as Record<string, unknown>;
    if (r["rope_type"] !== undefined && r["rope_type"] !== "default") issues.push({ path: "config.json.rope_parameters.rope_type", message: `only "default" RoPE is supported, got ${JSON.stringify(r["rope_type"])}` });
    if (r["rope_theta"] !== undefined) return r["rope_theta"];
  }
  return j["rope_theta"] ?? 10000;
}

/**
 * A config from a Hugging Face Qwen2, Qwen3 or Llama `config.json` object. Fields we do not model
 * (sliding window, rope scaling, biases outside q/k/v, MLP biases) are rejected when they would
 * change the numerics. `dtype` may be forced (e.g. run a bf16 checkpoint in f32).
 */
export function fromHfConfig(json: unknown, options: { dtype?: ComputeDtype } = {}): ModelConfig {
  if (typeof json !== "object" || json === null) throw new ConfigError([{ path: "config.json", message: "not a JSON object" }]);
  const j = json as Record<string, unknown>;
  const issues: ConfigIssue[] = [];
  const mt = j["model_type"] ?? "qwen2";
  const arch = ARCHS.find((a) => HF_NAMES[a].type === mt);
  if (arch === undefined) issues.push({ path: "config.json.model_type", message: `only ${ARCHS.map((a) => JSON.stringify(a)).join(", ")} are supported, got ${JSON.stringify(mt)}` });
  const act = j["hidden_act"];
  if (act !== undefined && act !== "silu") issues.push({ path: "config.json.hidden_act", message: `only "silu" is supported, got ${JSON.stringify(act)}` });
  const ropeTheta = hfRopeTheta(j, issues);
  if (j["use_sliding_window"] === true) issues.push({ path: "config.json.use_sliding_window", message: "sliding-window attention is not supported" });
  for (const f of ["attention_bias", "mlp_bias"]) {
    if (arch !== "qwen2" && j[f] === true) issues.push({ path: `config.json.${f}`, message: `biases are not supported for ${String(mt)}` });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const heads = j["num_attention_heads"];
  const dt = j["torch_dtype"] ?? j["dtype"];
  const dtype = options.dtype ?? (dt === "bfloat16" ? "bf16" : "f32");
  return modelConfig({
    arch,
    vocabSize: j["vocab_size"],
    dModel: j["hidden_size"],
    nLayers: j["num_hidden_layers"],
    nHeads: heads,
    nKvHeads: j["num_key_value_heads"] ?? heads,
    ...(j["head_dim"] === undefined || j["head_dim"] === null ? {} : { headDim: j["head_dim"] }),
    ffnSize: j["intermediate_size"],
    ropeTheta,
    qkvBias: arch === "qwen2" ? (j["seed_qkv_bias"] ?? true) : false,
    tiedEmbeddings: j["tie_word_embeddings"] ?? false,
    maxContext: j["max_position_embeddings"],
    rmsNormEps: j["rms_norm_eps"] ?? 1e-6,
    dtype,
  });
}
