/**
 * Our byte-level BPE tokenizer from a GGUF file's `tokenizer.ggml.*` metadata (llama.cpp's "gpt2"
 * tokenizer model): `tokens` (byte-level strings, the id is the index), `token_type`, `merges`
 * ("a b" strings in rank order), `eos_token_id`, and `pre`, the name llama.cpp gives the
 * pre-tokenizer. Token types follow llama.cpp: 1 normal (vocab), 3 control and 2 unknown (special
 * added tokens: matched only with `allowSpecial`), 4 user-defined (added tokens always matched),
 * 5 unused (left out), 6 byte (SentencePiece byte fallback: refused).
 *
 * Pre-tokenizers: only the names whose llama.cpp regexes we reproduce exactly are accepted;
 * anything else is a clear error rather than a tokenizer that silently splits differently.
 */
import { CheckpointError } from "../../core/errors.ts";
import { BpeTokenizer, type AddedToken } from "../tokenizer/bpe.ts";
import { symbolsToBytes } from "../tokenizer/byte-level.ts";
import { GPT2_PATTERN, QWEN2_PATTERN } from "../tokenizer/pretokenize.ts";
import { metaValue, type GgufFile } from "./reader.ts";

/** llama.cpp pre-tokenizer names -> the patterns its `llama-vocab.cpp` applies, in order. */
const PRE_TOKENIZERS: Readonly<Record<string, readonly string[]>> = {
  gpt2: [GPT2_PATTERN],
  // SmolLM2 (and the StarCoder family sharing its tokenizer): single digits first, then GPT-2's regex.
  smollm: ["\\p{N}", GPT2_PATTERN],
  starcoder: ["\\p{N}", GPT2_PATTERN],
  refact: ["\\p{N}", GPT2_PATTERN],
  qwen2: [QWEN2_PATTERN],
};

/** Names of the GGUF pre-tokenizers we support. */
export const GGUF_PRE_TOKENIZERS: readonly string[] = Object.keys(PRE_TOKENIZERS);

/**
 * The tokenizer a GGUF file describes.
 * @param source file name used in errors
 * @throws CheckpointError for a tokenizer model other than "gpt2", an unknown pre-tokenizer,
 *   byte-fallback tokens, or inconsistent metadata
 */
export function tokenizerFromGguf(file: GgufFile, source: string): BpeTokenizer {
  const fail = (problem: string): never => {
    throw new CheckpointError(source, problem);
  };
  const model = metaValue(file, source, "tokenizer.ggml.model", "string");
  if (model !== "gpt2") fail(`tokenizer.ggml.model ${JSON.stringify(model)} is not supported (only "gpt2", byte-level BPE)`);
  const pre = file.metadata.get("tokenizer.ggml.pre") ?? "gpt2";
  const patterns = typeof pre === "string" ? PRE_TOKENIZERS[pre] : undefined;
  if (patterns === undefined) fail(`tokenizer.ggml.pre ${JSON.stringify(pre)} is not supported (one of ${GGUF_PRE_TOKENIZERS.join(", ")})`);
  const tokens = metaValue(file, source, "tokenizer.ggml.tokens", "array");
  const types = file.metadata.get("tokenizer.ggml.token_type") ?? tokens.map(() => 1);
  if (!Array.isArray(types) || types.length !== tokens.length) fail(`tokenizer.ggml.token_type does not have one entry per token (${tokens.length})`);
  const merges = metaValue(file, source, "tokenizer.ggml.merges", "array");

  const vocab = new Map<string, number>();
  const addedTokens: AddedToken[] = [];
  tokens.forEach((t, id) => {
    if (typeof t !== "string") fail(`tokenizer.ggml.tokens[${id}] is not a string`);
    const type = Number((types as unknown[])[id]);
    const representable = symbolsToBytes(t as string) !== null;
    if (type === 6) fail(`token ${id} is a byte-fallback token (SentencePiece style), not supported`);
    if (type === 5) return;
    if (type === 1) {
      if (!representable) fail(`normal token ${id} ${JSON.stringify(t)} has characters outside the byte-level alphabet`);
    } else if (type === 2 || type === 3 || type === 4) {
      addedTokens.push({ id, content: t as string, special: type !== 4 });
      if (!representable) return; // added tokens need no vocab entry
    } else fail(`token ${id} has unknown token_type ${type}`);
    vocab.set(t as string, id);
  });
  const pairs = merges.map((m, i): [string, string] => {
    const parts = typeof m === "string" ? m.split(" ") : [];
    if (parts.length !== 2) fail(`tokenizer.ggml.merges[${i}] is not "a b": ${JSON.stringify(m)}`);
    return [parts[0]!, parts[1]!];
  });
  if (file.metadata.get("tokenizer.ggml.add_space_prefix") === true && pre !== "gpt2") fail("add_space_prefix with a non-GPT-2 pre-tokenizer is not supported");
  const eosId = metaValue(file, source, "tokenizer.ggml.eos_token_id", "number");
  const eos = tokens[eosId];
  if (typeof eos !== "string") fail(`tokenizer.ggml.eos_token_id ${eosId} is not a token`);
  return new BpeTokenizer({
    vocab, merges: pairs, addedTokens, pattern: patterns![0]!, splitPatterns: patterns!.slice(1), normalizer: null,
    addPrefixSpace: file.metadata.get("tokenizer.ggml.add_space_prefix") === true, eosToken: eos as string,
  }, source);
}
