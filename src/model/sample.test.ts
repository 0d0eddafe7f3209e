import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { ShapeError } from "../core/errors.ts";
import { decodeBatch, pickToken, type DecodeRequest, type DecodeSession } from "./sample.ts";

const logits = Float32Array.from([1, 3, 0.5, 3, -2, 2]);

function logSoftmax(z: readonly number[], t = 1): number[] {
  const m = Math.max(...z.map((x) => x / t));
  const lse = m + Math.log(z.reduce((s, x) => s + Math.exp(x / t - m), 0));
  return z.map((x) => x / t - lse);
}

const params = (temperature: number, topP = 1, topK = 0) => ({ temperature, topP, topK });

test("temperature 0 takes the argmax (lowest id on ties) for any seed; log-prob of the untempered distribution", () => {
  for (const seed of [0, 1, 99, 123456]) {
    const p = pickToken(logits, 6, params(0), null, Rng.from(seed));
    assert.equal(p.token, 1);
    assert.ok(Math.abs(p.logprob - logSoftmax(Array.from(logits))[1]!) < 1e-12);
  }
  const masked = pickToken(logits, 6, params(0), [0, 2, 4], Rng.from(5));
  assert.equal(masked.token, 0);
  assert.ok(Math.abs(masked.logprob - logSoftmax([1, 0.5, -2])[0]!) < 1e-12);
});

test("temperature 1 draws match the softmax frequencies and report its log-probs", () => {
  const rng = Rng.from(7);
  const counts = new Array(6).fill(0);
  const lp = logSoftmax(Array.from(logits));
  const N = 20000;
  for (let i = 0; i < N; i++) {
    const p = pickToken(logits, 6, params(1), null, rng);
    counts[p.token]++;
    assert.ok(Math.abs(p.logprob - lp[p.token]!) < 1e-12);
  }
  for (let t = 0; t < 6; t++) {
    const expected = N * Math.exp(lp[t]!);
    assert.ok(Math.abs(counts[t] - expected) < 5 * Math.sqrt(expected) + 5, `token ${t}: ${counts[t]} vs ${expected.toFixed(0)}`);
  }
});

test("temperature, top-k, top-p and the mask cut and renormalise the distribution that is sampled", () => {
  const rng = Rng.from(8);
  const lpT = logSoftmax(Array.from(logits), 0.5);
  for (let i = 0; i < 200; i++) {
    const p = pickToken(logits, 6, params(0.5), null, rng);
    assert.ok(Math.abs(p.logprob - lpT[p.token]!) < 1e-12);
    // top-2 of [1,3,.5,3,-2,2] is {1, 3} (tied 3s): each has probability 1/2.
    const k = pickToken(logits, 6, params(1, 1, 2), null, rng);
    assert.ok(k.token === 1 || k.token === 3);
    assert.ok(Math.abs(k.logprob - Math.log(0.5)) < 1e-12);
    // top-p 0.8 keeps {1, 3, 5}: their mass is 0.88 of the total, {1, 3} only 0.65.
    const tp = pickToken(logits, 6, params(1, 0.8), null, rng);
    assert.ok([1, 3, 5].includes(tp.token), `${tp.token}`);
    assert.ok(Math.abs(tp.logprob - logSoftmax([3, 3, 2])[[1, 3, 5].indexOf(tp.token)]!) < 1e-12);
    const m = pickToken(logits, 6, params(1), [4, 2, 2, 4, 2], rng); // duplicates count once
    assert.ok(Math.abs(m.logprob - logSoftmax([0.5, -2])[m.token === 2 ? 0 : 1]!) < 1e-12);
    // ids at or above `vocab` (padding rows) are never candidates
    assert.ok(pickToken(logits, 3, params(1), null, rng).token < 3);
  }
});

test("bad input is a ShapeError: NaN logits, a constraint that allows nothing", () => {
  assert.throws(() => pickToken(Float32Array.from([0, NaN]), 2, params(1), null, Rng.from(1)), ShapeError);
  assert.throws(() => pickToken(Float32Array.from([0, Infinity]), 2, params(0), null, Rng.from(1)), /is Infinity/);
  assert.throws(() => pickToken(logits, 6, params(1), [], Rng.from(1)), /allows no token/);
  assert.throws(() => pickToken(logits, 6, params(1), [7, 8], Rng.from(1)), /allows no token/);
});

/**
 * A fixture session whose next-token logits depend only on the last token fed (a bigram table),
 * so the loop's bookkeeping can be checked without a transformer. It records what it was fed.
 */
