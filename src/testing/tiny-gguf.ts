/**
 * Small GGUF files built in memory for the GGUF tests: a tiny byte-level BPE tokenizer in
 * `tokenizer.ggml.*` metadata (the 256 byte tokens minus a chosen few, some merges, control and
 * user-defined tokens), and a tiny Llama model written the way llama.cpp's converter writes one
 * (dims fastest-first, attn_q / attn_k rows permuted to interleaved pairs, no output tensor when
 * tied). Also a minimal zip writer, to test reading a GGUF out of a wheel.
 */
import { crc32, deflateRawSync } from "node:zlib";
import type { ModelConfig } from "../model/config.ts";
import type { ParamStore } from "../model/params.ts";
import { GGML_TYPE } from "../model/gguf/dequant.ts";
import { ggufTensorNames } from "../model/gguf/load.ts";
import { permuteRows } from "../model/gguf/permute.ts";
import { GGUF_VALUE } from "../model/gguf/reader.ts";
import { encodeGguf, encodeTensor, type GgufMetaEntry, type GgufTensorEntry } from "../model/gguf/writer.ts";
import { BYTE_TO_CHAR } from "../model/tokenizer/byte-level.ts";

/** Control tokens of the tiny tokenizer (ids 0..2). */
export const TINY_GGUF_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] as const;
/** The tiny tokenizer's user-defined token (id 3): matched in text even without allowSpecial. */
export const TINY_GGUF_USER_TOKEN = "<act>";

/** Merges of the tiny tokenizer, in rank order (byte-level spelling: Ġ is a space). */
export const TINY_GGUF_MERGES: readonly (readonly [string, string])[] = [["h", "e"], ["l", "l"], ["he", "ll"], ["Ġ", "w"], ["o", "r"], ["Ġw", "or"], ["1", "2"]];

/**
 * `tokenizer.ggml.*` entries: ids 0..3 the special tokens, then the single bytes (minus
 * `missingBytes`), then one token per merge. The vocabulary is padded with unused tokens
 * (type 5) to `vocabSize` when given.
 */
export function tinyTokenizerMeta(options: { pre?: string; missingBytes?: readonly number[]; vocabSize?: number; model?: string } = {}): GgufMetaEntry[] {
  const tokens: string[] = [...TINY_GGUF_SPECIALS, TINY_GGUF_USER_TOKEN];
  const types: number[] = [3, 3, 3, 4];
  const missing = new Set(options.missingBytes ?? []);
  for (let b = 0; b < 256; b++) {
    if (missing.has(b)) continue;
    tokens.push(BYTE_TO_CHAR[b]!);
    types.push(1);
  }
  for (const [a, b] of TINY_GGUF_MERGES) {
    tokens.push(a + b);
    types.push(1);
  }
  while (options.vocabSize !== undefined && tokens.length < options.vocabSize) {
    tokens.push(`<unused${tokens.length}>`);
    types.push(5);
  }
  const S = GGUF_VALUE.STRING, A = GGUF_VALUE.ARRAY;
  return [
    { key: "tokenizer.ggml.model", type: S, value: options.model ?? "gpt2" },
    { key: "tokenizer.ggml.pre", type: S, value: options.pre ?? "smollm" },
    { key: "tokenizer.ggml.tokens", type: A, itemType: S, value: tokens },
    { key: "tokenizer.ggml.token_type", type: A, itemType: GGUF_VALUE.INT32, value: types },
    { key: "tokenizer.ggml.merges", type: A, itemType: S, value: TINY_GGUF_MERGES.map(([a, b]) => `${a} ${b}`) },
    { key: "tokenizer.ggml.bos_token_id", type: GGUF_VALUE.UINT32, value: 1 },
    { key: "tokenizer.ggml.eos_token_id", type: GGUF_VALUE.UINT32, value: 2 },
    { key: "tokenizer.ggml.add_space_prefix", type: GGUF_VALUE.BOOL, value: false },
  ];
}

