// The whole model: loss at init, gradients against finite differences, overfitting one batch,
// KV-cache decoding against full recomputation, allowed sets, bad input, native vs reference.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { ContextLimitError, ShapeError } from "../core/errors.ts";
import { createEngine, referenceEngine } from "../engine/engine.ts";
import { loadNative } from "../engine/native.ts";
import { presetConfig, type ModelConfig } from "./config.ts";
import { ParamStore } from "./params.ts";
import { Transformer } from "./transformer.ts";
import { KvCache } from "./kv-cache.ts";
import { AdamW } from "./adamw.ts";
import type { ScoreRow } from "./batch.ts";

const native = loadNative();
const noNative = native.ok ? false : `native addon unavailable: ${native.error.message}`;

function randomRows(rng: Rng, cfg: ModelConfig, lengths: readonly number[]): ScoreRow[] {
  return lengths.map((len, b) => ({ tokens: Array.from({ length: len }, () => rng.int(cfg.vocabSize)), start: 1 + (b % 3) }));
}

function logSoftmaxAt(logits: Float32Array, offset: number, vocab: number, target: number): number {
  let mx = -Infinity;
  for (let j = 0; j < vocab; j++) mx = Math.max(mx, logits[offset + j]!);
  let z = 0;
  for (let j = 0; j < vocab; j++) z += Math.exp(logits[offset + j]! - mx);
  return logits[offset + target]! - mx - Math.log(z);
}

test("loss at init is within 0.1 of ln(vocab)", () => {
  const cfg = presetConfig("tiny", { vocabSize: 256 });
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(1)));
  const lp = model.logprobs(randomRows(Rng.from(2), cfg, [40, 33, 50]));
  const all = lp.flatMap((a) => [...a]);
  const loss = -all.reduce((a, b) => a + b, 0) / all.length;
  assert.ok(Math.abs(loss - Math.log(256)) < 0.1, `loss ${loss} vs ln V ${Math.log(256)}`);
});

for (const variant of [{ name: "tied, GQA, qkv bias", o: {} }, { name: "untied, no bias, MHA", o: { tiedEmbeddings: false, qkvBias: false, nKvHeads: 4 } }]) {
  test(`whole-model gradient matches finite differences (${variant.name})`, () => {
    const cfg = presetConfig("tiny", { vocabSize: 19, dModel: 16, ffnSize: 24, ...variant.o });
    const params = ParamStore.init(cfg, Rng.from(3), 0.3); // larger init: exercise the nonlinearities
    const model = new Transformer(cfg, params, { engine: referenceEngine() });
    const rng = Rng.from(4);
    const rows = randomRows(rng, cfg, [7, 5]);
    const weights = model.logprobs(rows).map((a) => Float32Array.from(a, () => rng.normal()));
    const objective = () => model.logprobs(rows).reduce((s, a, b) => s + a.reduce((t, x, i) => t + x * weights[b]![i]!, 0), 0);
    model.zeroGrad();
    model.backward(rows, weights);
    let checked = 0;
    for (const [name, t] of params.entries()) {
      const g = model.grads.get(name);
      for (let probe = 0; probe < 3; probe++) {
        const i = rng.int(t.length), h = 1e-2, x0 = t[i]!;
        t[i] = x0 + h; const up = objective();
        t[i] = x0 - h; const dn = objective();
        t[i] = x0;
        const num = (up - dn) / (2 * h);
        assert.ok(Math.abs(num - g[i]!) <= 0.02 * Math.max(Math.abs(num), Math.abs(g[i]!)) + 2e-3,
          `${name}[${i}]: analytic ${g[i]} vs numeric ${num}`);
        checked++;
      }
    }
    assert.ok(checked >= 3 * 20);
  });
}

test("overfits one batch to near-zero loss", () => {
  const cfg = presetConfig("tiny");
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(5)));
  const opt = new AdamW(model.params, model.engine);
  const rows = randomRows(Rng.from(6), cfg, [24, 17]).map((r) => ({ ...r, start: 1 }));
  const n = rows.reduce((s, r) => s + r.tokens.length - 1, 0);
  let loss = Infinity;
  for (let step = 0; step < 200 && loss > 0.05; step++) {
    model.zeroGrad();
    const lp = model.backward(rows, rows.map((r) => new Float32Array(r.tokens.length - 1).fill(-1 / n)));
    loss = -lp.reduce((s, a) => s + a.reduce((t, x) => t + x, 0), 0) / n;
    opt.update(model.grads, { lr: 1e-2, maxGradNorm: 1 });
  }
  assert.ok(loss < 0.05, `loss after training: ${loss}`);
});

