/**
 * The Hugging Face `tokenizer.json` format, for byte-level BPE only: model.type "BPE" with a
 * vocab and merges, `added_tokens`, a `ByteLevel` decoder, and as pre-tokenizer either Qwen2's
 * `Sequence[Split(regex, Isolated), ByteLevel(use_regex=false)]` or a plain GPT-2 style
 * `ByteLevel(use_regex=true)`. Normalizer: none, NFC or NFKC. Merges load in both the string
 * ("a b") and the pair (["a", "b"]) spelling; we write strings, which every reader accepts.
 *
 * Not supported (a clear `CheckpointError`, never a silent difference): WordPiece/Unigram
 * models, BPE dropout, `byte_fallback`, subword prefixes/suffixes, other pre-tokenizers. The added-token flags
 * `lstrip`, `rstrip` and `single_word` are read but not applied (Qwen2 sets none of them).
 * Post-processors that add BOS tokens are ignored: `encode` never adds tokens.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { CheckpointError } from "../../core/errors.ts";
import { BpeTokenizer, type AddedToken, type BpeSpec } from "./bpe.ts";
import { GPT2_PATTERN } from "./pretokenize.ts";
import { readModelJson } from "../read-json.ts";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The `tokenizer.json` object of a tokenizer (Qwen2 layout). */
export function tokenizerToHfJson(tok: BpeTokenizer): Json {
  const { spec } = tok;
  const byteLevel = { type: "ByteLevel", add_prefix_space: spec.addPrefixSpace, trim_offsets: false, use_regex: false };
  const vocab: Record<string, number> = {};
  for (const [t, id] of [...spec.vocab].sort((x, y) => x[1] - y[1])) vocab[t] = id;
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: tok.addedTokens().map((t) => ({
      id: t.id, content: t.content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: t.special,
    })),
    normalizer: spec.normalizer === null ? null : { type: spec.normalizer },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        ...[spec.pattern, ...(spec.splitPatterns ?? [])].map((Regex) => ({ type: "Split", pattern: { Regex }, behavior: "Isolated", invert: false })),
        byteLevel,
      ],
    },
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "",
      fuse_unk: false, byte_fallback: false, ignore_merges: spec.ignoreMerges ?? false, vocab, merges: spec.merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}

function parseNormalizer(n: unknown, fail: (p: string) => never): BpeSpec["normalizer"] {
  if (n === null || n === undefined) return null;
  if (!isObject(n)) return fail("normalizer is not an object");
  if (n["type"] === "NFC" || n["type"] === "NFKC") return n["type"];
  if (n["type"] === "Sequence" && Array.isArray(n["normalizers"])) {
    const parts = n["normalizers"].map((x) => parseNormalizer(x, fail)).filter((x) => x !== null);
    if (parts.length <= 1) return parts[0] ?? null;
  }
  return fail(`normalizer ${JSON.stringify(n["type"])} is not supported (only NFC, NFKC or none)`);
}

type PreTokenizer = { pattern: string; splitPatterns: string[]; addPrefixSpace: boolean };

/** Regex of one Split (or Digits) element of a pre-tokenizer Sequence, or null for other types. */
function splitRegex(p: Record<string, unknown>, fail: (p: string) => never): string | null {
  if (p["type"] === "Digits") return p["individual_digits"] === true ? "\\p{N}" : "\\p{N}+";
  if (p["type"] !== "Split") return null;
  const pattern = isObject(p["pattern"]) ? p["pattern"]["Regex"] : undefined;
  if (typeof pattern !== "string") return fail("a Split pre-tokenizer without a Regex pattern is not supported");
  if (p["behavior"] !== "Isolated" || p["invert"] === true) return fail(`Split behavior ${JSON.stringify(p["behavior"])} / invert is not supported (only Isolated)`);
  return pattern;
}

function parsePreTokenizer(p: unknown, fail: (p: string) => never): PreTokenizer {
  if (!isObject(p)) return fail("pre_tokenizer is missing (a byte-level BPE needs one)");
  const list = p["type"] === "Sequence" && Array.isArray(p["pretokenizers"]) ? p["pretokenizers"] : [p];
  if (!list.every(isObject) || list.length === 0) return fail("pre_tokenizer Sequence has non-object entries");
  const last = list[list.length - 1] as Record<string, unknown>;
  if (last["type"] !== "ByteLevel") return fail(`pre_tokenizer must end with ByteLevel, got ${JSON.stringify(last["type"])}`);
  const patterns: string[] = [];
  for (const item of list.slice(0, -1) as Record<string, unknown>[]) {
    const re = splitRegex(item, fail);
    if (re === null) return fail(`pre-tokenizer ${JSON.stringify(item["type"])} is not supported (Split, Digits, ByteLevel)`);
    patterns.push(re);
  }
  const useRegex = (last["use_regex"] ?? true) === true;
  if (useRegex) patterns.push(GPT2_PATTERN); // ByteLevel splits with GPT-2's regex after the others
  if (patterns.length === 0) return fail("ByteLevel with use_regex=false and no Split leaves nothing to pre-tokenize with");
  return { pattern: patterns[0]!, splitPatterns: patterns.slice(1), addPrefixSpace: last["add_prefix_space"] === true };
}

