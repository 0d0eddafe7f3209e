// The llama.cpp activation-rounding option of the comparison: Q8 block rounding (half to even),
// and the wrapped engine's matmul against a Q4_1 weight equals llama.cpp's integer block dot
// product written out from its definition (d_w d_x Σ q_w q_x + m_w s, s = f16(d_x Σ q_x)).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { getEngine } from "../engine/engine.ts";
import { dequantize, floatToHalf, GGML_TYPE, halfToFloat, q4_1Mins } from "../model/gguf/dequant.ts";
import { llamaCppActivationEngine, roundToQ8Blocks } from "./llamacpp-numerics.ts";
import { encodeTensor } from "../model/gguf/writer.ts";

const h = (x: number) => halfToFloat(floatToHalf(x));

test("roundToQ8Blocks: d = max|x| / 127, q rounds half to even, x' = f16(d) q", () => {
  const x = new Float32Array(32);
  x.set([127, 2.5, 3.5, -2.5, -3.5, 0.49, -127]);
  roundToQ8Blocks(x);
  assert.deepEqual([...x.subarray(0, 8)], [127, 2, 4, -2, -4, 0, -127, 0]);
  const y = Float32Array.from({ length: 32 }, (_, i) => (i - 10) * 0.37);
  const want = y.map((v) => {
    const d = Math.fround(Math.fround(21 * 0.37) / 127);
    return h(d) * Math.round(v * Math.fround(127 / Math.fround(21 * 0.37)));
  });
  roundToQ8Blocks(y);
  for (let i = 0; i < 32; i++) assert.ok(Math.abs(y[i]! - want[i]!) < 1e-6, `${i}`);
});

test("llamaCppActivationEngine: a Q4_1 matmul is llama.cpp's block dot product; other weights are untouched", () => {
  const rng = Rng.from(11), rows = 3, out = 5, k = 64;
  const wRaw = Float32Array.from({ length: out * k }, () => rng.normal());
  const bytes = encodeTensor(wRaw, GGML_TYPE.Q4_1);
  const w = dequantize(bytes, 0, GGML_TYPE.Q4_1, out * k, "t", "w");
  const mins = q4_1Mins(bytes, 0, out, k);
  const x = Float32Array.from({ length: rows * k }, () => rng.normal() * 3);
  const e = llamaCppActivationEngine(getEngine(), new Map([[w, { type: GGML_TYPE.Q4_1, mins }]]));
  assert.equal(e.hasDecoder, false);
  const y = new Float32Array(rows * out);
  e.matmul(y, x, w, rows, out, k, false, true);
  const view = new DataView(bytes.buffer);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < out; o++) {
      let want = 0;
      for (let b = 0; b < k / 32; b++) {
        const xs = x.subarray(r * k + 32 * b, r * k + 32 * b + 32);
        const amax = Math.max(...xs.map(Math.abs)), d = Math.fround(amax / 127), id = Math.fround(127 / amax);
        const qx = [...xs].map((v) => Math.round(Math.fround(v * id)));
        const blk = (o * k) / 32 + b, dw = halfToFloat(view.getUint16(20 * blk, true)), mw = halfToFloat(view.getUint16(20 * blk + 2, true));
        let sumi = 0;
        for (let j = 0; j < 16; j++) {
          const q = view.getUint8(20 * blk + 4 + j);
          sumi += (q & 15) * qx[j]! + (q >> 4) * qx[j + 16]!;
        }
        want += dw * h(d) * sumi + mw * h(d * qx.reduce((s, q) => s + q, 0));
      }
      assert.ok(Math.abs(y[r * out + o]! - want) < 1e-4 * (1 + Math.abs(want)), `row ${r} out ${o}: ${y[r * out + o]} vs ${want}`);
    }
  }
  // A weight not in the map goes through unchanged.
  const other = w.slice(), plain = new Float32Array(rows * out), direct = new Float32Array(rows * out);
  e.matmul(plain, x, other, rows, out, k, false, true);
  getEngine().matmul(direct, x, other, rows, out, k, false, true);
  assert.deepEqual(plain, direct);
  assert.ok(plain.some((v, i) => Math.abs(v - y[i]!) > 1e-3)); // the rounding is visible
});