test("KV-cache decoding gives the logits of full recomputation, for rows of different lengths finishing early", () => {
  const cfg = presetConfig("tiny");
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(7), 0.1));
  const rng = Rng.from(8);
  const seqs = [13, 6, 9].map((len) => Array.from({ length: len }, () => rng.int(cfg.vocabSize)));
  const prompt = [4, 2, 5];
  const cache = new KvCache(model, 3, 4); // small initial capacity: exercises growth
  let logits = cache.append([0, 1, 2], seqs.map((s, i) => s.slice(0, prompt[i])));
  let live = [0, 1, 2], pos = [...prompt];
  let compared = 0;
  while (live.length > 0) {
    live.forEach((r, j) => {
      const full = new KvCache(model, 1).append([0], [seqs[r]!.slice(0, pos[r])]);
      for (let v = 0; v < cfg.vocabSize; v++) assert.ok(Math.abs(full[v]! - logits[j * cfg.vocabSize + v]!) < 1e-4, `row ${r} at ${pos[r]}`);
      // the training path scores the next token with the same distribution
      if (pos[r]! < seqs[r]!.length) {
        const [lp] = model.logprobs([{ tokens: seqs[r]!.slice(0, pos[r]! + 1), start: pos[r]! }]);
        assert.ok(Math.abs(lp![0]! - logSoftmaxAt(logits, j * cfg.vocabSize, cfg.vocabSize, seqs[r]![pos[r]!]!)) < 1e-4);
      }
      compared++;
    });
    live = live.filter((r) => pos[r]! < seqs[r]!.length);
    if (live.length === 0) break;
    logits = cache.append(live, live.map((r) => [seqs[r]![pos[r]!]!]));
    live.forEach((r) => { pos[r] = pos[r]! + 1; });
  }
  assert.equal(compared, (13 - 4 + 1) + (6 - 2 + 1) + (9 - 5 + 1));
  assert.equal(cache.length(0), 13);
  cache.truncate(0, 5);
  const again = cache.append([0], [seqs[0]!.slice(5, 8)]);
  const full = new KvCache(model, 1).append([0], [seqs[0]!.slice(0, 8)]);
  for (let v = 0; v < cfg.vocabSize; v++) assert.ok(Math.abs(again[v]! - full[v]!) < 1e-4);
});

test("the KV cache is bounded by maxContext", () => {
  const cfg = presetConfig("tiny", { maxContext: 8 });
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(9)));
  const cache = new KvCache(model, 2);
  cache.append([0], [[1, 2, 3, 4, 5, 6, 7]]);
  cache.append([0], [[8]]);
  assert.throws(() => cache.append([0, 1], [[9], [1]]), ContextLimitError);
  assert.equal(cache.length(1), 0, "a refused append changes nothing");
  assert.throws(() => cache.append([0], [[cfg.vocabSize]]), ShapeError);
});

test("allowed sets renormalise the scored softmax over the allowed ids", () => {
  const cfg = presetConfig("tiny");
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(10), 0.1));
  const tokens = [3, 9, 12, 7];
  const logits = new KvCache(model, 1).append([0], [tokens.slice(0, 2)]);
  const allowedIds = [12, 30, 1];
  const [lp] = model.logprobs([{ tokens, start: 2, allowed: [allowedIds, null] }]);
  let mx = -Infinity;
  for (const j of allowedIds) mx = Math.max(mx, logits[j]!);
  const z = allowedIds.reduce((s, j) => s + Math.exp(logits[j]! - mx), 0);
  assert.ok(Math.abs(lp![0]! - (logits[12]! - mx - Math.log(z))) < 1e-5);
  const [free] = model.logprobs([{ tokens, start: 2 }]);
  assert.ok(Math.abs(lp![1]! - free![1]!) < 1e-6, "a null entry leaves that position unrestricted");
  assert.throws(() => model.logprobs([{ tokens, start: 2, allowed: [[30, 1], null] }]), /not in its allowed set/);
});

test("bad input gives clear errors, never a crash", () => {
  const cfg = presetConfig("tiny");
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(11)));
  assert.throws(() => model.logprobs([]), ShapeError);
  assert.throws(() => model.logprobs([{ tokens: [1, 2, 64], start: 1 }]), /outside the vocabulary/);
  assert.throws(() => model.logprobs([{ tokens: [1, 2.5], start: 1 }]), ShapeError);
  assert.throws(() => model.logprobs([{ tokens: [1, 2], start: 0 }]), /start/);
  assert.throws(() => model.logprobs([{ tokens: new Array(65).fill(1), start: 1 }]), ContextLimitError);
  assert.throws(() => model.backward([{ tokens: [1, 2, 3], start: 1 }], [new Float32Array(3)]), /needs 2 weights/);
  assert.throws(() => model.backward([{ tokens: [1, 2, 3], start: 1 }], [new Float32Array([1, NaN])]), ShapeError);
  const other = presetConfig("tiny", { dModel: 64 });
  assert.throws(() => new Transformer(other, ParamStore.init(cfg, Rng.from(1))), ShapeError);
});

test("bf16 compute (emulated where the CPU lacks bf16) stays close to f32", () => {
  const cfg = presetConfig("tiny", { dtype: "bf16" });
  const params = ParamStore.init(cfg, Rng.from(12), 0.1);
  const rows = randomRows(Rng.from(13), cfg, [20, 11]);
  const b = new Transformer(cfg, params, { emulateBf16: true });
  const f = new Transformer({ ...cfg, dtype: "f32" }, params);
  assert.equal(b.computeDtype, "bf16");
  const lb = b.logprobs(rows), lf = f.logprobs(rows);
  let worst = 0, differs = false;
  lb.forEach((a, i) => a.forEach((x, j) => { worst = Math.max(worst, Math.abs(x - lf[i]![j]!)); if (x !== lf[i]![j]) differs = true; }));
  assert.ok(worst < 0.02, `bf16 vs f32 log-prob gap ${worst}`);
  assert.ok(differs, "bf16 rounding must actually change something");
});

