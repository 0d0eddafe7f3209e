import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../../core/rng.ts";
import { CheckpointError } from "../../core/errors.ts";
import { trainBpe, DEFAULT_ADDED_TOKENS } from "./train.ts";
import { loadTokenizer, tokenizerFromHfJson, tokenizerJsonText, tokenizerToHfJson } from "./hf-json.ts";
import { translateHfPattern, splitPieces, QWEN2_PATTERN } from "./pretokenize.ts";
import { BYTE_TO_CHAR } from "./byte-level.ts";

const WORDS = ["go", "to", "the", "desk", "open", "drawer", "take", "apple", "from", "put", "in", "on", "fridge", "1", "2", "you", "see", "a", "mug", "nothing", "happens"];

/** A seeded pseudo-environment corpus: sentences of WORDS with digits, punctuation and newlines. */
function corpus(seed: number, sentences: number): string {
  const rng = Rng.from(seed);
  const lines: string[] = [];
  for (let i = 0; i < sentences; i++) {
    const n = 3 + rng.int(8);
    lines.push(Array.from({ length: n }, () => rng.choice(WORDS)).join(" ") + rng.choice([".", "!", "?", ",", ""]));
  }
  return lines.join("\n");
}

/** Seeded random strings across the hard cases: CJK, emoji (surrogate pairs), combining marks, controls, tags. */
function randomText(rng: Rng): string {
  const pools = [
    () => String.fromCodePoint(32 + rng.int(95)),
    () => String.fromCodePoint(0x4e00 + rng.int(0x5000)),
    () => String.fromCodePoint(0x1f300 + rng.int(0x300)),
    () => String.fromCodePoint(0x300 + rng.int(0x70)),
    () => rng.choice(["\n", "\r\n", "\t", "  ", "\u00a0", "\u3000", "\u0000"]),
    () => rng.choice(["<action>", "</think>", "<|im_end|>", "go to desk 1", "don't", "I'LL"]),
    () => String.fromCodePoint(0x80 + rng.int(0x700)),
  ];
  let s = "";
  const n = rng.int(40);
  for (let i = 0; i < n; i++) s += rng.choice(pools)();
  return s;
}

const tok = trainBpe(corpus(1, 2000), { vocabSize: 400 });

test("round-trips arbitrary UTF-8 (CJK, emoji, combining marks, controls, tags), with and without specials", () => {
  const rng = Rng.from(20260101);
  for (let i = 0; i < 500; i++) {
    const s = randomText(rng);
    assert.equal(tok.decode(tok.encode(s)), s, JSON.stringify(s));
    assert.equal(tok.decode(tok.encode(s, { allowSpecial: true })), s, JSON.stringify(s));
  }
});

test("lone surrogates do not throw and decode as U+FFFD (the UTF-8 encoder's replacement)", () => {
  const s = "a\ud800b\udfffc" + "\ud83d";
  assert.equal(tok.decode(tok.encode(s)), "a\ufffdb\ufffdc\ufffd");
});

test("a character split across tokens decodes whole; invalid byte runs become U+FFFD", () => {
  const ids = tok.encode("🙂");
  assert.ok(ids.length >= 2, "emoji is not in a 400-token vocab trained on ASCII, so it is several byte tokens");
  assert.equal(tok.decode(ids), "🙂");
  assert.equal(tok.decode(ids.slice(0, 1)), "\ufffd");
});

test("special tokens are matched only with allowSpecial; agent tags always", () => {
  const im = tok.specialTokenId("<|im_start|>")!;
  const action = tok.specialTokenId("<action>")!;
  assert.ok(im !== undefined && action !== undefined);
  assert.ok(!tok.encode("<|im_start|>x").includes(im));
  assert.deepEqual(tok.encode("<|im_start|>x", { allowSpecial: true }).slice(0, 1), [im]);
  assert.deepEqual(tok.encode("<action>"), [action]);
  assert.equal(tok.eosId, tok.specialTokenId("<|im_end|>"));
  // The 21-word corpus runs out of pairs seen twice before 400: training stops early, added tokens last.
  assert.ok(tok.vocabSize < 400);
  assert.equal(tok.specialTokenId("</skill>"), tok.vocabSize - 1);
});

test("training is deterministic and merges frequent pairs into shorter encodings", () => {
  const text = corpus(2, 1500);
  const a = trainBpe(text, { vocabSize: 350 });
  const b = trainBpe(text, { vocabSize: 350 });
  assert.equal(tokenizerJsonText(a), tokenizerJsonText(b));
  assert.ok(a.encode("open drawer").length <= 3, `${a.encode("open drawer")}`);
  assert.ok(a.encode("open drawer").length < new TextEncoder().encode("open drawer").length);
});

