// The architecture options beyond Qwen2 (arch.ts, config.ts): Qwen3's per-head q/k norm and a head
// size other than dModel / nHeads, and Llama's bias-free layers. Gradients against finite
// differences, KV-cache decoding against the training path, native against reference.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine } from "../engine/engine.ts";
import { loadNative } from "../engine/native.ts";
import { hasQkNorm, headDim, parameterCount, presetConfig, qDim, type ModelConfig } from "./config.ts";
import { layerNames, ParamStore } from "./params.ts";
import { Transformer } from "./transformer.ts";
import { KvCache } from "./kv-cache.ts";
import type { ScoreRow } from "./batch.ts";

const native = loadNative();
const noNative = native.ok ? false : `native addon unavailable: ${native.error.message}`;

function rows(rng: Rng, cfg: ModelConfig, lengths: readonly number[]): ScoreRow[] {
  return lengths.map((len, b) => ({ tokens: Array.from({ length: len }, () => rng.int(cfg.vocabSize)), start: 1 + (b % 3) }));
}

/** Weights with norms away from 1, so the norm weights' gradients and effects are exercised. */
function perturbedParams(cfg: ModelConfig, seed: number, std: number): ParamStore {
  const p = ParamStore.init(cfg, Rng.from(seed), std);
  const rng = Rng.from(seed + 1000);
  for (const [name, t] of p.entries()) if (name.endsWith("norm.weight")) for (let i = 0; i < t.length; i++) t[i] = 1 + 0.3 * rng.normal();
  return p;
}

test("a Qwen3 config: q/k norm tensors of headDim, q and o sized nHeads·headDim", () => {
  const c = presetConfig("tiny-qwen3");
  assert.ok(hasQkNorm(c));
  assert.equal(headDim(c), 12);
  assert.equal(qDim(c), 48);
  const p = ParamStore.init(c, Rng.from(1));
  const n = layerNames(0);
  assert.equal(p.get(n.qNorm).length, 12);
  assert.equal(p.get(n.q).length, 48 * 32);
  assert.equal(p.get(n.o).length, 32 * 48);
  assert.ok(!p.has(n.qBias));
  assert.equal(p.size(), parameterCount(c));
  // The model card: 1.7B parameters, 1.4B without the (tied) embedding.
  const qwen3 = presetConfig("qwen3-1.7b");
  assert.equal(parameterCount(qwen3), 1720574976);
  assert.equal(parameterCount(qwen3) - qwen3.vocabSize * qwen3.dModel, 1409410048);
  assert.equal(parameterCount(presetConfig("smollm2-135m")), 134515008);
});

const VARIANTS: { name: string; cfg: ModelConfig }[] = [
  { name: "qwen3, untied, head size 6 != 16/4", cfg: presetConfig("tiny-qwen3", { vocabSize: 19, dModel: 16, ffnSize: 24, headDim: 6, tiedEmbeddings: false }) },
  { name: "qwen3, tied, MHA", cfg: presetConfig("tiny-qwen3", { vocabSize: 19, dModel: 16, ffnSize: 24, nKvHeads: 4 }) },
  { name: "llama, tied, GQA", cfg: presetConfig("tiny", { arch: "llama", qkvBias: false, vocabSize: 19, dModel: 16, ffnSize: 24 }) },
];

for (const { name, cfg } of VARIANTS) {
  test(`whole-model gradient matches finite differences (${name})`, () => {
    const params = perturbedParams(cfg, 3, 0.3);
    const model = new Transformer(cfg, params, { engine: referenceEngine() });
    const rng = Rng.from(4);
    const batch = rows(rng, cfg, [7, 5]);
    const weights = model.logprobs(batch).map((a) => Float32Array.from(a, () => rng.normal()));
    const objective = () => model.logprobs(batch).reduce((s, a, b) => s + a.reduce((t, x, i) => t + x * weights[b]![i]!, 0), 0);
    model.zeroGrad();
    model.backward(batch, weights);
    let checked = 0, normChecked = 0;
    for (const [tensor, t] of params.entries()) {
      const g = model.grads.get(tensor);
      for (let probe = 0; probe < 3; probe++) {
        const i = rng.int(t.length), h = 1e-2, x0 = t[i]!;
        t[i] = x0 + h; const up = objective();
        t[i] = x0 - h; const dn = objective();
        t[i] = x0;
        const num = (up - dn) / (2 * h);
        assert.ok(Math.abs(num - g[i]!) <= 0.02 * Math.max(Math.abs(num), Math.abs(g[i]!)) + 2e-3, `${tensor}[${i}]: analytic ${g[i]} vs numeric ${num}`);
        checked++;
        if (/[qk]_norm/.test(tensor)) normChecked++;
      }
    }
    assert.equal(normChecked, hasQkNorm(cfg) ? 3 * 2 * cfg.nLayers : 0);
    assert.ok(checked >= 3 * 20);
  });
}

