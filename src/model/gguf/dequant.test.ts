// Dequantisation of each ggml type against blocks built by hand from the format's definition,
// f16 conversion on every bit pattern, unsupported types refused, and our encoders round-tripping.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../core/rng.ts";
import { dequantize, floatToHalf, GGML_TYPE, halfToFloat, q4_1Mins, tensorBytes } from "./dequant.ts";
import { encodeTensor } from "./writer.ts";

/** Bytes from a list of (little-endian u16 | byte) pieces. */
function bytes(...pieces: ({ u16: number } | number)[]): Uint8Array {
  const out: number[] = [];
  for (const p of pieces) {
    if (typeof p === "number") out.push(p);
    else out.push(p.u16 & 0xff, p.u16 >> 8);
  }
  return new Uint8Array(out);
}

const HALF_0_5 = 0x3800, HALF_MINUS_1 = 0xbc00, HALF_2 = 0x4000, HALF_0_25 = 0x3400;

test("Q4_1: w = d * q + m, byte j holds element j (low nibble) and j + 16 (high nibble)", () => {
  // d = 0.5, m = -1; byte j = (15 - j) << 4 | j, so element j has q = j and element j + 16 has q = 15 - j.
  const qs = Array.from({ length: 16 }, (_, j) => ((15 - j) << 4) | j);
  const b = bytes({ u16: HALF_0_5 }, { u16: HALF_MINUS_1 }, ...qs);
  assert.equal(b.length, 20);
  const w = dequantize(b, 0, GGML_TYPE.Q4_1, 32, "t", "w");
  for (let j = 0; j < 16; j++) {
    assert.equal(w[j], 0.5 * j - 1);
    assert.equal(w[j + 16], 0.5 * (15 - j) - 1);
  }
  assert.deepEqual([...q4_1Mins(b, 0, 1, 32)], [-1]);
});

test("Q8_0: w = d * q with signed bytes; two blocks; at an offset", () => {
  const q = Array.from({ length: 32 }, (_, j) => (j * 8 - 128) & 0xff); // -128, -120, ..., 120
  const b = bytes(7, 7, { u16: HALF_2 }, ...q, { u16: HALF_0_25 }, ...q);
  const w = dequantize(b, 2, GGML_TYPE.Q8_0, 64, "t", "w");
  for (let j = 0; j < 32; j++) {
    assert.equal(w[j], 2 * (j * 8 - 128));
    assert.equal(w[32 + j], 0.25 * (j * 8 - 128));
  }
});

test("Q4_0: w = d * (q - 8)", () => {
  const b = bytes({ u16: HALF_2 }, ...Array.from({ length: 16 }, (_, j) => (j << 4) | (15 - j)));
  const w = dequantize(b, 0, GGML_TYPE.Q4_0, 32, "t", "w");
  for (let j = 0; j < 16; j++) {
    assert.equal(w[j], 2 * (15 - j - 8));
    assert.equal(w[j + 16], 2 * (j - 8));
  }
});

test("F32, F16 and BF16 tensors", () => {
  const f32 = new Uint8Array(new Float32Array([1.5, -2, 3e-8]).buffer);
  assert.deepEqual([...dequantize(f32, 0, GGML_TYPE.F32, 3, "t", "w")], [1.5, -2, Math.fround(3e-8)]);
  const f16 = bytes({ u16: 0x3c00 }, { u16: 0xc000 }, { u16: 0x0001 }, { u16: 0x7bff }, { u16: 0xfc00 });
  assert.deepEqual([...dequantize(f16, 0, GGML_TYPE.F16, 5, "t", "w")], [1, -2, 2 ** -24, 65504, -Infinity]);
  const bf16 = bytes({ u16: 0x3f80 }, { u16: 0xc040 }, { u16: 0x4049 });
  assert.deepEqual([...dequantize(bf16, 0, GGML_TYPE.BF16, 3, "t", "w")], [1, -3, 3.140625]);
});

test("f16: floatToHalf inverts halfToFloat on every non-NaN pattern, and rounds to nearest even", () => {
  for (let h = 0; h < 65536; h++) {
    const f = halfToFloat(h);
    if (Number.isNaN(f)) continue;
    assert.equal(floatToHalf(f), h, `pattern ${h.toString(16)}`);
  }
  assert.equal(floatToHalf(1 + 2 ** -11), 0x3c00); // a tie: rounds to the even mantissa
  assert.equal(floatToHalf(1 + 3 * 2 ** -11), 0x3c02);
  assert.equal(floatToHalf(70000), 0x7c00);
  assert.ok(Number.isNaN(halfToFloat(floatToHalf(NaN))));
});

test("unsupported types and partial blocks are refused with the tensor's name; truncation too", () => {
  assert.throws(() => dequantize(new Uint8Array(1000), 0, GGML_TYPE.Q6_K, 256, "m.gguf", "blk.0.ffn_down.weight"),
    /m\.gguf.*blk\.0\.ffn_down\.weight has ggml type Q6_K, which seed cannot dequantise/);
  assert.throws(() => tensorBytes(GGML_TYPE.Q4_1, 40, "m.gguf", "x"), /40 elements, not a whole number of 32-element Q4_1 blocks/);
  assert.throws(() => dequantize(new Uint8Array(30), 0, GGML_TYPE.Q4_1, 64, "m.gguf", "x"), /truncated: tensor x needs bytes 0\.\.40/);
});

test("encoders: F32/F16/BF16 exact or nearest; Q8_0, Q4_1, Q4_0 within half a step of each block", () => {
  const rng = Rng.from(3);
  const x = Float32Array.from({ length: 256 }, () => rng.normal() * 0.1);
  assert.deepEqual(dequantize(encodeTensor(x, GGML_TYPE.F32), 0, GGML_TYPE.F32, 256, "t", "w"), x);
  const f16 = dequantize(encodeTensor(x, GGML_TYPE.F16), 0, GGML_TYPE.F16, 256, "t", "w");
  const bf16 = dequantize(encodeTensor(x, GGML_TYPE.BF16), 0, GGML_TYPE.BF16, 256, "t", "w");
  for (let i = 0; i < 256; i++) {
    assert.ok(Math.abs(f16[i]! - x[i]!) <= Math.abs(x[i]!) * 2 ** -11 + 2 ** -25);
    assert.ok(Math.abs(bf16[i]! - x[i]!) <= Math.abs(x[i]!) * 2 ** -8);
  }
  for (const [type, levels] of [[GGML_TYPE.Q8_0, 254], [GGML_TYPE.Q4_1, 15], [GGML_TYPE.Q4_0, 15]] as const) {
    const y = dequantize(encodeTensor(x, type), 0, type, 256, "t", "w");
    for (let b = 0; b < 8; b++) {
      const blk = x.subarray(32 * b, 32 * b + 32);
      const range = type === GGML_TYPE.Q4_1 ? Math.max(...blk) - Math.min(...blk) : 2 * Math.max(...blk.map(Math.abs));
      const step = range / levels;
      for (let j = 0; j < 32; j++) assert.ok(Math.abs(y[32 * b + j]! - blk[j]!) <= step * 0.51 + 1e-4, `type ${type} block ${b} elem ${j}`);
    }
  }
});