test("ties between equally frequent pairs go to the smallest (left id, right id)", () => {
  const t = trainBpe(["ab", "cd", "cd", "ab"], { vocabSize: 256 + 2 + DEFAULT_ADDED_TOKENS.length });
  assert.deepEqual(t.spec.merges, [["a", "b"], ["c", "d"]]);
  assert.deepEqual(t.encode("abcd"), [256, 257]);
});

test("added tokens never take part in merges", () => {
  const t = trainBpe("<action>go</action>".repeat(50), { vocabSize: 300 });
  for (const [l, r] of t.spec.merges) assert.ok(!(l + r).includes("<"), `${l}+${r}`);
});

test("save/load through tokenizer.json reproduces the tokenizer", () => {
  const json = tokenizerToHfJson(tok);
  const back = tokenizerFromHfJson(JSON.parse(JSON.stringify(json)), "mem");
  assert.equal(tokenizerJsonText(back), tokenizerJsonText(tok));
  const s = corpus(3, 50);
  assert.deepEqual(back.encode(s), tok.encode(s));
});

test("the Qwen2 pattern splits like the Oniguruma original on its own features", () => {
  const re = translateHfPattern(QWEN2_PATTERN);
  assert.deepEqual(splitPieces("I'LL go  to desk 12.\n\nok", re), ["I", "'LL", " go", " ", " to", " desk", " ", "1", "2", ".\n\n", "ok"]);
  assert.throws(() => translateHfPattern("(?<name>a)"), /unsupported/);
});

/** A hand-written tokenizer.json in the real Qwen2 layout (GPT-2 byte order, pair-style merges, NFC). */
function qwenStyleJson(mergesAsStrings: boolean): Record<string, unknown> {
  const order: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) order.push(b);
  for (let b = 0xa1; b <= 0xac; b++) order.push(b);
  for (let b = 0xae; b <= 0xff; b++) order.push(b);
  for (let b = 0; b < 256; b++) if (!order.includes(b)) order.push(b);
  const vocab: Record<string, number> = {};
  order.forEach((b, i) => (vocab[BYTE_TO_CHAR[b]!] = i));
  const merges = [["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"], ["Ġ", "w"], ["Ġw", "o"], ["Ã", "©"]];
  merges.forEach(([a, b], i) => (vocab[a! + b!] = 256 + i));
  return {
    version: "1.0",
    added_tokens: [
      { id: 300, content: "<|endoftext|>", special: true, normalized: false, lstrip: false, rstrip: false, single_word: false },
      { id: 301, content: "<|im_start|>", special: true, normalized: false, lstrip: false, rstrip: false, single_word: false },
      { id: 302, content: "<|im_end|>", special: true, normalized: false, lstrip: false, rstrip: false, single_word: false },
    ],
    normalizer: { type: "NFC" },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        { type: "Split", pattern: { Regex: QWEN2_PATTERN }, behavior: "Isolated", invert: false },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    post_processor: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, vocab, merges: mergesAsStrings ? merges.map((m) => m.join(" ")) : merges,
    },
  };
}

test("a Hugging Face Qwen2-layout tokenizer.json loads and encodes as HF would", () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-tok-"));
  try {
    for (const asStrings of [false, true]) {
      writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(qwenStyleJson(asStrings)));
      writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ eos_token: "<|endoftext|>" }));
      const t = loadTokenizer(join(dir, "tokenizer.json"));
      // "hello" -> he, ll, hell, hello (259); " wo" -> Ġw (260), Ġwo (261); r, l, d are bytes in GPT-2 order (byte - 33).
      assert.deepEqual(t.encode("hello world"), [259, 261, 0x72 - 33, 0x6c - 33, 0x64 - 33]);
      // NFC turns e + combining acute into é (C3 A9), which merge 6 joins.
      assert.deepEqual(t.encode("e\u0301"), [262]);
      assert.deepEqual(t.encode("<|im_start|>hello", { allowSpecial: true }), [301, 259]);
      assert.equal(t.eosId, 300);
      assert.equal(t.vocabSize, 303);
      assert.equal(t.decode([301, 259, 261, 302]), "<|im_start|>hello wo<|im_end|>");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a GPT-2 style ByteLevel(use_regex) pre-tokenizer with add_prefix_space loads", () => {
  const json = qwenStyleJson(true);
  json["pre_tokenizer"] = { type: "ByteLevel", add_prefix_space: true, use_regex: true };
  json["normalizer"] = null;
  const t = tokenizerFromHfJson(json, "gpt2.json");
  assert.deepEqual(t.encode("wo"), [261]); // the prefix space makes "Ġwo"
});