test("the q/k norm changes the function (it is not skipped): same weights without it differ", () => {
  const cfg = presetConfig("tiny-qwen3", { headDim: 8 });
  const params = perturbedParams(cfg, 5, 0.2);
  const batch = rows(Rng.from(6), cfg, [12]);
  const withNorm = new Transformer(cfg, params).logprobs(batch)[0]!;
  const llamaCfg = presetConfig("tiny", { arch: "llama", qkvBias: false });
  const tensors = new Map([...params.entries()].filter(([n]) => !/[qk]_norm/.test(n)));
  const without = new Transformer(llamaCfg, ParamStore.fromTensors(llamaCfg, tensors)).logprobs(batch)[0]!;
  let gap = 0;
  withNorm.forEach((x, i) => (gap = Math.max(gap, Math.abs(x - without[i]!))));
  assert.ok(gap > 1e-3, `q/k norm made no difference (${gap})`);
});

test("Qwen3 KV-cache decoding gives the training path's log-probs, token by token", () => {
  const cfg = presetConfig("tiny-qwen3");
  const model = new Transformer(cfg, perturbedParams(cfg, 7, 0.2));
  const rng = Rng.from(8);
  const seq = Array.from({ length: 20 }, () => rng.int(cfg.vocabSize));
  const lp = model.logprobs([{ tokens: seq, start: 3 }])[0]!;
  const cache = new KvCache(model, 2, 4);
  let logits = cache.append([1], [seq.slice(0, 3)]);
  for (let t = 3; t < seq.length; t++) {
    let mx = -Infinity, z = 0;
    for (let v = 0; v < cfg.vocabSize; v++) mx = Math.max(mx, logits[v]!);
    for (let v = 0; v < cfg.vocabSize; v++) z += Math.exp(logits[v]! - mx);
    const want = logits[seq[t]!]! - mx - Math.log(z);
    assert.ok(Math.abs(want - lp[t - 3]!) < 1e-4, `position ${t}: decode ${want} vs score ${lp[t - 3]}`);
    logits = cache.append([1], [[seq[t]!]]);
  }
});

test("native and reference engines agree on a Qwen3 model (log-probs and gradients)", { skip: noNative }, () => {
  const cfg = presetConfig("tiny-qwen3", { vocabSize: 300 });
  const params = perturbedParams(cfg, 14, 0.2);
  const batch = rows(Rng.from(15), cfg, [64, 30, 4]);
  const weights = batch.map((r) => new Float32Array(r.tokens.length - r.start).fill(0.1));
  const n = new Transformer(cfg, params, { engine: createEngine({ kind: "native" }) });
  const r = new Transformer(cfg, params, { engine: referenceEngine() });
  const ln = n.backward(batch, weights), lr = r.backward(batch, weights);
  ln.forEach((a, i) => a.forEach((x, j) => assert.ok(Math.abs(x - lr[i]![j]!) < 1e-4)));
  for (const [name, g] of n.grads.entries()) {
    const h = r.grads.get(name);
    let d = 0, s = 1e-3;
    for (let i = 0; i < g.length; i++) { d = Math.max(d, Math.abs(g[i]! - h[i]!)); s = Math.max(s, Math.abs(h[i]!)); }
    assert.ok(d / s < 1e-3, `${name}: ${d / s}`);
  }
});
