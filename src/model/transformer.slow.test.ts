// Slow: the whole model at the benchmark's shape (4 layers, d 256, vocab 2048), native engine
// against the reference engine. Exercises what the tiny configs cannot: multi-threaded GEMMs,
// several attention query blocks per sequence, and realistic magnitudes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine } from "../engine/engine.ts";
import { loadNative } from "../engine/native.ts";
import { presetConfig } from "./config.ts";
import { ParamStore } from "./params.ts";
import { Transformer } from "./transformer.ts";

const native = loadNative();

test("bench-shaped model: native log-probs and gradients equal the reference", { skip: native.ok ? false : "no native addon" }, () => {
  const cfg = presetConfig("bench");
  const params = ParamStore.init(cfg, Rng.from(41));
  const rng = Rng.from(42);
  const rows = [200, 130].map((len, b) => ({ tokens: Array.from({ length: len }, () => rng.int(cfg.vocabSize)), start: 1 + 40 * b }));
  const weights = rows.map((r) => Float32Array.from({ length: r.tokens.length - r.start }, () => rng.normal() * 0.01));
  const n = new Transformer(cfg, params, { engine: createEngine({ kind: "native" }) });
  const r = new Transformer(cfg, params, { engine: referenceEngine() });
  const ln = n.backward(rows, weights), lr = r.backward(rows, weights);
  ln.forEach((a, i) => a.forEach((x, j) => assert.ok(Math.abs(x - lr[i]![j]!) < 1e-4, `logp ${i}/${j}: ${x} vs ${lr[i]![j]}`)));
  for (const [name, g] of n.grads.entries()) {
    const h = r.grads.get(name);
    let d = 0, s = 1e-6;
    for (let i = 0; i < g.length; i++) { d = Math.max(d, Math.abs(g[i]! - h[i]!)); s = Math.max(s, Math.abs(h[i]!)); }
    assert.ok(d / s < 1e-3, `${name}: ${d / s}`);
  }
});