/** Number of tokens `tinyTokenizerMeta` defines without padding. */
export const TINY_GGUF_VOCAB = 4 + 256 + TINY_GGUF_MERGES.length;

/**
 * A GGUF Llama model holding `params` (a llama config, vocab >= TINY_GGUF_VOCAB), every matrix
 * in `matrixType` (norms stay F32), as llama.cpp's converter lays it out.
 */
export function tinyLlamaGguf(config: ModelConfig, params: ParamStore, matrixType: number = GGML_TYPE.F32, extraMeta: GgufMetaEntry[] = []): Uint8Array {
  const U = GGUF_VALUE.UINT32, F = GGUF_VALUE.FLOAT32;
  const meta: GgufMetaEntry[] = [
    { key: "general.architecture", type: GGUF_VALUE.STRING, value: "llama" },
    { key: "general.name", type: GGUF_VALUE.STRING, value: "tiny" },
    { key: "llama.block_count", type: U, value: config.nLayers },
    { key: "llama.context_length", type: U, value: config.maxContext },
    { key: "llama.embedding_length", type: U, value: config.dModel },
    { key: "llama.feed_forward_length", type: U, value: config.ffnSize },
    { key: "llama.attention.head_count", type: U, value: config.nHeads },
    { key: "llama.attention.head_count_kv", type: U, value: config.nKvHeads },
    { key: "llama.rope.freq_base", type: F, value: config.ropeTheta },
    { key: "llama.attention.layer_norm_rms_epsilon", type: F, value: config.rmsNormEps },
    { key: "llama.vocab_size", type: U, value: config.vocabSize },
    { key: "llama.rope.dimension_count", type: U, value: config.dModel / config.nHeads },
    ...tinyTokenizerMeta({ vocabSize: config.vocabSize }),
    ...extraMeta,
  ];
  const tensors: GgufTensorEntry[] = [];
  for (const [gguf, ours] of ggufTensorNames(config)) {
    let t = params.get(ours);
    const spec = params.specs.find((s) => s.name === ours)!;
    if (/\.attn_q\./.test(gguf)) t = permuteRows(t, config.nHeads, config.dModel);
    if (/\.attn_k\./.test(gguf)) t = permuteRows(t, config.nKvHeads, config.dModel);
    const type = spec.shape.length === 1 ? GGML_TYPE.F32 : matrixType;
    tensors.push({ name: gguf, dims: [...spec.shape].reverse(), type, data: encodeTensor(t, type) });
  }

  return encodeGguf(meta, tensors);
}

/** A zip archive of `files` (stored or deflated), enough for `zip.ts`. */
export function makeZip(files: readonly { name: string; data: Uint8Array; deflate: boolean }[]): Uint8Array {
  const parts: Uint8Array[] = [], central: Uint8Array[] = [];
  let offset = 0;
  const enc = new TextEncoder();
  for (const f of files) {
    const name = enc.encode(f.name), body = f.deflate ? deflateRawSync(f.data) : f.data, crc = crc32(f.data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, f.deflate ? 8 : 0, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, body.length, true);
    local.setUint32(22, f.data.length, true);
    local.setUint16(26, name.length, true);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, 20, true);
    cd.setUint16(6, 20, true);
    cd.setUint16(10, f.deflate ? 8 : 0, true);
    cd.setUint32(16, crc, true);
    cd.setUint32(20, body.length, true);
    cd.setUint32(24, f.data.length, true);
    cd.setUint16(28, name.length, true);
    cd.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, body);
    central.push(new Uint8Array(cd.buffer), name);
    offset += 30 + name.length + body.length;
  }
  const cdSize = central.reduce((s, p) => s + p.length, 0);
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, files.length, true);
  eocd.setUint16(10, files.length, true);
  eocd.setUint32(12, cdSize, true);
  eocd.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(eocd.buffer)];
  const out = new Uint8Array(all.reduce((s, p) => s + p.length, 0));
  let p = 0;
  for (const a of all) {
    out.set(a, p);
    p += a.length;
  }
  return out;
}
