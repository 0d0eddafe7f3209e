// The q/k row order of llama.cpp's Llama conversion: permuting then un-permuting is the identity,
// the permutation is the converter's (a hand-checked small case), and, the point of it, llama.cpp's
// interleaved RoPE on the permuted projection equals our rotate-half RoPE on the original one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../core/rng.ts";
import { getEngine } from "../../engine/engine.ts";
import { permuteRows, unpermuteRows } from "./permute.ts";

test("permuteRows follows convert_hf_to_gguf (reshape heads x 2 x hd/2, swap the last two) and unpermuteRows inverts it", () => {
  // 2 heads of size 4, one column: HF rows [a0 a1 b0 b1 | c0 c1 d0 d1] (halves a|b per head) become pairs a0 b0 a1 b1.
  const w = Float32Array.from([0, 1, 2, 3, 10, 11, 12, 13]);
  assert.deepEqual([...permuteRows(w, 2, 1)], [0, 2, 1, 3, 10, 12, 11, 13]);
  const rng = Rng.from(5);
  const big = Float32Array.from({ length: 6 * 8 * 5 }, () => rng.normal());
  assert.deepEqual(unpermuteRows(permuteRows(big, 6, 5), 6, 5), big);
  assert.notDeepEqual(permuteRows(big, 6, 5), big);
  assert.throws(() => permuteRows(new Float32Array(30), 2, 5), /head size 3 is odd/);
});

/** llama.cpp's "normal" RoPE: rotate adjacent pairs (2i, 2i+1) of each head by pos * theta^(-2i/hd). */
function interleavedRope(x: Float32Array, pos: number, heads: number, hd: number, theta: number): Float32Array {
  const out = x.slice();
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < hd / 2; i++) {
      const a = pos * theta ** (-(2 * i) / hd), c = Math.cos(a), s = Math.sin(a);
      const x0 = x[h * hd + 2 * i]!, x1 = x[h * hd + 2 * i + 1]!;
      out[h * hd + 2 * i] = x0 * c - x1 * s;
      out[h * hd + 2 * i + 1] = x0 * s + x1 * c;
    }
  }
  return out;
}

test("RoPE: llama.cpp's interleaved rotation of the GGUF projection is our rotate-half rotation of the HF one, rows un-permuted", () => {
  const e = getEngine(), rng = Rng.from(9);
  const heads = 3, hd = 8, D = 12, theta = 10000;
  const W = Float32Array.from({ length: heads * hd * D }, () => rng.normal());
  const x = Float32Array.from({ length: D }, () => rng.normal());
  const Wg = permuteRows(W, heads, D);
  const project = (m: Float32Array) => {
    const y = new Float32Array(heads * hd);
    for (let r = 0; r < heads * hd; r++) for (let c = 0; c < D; c++) y[r]! += m[r * D + c]! * x[c]!;
    return y;
  };
  for (const pos of [0, 1, 7, 300]) {
    const ours = project(W);
    e.rope(ours, Int32Array.of(pos), 1, heads, hd, theta);
    const theirs = unpermuteRows(interleavedRope(project(Wg), pos, heads, hd, theta), heads, 1);
    for (let i = 0; i < ours.length; i++) assert.ok(Math.abs(ours[i]! - theirs[i]!) < 1e-4, `pos ${pos} element ${i}: ${ours[i]} vs ${theirs[i]}`);
    // Without un-permuting the weights, the rotations disagree (the test can fail).
    if (pos > 0) {
      const wrong = project(Wg);
      e.rope(wrong, Int32Array.of(pos), 1, heads, hd, theta);
      const plain = interleavedRope(project(Wg), pos, heads, hd, theta);
      assert.ok(wrong.some((v, i) => Math.abs(v - plain[i]!) > 1e-2));
    }
  }
});
