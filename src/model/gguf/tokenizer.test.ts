// Our tokenizer from GGUF tokenizer metadata: vocab ids are the token indices, merges apply by
// rank, control tokens are special (matched only with allowSpecial), user-defined ones always,
// SmolLM2's pre-tokenizer isolates digits, bytes missing from the vocabulary are dropped as
// llama.cpp drops them, and what we cannot reproduce is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CheckpointError } from "../../core/errors.ts";
import { parseGguf } from "./reader.ts";
import { tokenizerFromGguf } from "./tokenizer.ts";
import { encodeGguf } from "./writer.ts";
import { TINY_GGUF_VOCAB, tinyTokenizerMeta } from "../../testing/tiny-gguf.ts";
import { tokenizerFromHfJson, tokenizerToHfJson } from "../tokenizer/hf-json.ts";

function tok(options: Parameters<typeof tinyTokenizerMeta>[0] = {}) {
  return tokenizerFromGguf(parseGguf(encodeGguf(tinyTokenizerMeta(options), []), "tok.gguf"), "tok.gguf");
}

/** Id of a single-byte token when no byte is missing: after the 4 special tokens. */
const byte = (c: string) => 4 + c.charCodeAt(0);
/** Ids of the merged tokens, after the bytes, in merge order. */
const MERGED = { he: 260, ll: 261, hell: 262, " w": 263, or: 264, " wor": 265, "12": 266 };

test("GGUF tokenizer: merges by rank, special and user-defined tokens, eos from eos_token_id", () => {
  const t = tok();
  assert.equal(t.vocabSize, TINY_GGUF_VOCAB);
  assert.equal(t.eosId, 2);
  assert.deepEqual(t.encode("hello world"), [MERGED.hell, byte("o"), MERGED[" wor"], byte("l"), byte("d")]);
  assert.deepEqual(t.encode("<|im_start|>x"), [byte("<"), byte("|"), byte("i"), byte("m"), byte("_"), byte("s"), byte("t"), byte("a"), byte("r"), byte("t"), byte("|"), byte(">"), byte("x")]);
  assert.deepEqual(t.encode("<|im_start|>x", { allowSpecial: true }), [1, byte("x")]);
  assert.deepEqual(t.encode("a<act>b"), [byte("a"), 3, byte("b")]); // user-defined: always matched
  assert.equal(t.decode([1, MERGED.hell, byte("o"), 2]), "<|im_start|>hello<|im_end|>");
  // The round trip through tokenizer.json (what a checkpoint stores) keeps every id.
  const back = tokenizerFromHfJson(tokenizerToHfJson(t), "tokenizer.json");
  for (const s of ["hello world 1234", "<act> x12", "<|im_end|>"]) {
    assert.deepEqual(back.encode(s, { allowSpecial: true }), t.encode(s, { allowSpecial: true }));
    assert.deepEqual(back.encode(s), t.encode(s));
  }
  assert.equal(back.eosId, 2);
});

test("GGUF tokenizer: 'smollm' isolates every digit, 'gpt2' keeps digit runs together", () => {
  assert.deepEqual(tok({ pre: "smollm" }).encode("1212"), [byte("1"), byte("2"), byte("1"), byte("2")]);
  assert.deepEqual(tok({ pre: "gpt2" }).encode("1212"), [MERGED["12"], MERGED["12"]]);
});

test("GGUF tokenizer: a byte missing from the vocabulary separates its neighbours and is dropped (llama.cpp)", () => {
  const t = tok({ missingBytes: [4] });
  const id = (c: string) => byte(c) - (c.charCodeAt(0) > 4 ? 1 : 0);
  assert.deepEqual(t.encode("h\u0004e"), [id("h"), id("e")]);
  assert.deepEqual(t.encode("he"), [MERGED.he - 1]);
});

test("GGUF tokenizer: other tokenizer models and pre-tokenizers are refused, naming the file", () => {
  assert.throws(() => tok({ model: "llama" }), (e: unknown) => e instanceof CheckpointError && /tok\.gguf.*tokenizer\.ggml\.model "llama" is not supported/.test(e.message));
  assert.throws(() => tok({ pre: "deepseek-llm" }), /tokenizer\.ggml\.pre "deepseek-llm" is not supported \(one of gpt2, smollm/);
});

test("BPE: U+FEFF is text, not a byte-order mark: the word cache and decode keep it (a cached \"\\ufeff<\" once poisoned \"<\")", () => {
  const t = tok({ pre: "gpt2" }), fresh = tok({ pre: "gpt2" });
  const bom = t.encode("\ufeff<");
  assert.equal(bom.length, 4); // three bytes of U+FEFF and "<": one punctuation piece
  assert.deepEqual(t.encode("<"), fresh.encode("<"));
  assert.deepEqual(t.encode("<"), [byte("<")]);
  assert.equal(t.decode(bom), "\ufeff<");
  assert.equal(t.decode(t.encode("\ufeffhello")), "\ufeffhello");
});