test("Llama-3 style ignore_merges and DeepSeek style chains of Splits/Digits load and round-trip", () => {
  const llama = qwenStyleJson(true);
  const model = llama["model"] as { vocab: Record<string, number>; ignore_merges?: boolean };
  model.vocab["Ġworld"] = 298; // no merge chain leads here: only ignore_merges can emit it
  model.ignore_merges = true;
  const t = tokenizerFromHfJson(llama, "llama.json");
  assert.deepEqual(t.encode(" world"), [298]);
  model.ignore_merges = false;
  assert.notDeepEqual(tokenizerFromHfJson(llama, "llama.json").encode(" world"), [298]);
  const deepseek = qwenStyleJson(true);
  deepseek["normalizer"] = null; // NFC would (rightly) not round-trip combining marks
  deepseek["pre_tokenizer"] = {
    type: "Sequence",
    pretokenizers: [
      { type: "Split", pattern: { Regex: "\\p{N}{1,3}" }, behavior: "Isolated", invert: false },
      { type: "Digits", individual_digits: false },
      { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    ],
  };
  const d = tokenizerFromHfJson(deepseek, "deepseek.json");
  // "12345" -> "123" | "45" by the first Split; each is then its own run of digit bytes.
  assert.deepEqual(d.encode("12345"), [..."123", ..."45"].map((c) => c.charCodeAt(0) - 33));
  const saved = tokenizerFromHfJson(tokenizerToHfJson(d), "again.json");
  assert.deepEqual(saved.encode("x 12345 hello"), d.encode("x 12345 hello"));
  const rng = Rng.from(3);
  for (let i = 0; i < 100; i++) {
    const s = randomText(rng);
    assert.equal(d.decode(d.encode(s)), s);
  }
});

test("bad tokenizer files give a CheckpointError naming the file and the problem", () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-tok-"));
  try {
    const p = join(dir, "tokenizer.json");
    writeFileSync(p, "{ not json");
    assert.throws(() => loadTokenizer(p), (e: unknown) => e instanceof CheckpointError && e.message.includes(p) && /not valid JSON/.test(e.message));
    const noBytes = qwenStyleJson(true);
    delete (noBytes["model"] as { vocab: Record<string, number> }).vocab["Ġ"];
    assert.throws(() => tokenizerFromHfJson(noBytes, "x.json"), /x\.json: .*byte 32/);
    const wordPiece = { ...qwenStyleJson(true), model: { type: "WordPiece" } };
    assert.throws(() => tokenizerFromHfJson(wordPiece, "x.json"), /only BPE/);
    assert.throws(() => loadTokenizer(join(dir, "missing.json")), /cannot read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("training on ~1 MB of text takes seconds, not minutes", () => {
  const text = corpus(4, 40000);
  assert.ok(text.length > 900_000);
  const t0 = performance.now();
  const t = trainBpe(text, { vocabSize: 2048 });
  const trainMs = performance.now() - t0;
  const t1 = performance.now();
  const ids = t.encode(text);
  const encodeMs = performance.now() - t1;
  assert.equal(t.decode(ids), text);
  assert.ok(trainMs < 10_000 && encodeMs < 5_000, `train ${trainMs.toFixed(0)} ms, encode ${encodeMs.toFixed(0)} ms`);
});

test("the word cache stays bounded by characters, skips long pieces, and encodes the same with or without it", () => {
  // Before (issue 11, item 3): the cache held up to 200,000 pieces of any length, and each key was
  // a slice that kept its whole source prompt alive; 194 prompts of 4 MB exhausted a 768 MB heap.
  const fresh = trainBpe(corpus(1, 2000), { vocabSize: 400 });
  const rng = Rng.from(5);
  let longWord = "";
  for (let i = 0; i < 5000; i++) longWord += String.fromCharCode(97 + rng.int(26));
  const ids = fresh.encode(`go ${longWord} desk`);
  assert.equal(fresh.decode(ids), `go ${longWord} desk`);
  assert.ok(fresh.cacheSize().chars < 64, `a 5,000-letter word is not cached (${fresh.cacheSize().chars} chars held)`);
  // Many distinct short words: the cache is cleared before it passes its bound of 2M characters.
  for (let round = 0; round < 60; round++) {
    let text = "";
    for (let w = 0; w < 2000; w++) {
      let word = " ";
      for (let c = 0; c < 20; c++) word += String.fromCharCode(97 + rng.int(26));
      text += word;
    }
    fresh.encode(text);
    assert.ok(fresh.cacheSize().chars <= 2_000_000, `round ${round}: ${fresh.cacheSize().chars} chars`);
  }
  assert.ok(fresh.cacheSize().entries > 0);
  const text = corpus(9, 50) + longWord;
  assert.deepEqual(fresh.encode(text), trainBpe(corpus(1, 2000), { vocabSize: 400 }).encode(text), "a warm cache encodes as a cold one");
});