/**
 * Builds a tokenizer from a parsed `tokenizer.json`.
 * @param source file name used in error messages
 * @param eosToken content of the end-of-sequence token (e.g. from `tokenizer_config.json`)
 */
export function tokenizerFromHfJson(json: unknown, source: string, eosToken?: string): BpeTokenizer {
  const fail = (problem: string): never => {
    throw new CheckpointError(source, problem);
  };
  if (!isObject(json)) return fail("not a JSON object");
  const model = json["model"];
  if (!isObject(model)) return fail("missing 'model'");
  if (model["type"] !== "BPE") return fail(`model.type ${JSON.stringify(model["type"])} is not supported (only BPE)`);
  if (model["dropout"] !== null && model["dropout"] !== undefined) fail("BPE dropout is not supported");
  if (model["byte_fallback"] === true) fail("byte_fallback BPE (SentencePiece style) is not supported");
  for (const k of ["continuing_subword_prefix", "end_of_word_suffix"]) {
    if (model[k] !== null && model[k] !== undefined && model[k] !== "") fail(`model.${k} is not supported`);
  }
  const rawVocab = model["vocab"];
  if (!isObject(rawVocab)) return fail("model.vocab is not an object");
  const vocab = new Map<string, number>();
  for (const [t, id] of Object.entries(rawVocab)) {
    if (typeof id !== "number") fail(`vocab entry ${JSON.stringify(t)} has a non-numeric id`);
    vocab.set(t, id as number);
  }
  const rawMerges = model["merges"];
  if (!Array.isArray(rawMerges)) return fail("model.merges is not an array");
  const merges = rawMerges.map((m, i): [string, string] => {
    if (Array.isArray(m) && m.length === 2 && typeof m[0] === "string" && typeof m[1] === "string") return [m[0], m[1]];
    if (typeof m === "string") {
      const parts = m.split(" ");
      if (parts.length === 2) return [parts[0]!, parts[1]!];
    }
    return fail(`merge ${i} is neither "a b" nor ["a", "b"]: ${JSON.stringify(m)}`);
  });
  const rawAdded = json["added_tokens"] ?? [];
  if (!Array.isArray(rawAdded)) return fail("added_tokens is not an array");
  const addedTokens = rawAdded.map((t, i): AddedToken => {
    if (!isObject(t) || typeof t["id"] !== "number" || typeof t["content"] !== "string") return fail(`added_tokens[${i}] needs a numeric id and a string content`);
    return { id: t["id"], content: t["content"], special: t["special"] === true };
  });
  const decoder = json["decoder"];
  if (!isObject(decoder) || decoder["type"] !== "ByteLevel") fail("decoder must be ByteLevel");
  const { pattern, splitPatterns, addPrefixSpace } = parsePreTokenizer(json["pre_tokenizer"], fail);
  const normalizer = parseNormalizer(json["normalizer"], fail);
  const spec: BpeSpec = {
    vocab, merges, addedTokens, pattern, splitPatterns, normalizer, addPrefixSpace, ignoreMerges: model["ignore_merges"] === true,
    ...(eosToken === undefined ? {} : { eosToken }),
  };
  return new BpeTokenizer(spec, source);
}

/**
 * Loads a `tokenizer.json`. When a `tokenizer_config.json` sits next to it, its `eos_token`
 * chooses the end-of-sequence id (as Transformers does); otherwise see `BpeSpec.eosToken`.
 */
export function loadTokenizer(path: string): BpeTokenizer {
  const json = readModelJson(path);
  const configPath = join(dirname(path), "tokenizer_config.json");
  let eos: string | undefined;
  if (existsSync(configPath)) {
    const cfg = readModelJson(configPath);
    const e = isObject(cfg) ? cfg["eos_token"] : undefined;
    if (typeof e === "string") eos = e;
    else if (isObject(e) && typeof e["content"] === "string") eos = e["content"];
  }
  return tokenizerFromHfJson(json, path, eos);
}

/** The `tokenizer.json` text of a tokenizer (what checkpoints store). */
export function tokenizerJsonText(tok: BpeTokenizer): string {
  return JSON.stringify(tokenizerToHfJson(tok), null, 1) + "\n";
}