class BigramSession implements DecodeSession {
  readonly fed: number[][][] = [];
  private readonly table: Float32Array;
  readonly vocab: number;
  constructor(vocab: number, seed: number) {
    this.vocab = vocab;
    const rng = Rng.from(seed);
    this.table = Float32Array.from({ length: vocab * vocab }, () => rng.normal() * 2);
  }
  append(rows: readonly number[], tokens: readonly (readonly number[])[]): Float32Array {
    this.fed.push(tokens.map((t) => [...t]));
    const out = new Float32Array(rows.length * this.vocab);
    tokens.forEach((t, j) => out.set(this.table.subarray(t[t.length - 1]! * this.vocab, (t[t.length - 1]! + 1) * this.vocab), j * this.vocab));
    return out;
  }
}

const base = (over: Partial<DecodeRequest>): DecodeRequest => ({
  prompt: [1, 2], maxTokens: 8, stopTokens: [], stopStrings: [], seed: 1, allowed: null, temperature: 1, topP: 1, topK: 0, ...over,
});

test("decodeBatch: per-request seeds are reproducible and independent of the batch", () => {
  const reqs = [base({ seed: 1 }), base({ seed: 2, prompt: [3] }), base({ seed: 1 })];
  const a = decodeBatch(new BigramSession(10, 1), reqs, { modelVocab: 10, vocab: 10, maxContext: 64 });
  const b = decodeBatch(new BigramSession(10, 1), [reqs[1]!], { modelVocab: 10, vocab: 10, maxContext: 64 });
  assert.deepEqual(a[0], a[2]);
  assert.deepEqual(a[1], b[0]);
  const greedy = [1, 2, 3].map((seed) => decodeBatch(new BigramSession(10, 1), [base({ seed, temperature: 0 })], { modelVocab: 10, vocab: 10, maxContext: 64 })[0]!.tokens);
  assert.deepEqual(greedy[0], greedy[1]);
  assert.deepEqual(greedy[0], greedy[2]);
});

test("decodeBatch never exceeds maxTokens or the context, and says why it stopped", () => {
  const s = new BigramSession(10, 2);
  const [len, ctx, full, zero, stop] = decodeBatch(s, [
    base({ maxTokens: 5 }),
    base({ maxTokens: 50, prompt: [1, 2, 3] }),
    base({ prompt: Array.from({ length: 12 }, () => 1) }),
    base({ maxTokens: 0 }),
    base({ maxTokens: 50, stopTokens: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }),
  ], { modelVocab: 10, vocab: 10, maxContext: 12 });
  assert.equal(len!.tokens.length, 5);
  assert.equal(len!.finishReason, "length");
  assert.equal(ctx!.tokens.length, 9);
  assert.equal(ctx!.finishReason, "context");
  assert.deepEqual([full!.tokens.length, full!.finishReason], [0, "context"]);
  assert.deepEqual([zero!.tokens.length, zero!.finishReason], [0, "length"]);
  assert.deepEqual([stop!.tokens.length, stop!.finishReason], [1, "stop"]);
  // Prefill fed whole prompts for live rows only; later steps one token per live row.
  assert.deepEqual(s.fed[0]!.map((t) => t.length), [2, 3, 2]);
  assert.ok(s.fed.slice(1).every((step) => step.every((t) => t.length === 1)));
});

test("decodeBatch: stop strings end a row once the decoded text contains them; constraints are replayed", () => {
  const decode = (ids: readonly number[]) => ids.map((i) => "abcdefghij"[i]).join("");
  const [r] = decodeBatch(new BigramSession(10, 3), [base({ maxTokens: 200, temperature: 5, stopStrings: ["ba", "ab"], allowed: () => [0, 1] })], { modelVocab: 10, vocab: 10, maxContext: 300, decode });
  assert.equal(r!.finishReason, "stop");
  const text = decode(r!.tokens);
  assert.ok(text.endsWith("ba") || text.endsWith("ab"), text);
  assert.ok(!/ab|ba/.test(text.slice(0, -1)), `stopped at the first occurrence: ${text}`);
  let calls = 0;
  const [c] = decodeBatch(new BigramSession(10, 3), [base({ maxTokens: 4, allowed: (g) => (calls++, [g.length]) })], { modelVocab: 10, vocab: 10, maxContext: 300 });
  assert.deepEqual(c!.tokens, [0, 1, 2, 3]);
  assert.deepEqual(c!.logprobs, [0, 0, 0, 0]);
  assert.equal(calls, 4);
});

test("decodeBatch rejects an empty prompt and bad knobs with a ShapeError", () => {
  const opts = { modelVocab: 10, vocab: 10, maxContext: 12 };
  assert.throws(() => decodeBatch(new BigramSession(10, 1), [base({ prompt: [] })], opts), /prompt is empty/);
  assert.throws(() => decodeBatch(new BigramSession(10, 1), [base({ temperature: -1 })], opts), /temperature/);
  assert.throws(() => decodeBatch(new BigramSession(10, 1), [base({ topP: 0 })], opts), /topP/);
  assert.throws(() => decodeBatch(new BigramSession(10, 1), [base({ stopStrings: ["x"] })], opts), /decode function/);
});