test("native and reference engines agree on the whole model (log-probs and gradients)", { skip: noNative }, () => {
  const cfg = presetConfig("tiny", { vocabSize: 300 });
  const params = ParamStore.init(cfg, Rng.from(14), 0.2);
  const rows = randomRows(Rng.from(15), cfg, [64, 30, 4]);
  const weights = rows.map((r) => new Float32Array(r.tokens.length - r.start).fill(0.1));
  const n = new Transformer(cfg, params, { engine: createEngine({ kind: "native" }) });
  const r = new Transformer(cfg, params, { engine: referenceEngine() });
  const ln = n.backward(rows, weights), lr = r.backward(rows, weights);
  ln.forEach((a, i) => a.forEach((x, j) => assert.ok(Math.abs(x - lr[i]![j]!) < 1e-4)));
  for (const [name, g] of n.grads.entries()) {
    const h = r.grads.get(name);
    let d = 0, s = 1e-3;
    for (let i = 0; i < g.length; i++) { d = Math.max(d, Math.abs(g[i]! - h[i]!)); s = Math.max(s, Math.abs(h[i]!)); }
    assert.ok(d / s < 1e-3, `${name}: ${d / s}`);
  }
});

test("reused activation buffers leak nothing between calls of different sizes", () => {
  const cfg = presetConfig("tiny");
  const params = ParamStore.init(cfg, Rng.from(16), 0.2);
  const rng = Rng.from(17);
  const big = randomRows(rng, cfg, [40, 33]), small = randomRows(rng, cfg, [9]);
  const wSmall = small.map((r) => new Float32Array(r.tokens.length - r.start).fill(0.5));
  const fresh = new Transformer(cfg, params);
  const want = fresh.logprobs(small);
  fresh.backward(small, wSmall);
  const used = new Transformer(cfg, params);
  used.backward(big, big.map((r) => new Float32Array(r.tokens.length - r.start).fill(1)));
  used.logprobs(big);
  used.zeroGrad();
  assert.deepEqual(used.logprobs(small), want);
  used.backward(small, wSmall);
  for (const [name, g] of fresh.grads.entries()) assert.deepEqual(used.grads.get(name), g, name);
  used.releaseWorkspace();
  assert.deepEqual(used.logprobs(small), want);
});

test("gradients accumulate across backward calls: two halves equal the whole batch", () => {
  const cfg = presetConfig("tiny");
  const params = ParamStore.init(cfg, Rng.from(18), 0.2);
  const rows = randomRows(Rng.from(19), cfg, [12, 30, 7, 21]);
  const weights = rows.map((r, b) => new Float32Array(r.tokens.length - r.start).fill(0.1 * (b + 1)));
  const whole = new Transformer(cfg, params);
  whole.backward(rows, weights);
  const halves = new Transformer(cfg, params);
  halves.backward(rows.slice(0, 2), weights.slice(0, 2));
  halves.backward(rows.slice(2), weights.slice(2));
  for (const [name, g] of whole.grads.entries()) {
    const h = halves.grads.get(name);
    let d = 0, s = 1e-6;
    for (let i = 0; i < g.length; i++) { d = Math.max(d, Math.abs(g[i]! - h[i]!)); s = Math.max(s, Math.abs(g[i]!)); }
    assert.ok(d / s < 1e-5, `${name}: ${d / s}`);
  }
  assert.ok(Math.abs(whole.gradNorm() - halves.gradNorm()) < 1e-4 * whole.gradNorm());
});

test("logprobsAndNext: the rows' log-probs as logprobs gives them, and the next-token logits a KV-cache prefill gives", () => {
  const cfg = presetConfig("tiny", { vocabSize: 256 });
  const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(3)));
  const rows = randomRows(Rng.from(4), cfg, [9, 17, 40]);
  const { logprobs, next } = model.logprobsAndNext(rows);
  const plain = model.logprobs(rows);
  rows.forEach((r, b) => {
    assert.equal(logprobs[b]!.length, plain[b]!.length);
    logprobs[b]!.forEach((x, i) => assert.ok(Math.abs(x - plain[b]![i]!) <= 1e-5, `row ${b} token ${i}: ${x} vs ${plain[b]![i]}`));
    const prefill = new KvCache(model, 1).append([0], [Array.from(r.tokens)]);
    let worst = 0;
    for (let j = 0; j < cfg.vocabSize; j++) worst = Math.max(worst, Math.abs(next[b * cfg.vocabSize + j]! - prefill[j]!));
    assert.ok(worst <= 1e-4, `row ${b}: next-token logits differ from the prefill's by ${worst}`);
  });
});
