// Slow native-vs-reference check at a size that crosses the native LM head's row chunking
// (230 rows x 40k vocab: the logits exceed one 32 MB chunk).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine } from "./engine.ts";
import { loadNative } from "./native.ts";

const loaded = loadNative();
const skip = loaded.ok ? false : `native addon unavailable: ${loaded.error.message}`;

test("native LM head over several row chunks equals the reference (f32 and bf16)", { skip }, () => {
  const nat = createEngine({ kind: "native" }), ref = referenceEngine();
  const rng = Rng.from(31), rows = 230, D = 4, V = 40000;
  const rand = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
  const h = rand(rows * D), w = rand(V * D), weights = rand(rows);
  const targets = Int32Array.from({ length: rows }, () => rng.int(V));
  for (const dtype of ["f32", "bf16"] as const) {
    const outs = [nat, ref].map((e) => {
      const o = [new Float32Array(rows), new Float32Array(rows), new Float32Array(rows * D), new Float32Array(V * D)] as const;
      e.lmHeadTrain(o[0], o[1], o[2], o[3], h, w, targets, weights, rows, D, V, null, dtype);
      return o;
    });
    outs[0]!.forEach((a, i) => {
      const b = outs[1]![i]!;
      let d = 0, s = 1;
      for (let j = 0; j < b.length; j++) { d = Math.max(d, Math.abs(a[j]! - b[j]!)); s = Math.max(s, Math.abs(b[j]!)); }
      assert.ok(d / s < (dtype === "bf16" ? 1e-2 : 1e-4), `${dtype} output ${i}: ${d / s}`);
    });
  }
});
