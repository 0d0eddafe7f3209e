// The native engine's fused decode step (`decoderForward`, one call per append) against the
// per-kernel path on the reference engine: prefills of different lengths, single-token steps,
// rows finishing early, cache growth, with and without qkv biases and tied embeddings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine } from "../engine/engine.ts";
import { loadNative } from "../engine/native.ts";
import { relErr } from "../testing/rel-err.ts";
import { presetConfig } from "./config.ts";
import { ParamStore } from "./params.ts";
import { Transformer } from "./transformer.ts";
import { KvCache } from "./kv-cache.ts";

const native = loadNative();
const skip = native.ok ? false : `native addon unavailable: ${native.error.message}`;

for (const variant of [{ name: "tied, GQA, qkv bias", o: {} }, { name: "untied, no bias, MHA", o: { tiedEmbeddings: false, qkvBias: false, nKvHeads: 4 } }]) {
  test(`fused native decode equals the per-kernel reference path (${variant.name})`, { skip }, () => {
    const cfg = presetConfig("tiny", variant.o);
    const params = ParamStore.init(cfg, Rng.from(3), 0.1);
    const nat = new Transformer(cfg, params, { engine: createEngine({ kind: "native" }) });
    const ref = new Transformer(cfg, params, { engine: referenceEngine() });
    assert.ok(nat.engine.hasDecoder && !ref.engine.hasDecoder);
    const a = new KvCache(nat, 3, 4), b = new KvCache(ref, 3, 4); // capacity 4: grows twice
    const rng = Rng.from(4);
    const tok = (n: number) => Array.from({ length: n }, () => rng.int(cfg.vocabSize));
    const steps: [number[], number[][]][] = [[[0, 1, 2], [tok(5), tok(1), tok(9)]]];
    for (let s = 0; s < 6; s++) steps.push([[0, 2], [tok(1), tok(1)]]);
    steps.push([[1, 0], [tok(7), tok(1)]]);
    for (const [rows, tokens] of steps) {
      const la = a.append(rows, tokens), lb = b.append(rows, tokens);
      assert.equal(la.length, rows.length * cfg.vocabSize);
      assert.ok(relErr(la, lb) < 1e-4, `rows ${rows}: ${relErr(la, lb)}`);
    }
    for (let r = 0; r < 3; r++) assert.equal(a.length(r), b.length(r));
  });
}
