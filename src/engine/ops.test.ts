// Reference kernels against central finite differences in f64 (every backward), and forwards
// against closed forms and extreme ranges. Every random input comes from a seeded Rng.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { matmul, roundBf16 } from "./ops/matmul.ts";
import { rmsnormForward, rmsnormBackward } from "./ops/rmsnorm.ts";
import { rope } from "./ops/rope.ts";
import { swigluForward, swigluBackward } from "./ops/swiglu.ts";
import { attentionForward, attentionBackward } from "./ops/attention.ts";
import { lmHeadForward, lmHeadBackward } from "./ops/lm-head.ts";
import { adamw } from "./ops/adamw.ts";
import type { AllowedSets } from "./kernels.ts";

const rand = (rng: Rng, n: number, scale = 1) => Float64Array.from({ length: n }, () => rng.normal() * scale);
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!; return s; };

/** Worst relative error of `analytic` against central differences of `loss` w.r.t. `x` (perturbed in place). */
function fdCheck(loss: () => number, x: Float64Array, analytic: ArrayLike<number>, h = 1e-5): number {
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i]!;
    x[i] = x0 + h; const up = loss();
    x[i] = x0 - h; const dn = loss();
    x[i] = x0;
    const num = (up - dn) / (2 * h);
    worst = Math.max(worst, Math.abs(num - analytic[i]!) / Math.max(1, Math.abs(num)));
  }
  return worst;
}

test("matmul matches a hand-computed product for every transpose combination", () => {
  // A = [[1,2],[3,4]], B = [[5,6],[7,8]]: AB = [[19,22],[43,50]], AᵀB = [[26,30],[38,44]], ABᵀ = [[17,23],[39,53]]
  const A = new Float64Array([1, 2, 3, 4]), B = new Float64Array([5, 6, 7, 8]), C = new Float64Array(4);
  matmul(C, A, B, 2, 2, 2, false, false, false, "f32"); assert.deepEqual([...C], [19, 22, 43, 50]);
  matmul(C, A, B, 2, 2, 2, true, false, false, "f32"); assert.deepEqual([...C], [26, 30, 38, 44]);
  matmul(C, A, B, 2, 2, 2, false, true, false, "f32"); assert.deepEqual([...C], [17, 23, 39, 53]);
  matmul(C, A, B, 2, 2, 2, false, true, true, "f32"); assert.deepEqual([...C], [34, 46, 78, 106]);
  // non-square: [1x3]·[3x2]
  const c2 = new Float64Array(2);
  matmul(c2, new Float64Array([1, 2, 3]), new Float64Array([1, 0, 0, 1, 1, 1]), 1, 2, 3, false, false, false, "f32");
  assert.deepEqual([...c2], [4, 5]);
});

test("bf16 rounding is round-to-nearest-even on the top 16 bits", () => {
  assert.equal(roundBf16(1), 1);
  assert.equal(roundBf16(1 + 2 ** -8), 1); // exactly half an ulp (2^-7): ties to even (down)
  assert.equal(roundBf16(1 + 3 * 2 ** -8), 1 + 2 ** -6); // 1.5 ulp: ties to even (up)
  assert.equal(roundBf16(1 + 2 ** -7 + 2 ** -10), 1 + 2 ** -7);
  assert.equal(roundBf16(-3.140625), -3.140625);
  assert.ok(Number.isNaN(roundBf16(NaN)));
  assert.equal(roundBf16(Infinity), Infinity);
});

test("rmsnorm: forward matches the closed form, backward matches finite differences", () => {
  const rng = Rng.from(11), rows = 3, cols = 5;
  const x = rand(rng, rows * cols), w = rand(rng, cols), R = rand(rng, rows * cols);
  const out = new Float64Array(rows * cols), inv = new Float64Array(rows);
  rmsnormForward(out, inv, x, w, rows, cols, 1e-6);
  const ms = (x[0]! ** 2 + x[1]! ** 2 + x[2]! ** 2 + x[3]! ** 2 + x[4]! ** 2) / 5;
  assert.ok(Math.abs(out[2]! - (x[2]! / Math.sqrt(ms + 1e-6)) * w[2]!) < 1e-12);
  const loss = () => { rmsnormForward(out, inv, x, w, rows, cols, 1e-6); return dot(out, R); };
  const dx = new Float64Array(rows * cols), dw = new Float64Array(cols);
  loss();
  rmsnormBackward(dx, dw, R, x, w, inv, rows, cols);
  assert.ok(fdCheck(loss, x, dx) < 1e-7);
  assert.ok(fdCheck(loss, w, dw) < 1e-7);
});

test("rope: inverse undoes forward, position 0 is the identity, backward matches finite differences", () => {
  const rng = Rng.from(12), rows = 4, heads = 2, hd = 6;
  const pos = new Int32Array([0, 3, 7, 100]);
  const x = rand(rng, rows * heads * hd), x0 = x.slice();
  rope(x, pos, rows, heads, hd, 10000, false);
  for (let i = 0; i < heads * hd; i++) assert.equal(x[i], x0[i]);
  assert.notEqual(x[heads * hd], x0[heads * hd]);
  rope(x, pos, rows, heads, hd, 10000, true);
  for (let i = 0; i < x.length; i++) assert.ok(Math.abs(x[i]! - x0[i]!) < 1e-12);
  // Hugging Face pairing: element i rotates with i + hd/2 by pos·theta^(-2i/hd)
  const one = new Float64Array([1, 0, 0, 0, 0, 0]);
  rope(one, new Int32Array([2]), 1, 1, 6, 10000, false);
  assert.ok(Math.abs(one[0]! - Math.cos(2)) < 1e-12 && Math.abs(one[3]! - Math.sin(2)) < 1e-12);
  const R = rand(rng, rows * heads * hd);
  const loss = () => { const y = x.slice(); rope(y, pos, rows, heads, hd, 10000, false); return dot(y, R); };
  const g = R.slice();
  rope(g, pos, rows, heads, hd, 10000, true);
  assert.ok(fdCheck(loss, x, g) < 1e-7);
});

test("swiglu: backward matches finite differences, silu(0) = 0", () => {
  const rng = Rng.from(13), n = 9;
  const gate = rand(rng, n, 2), up = rand(rng, n), R = rand(rng, n), h = new Float64Array(n);
  gate[0] = 0;
  swigluForward(h, gate, up, n);
  assert.equal(h[0], 0);
  const loss = () => { swigluForward(h, gate, up, n); return dot(h, R); };
  const dg = new Float64Array(n), du = new Float64Array(n);
  swigluBackward(dg, du, R, gate, up, n);
  assert.ok(fdCheck(loss, gate, dg) < 1e-7);
  assert.ok(fdCheck(loss, up, du) < 1e-7);
});

test("attention: one key returns its value; GQA backward matches finite differences, also with a cached past", () => {
  const one = new Float64Array([0.3, -1]), out1 = new Float64Array(2);
  attentionForward(out1, null, one, new Float64Array([5, 5]), new Float64Array([7, -2]), new Int32Array([0, 1, 0, 0]), 1, 1, 2);
  assert.deepEqual([...out1], [7, -2]);
  const rng = Rng.from(14), H = 4, Hkv = 2, hd = 4;
  // sequence 0: 3 packed tokens; sequence 1: 2 new tokens after 3 cached ones at kv rows 3..7
  const seqs = new Int32Array([0, 3, 0, 0, 3, 2, 3, 3]);
  const q = rand(rng, 5 * H * hd), k = rand(rng, 8 * Hkv * hd), v = rand(rng, 8 * Hkv * hd), R = rand(rng, 5 * H * hd);
  const out = new Float64Array(5 * H * hd), lse = new Float64Array(5 * H);
  const loss = () => { attentionForward(out, lse, q, k, v, seqs, H, Hkv, hd); return dot(out, R); };
  loss();
  const dq = new Float64Array(q.length), dk = new Float64Array(k.length), dv = new Float64Array(v.length);
  attentionBackward(dq, dk, dv, R, q, k, v, out, lse, seqs, H, Hkv, hd);
  assert.ok(fdCheck(loss, q, dq) < 1e-7);
  assert.ok(fdCheck(loss, k, dk) < 1e-7);
  assert.ok(fdCheck(loss, v, dv) < 1e-7);
  // causality: the first query of sequence 0 ignores every later key
  const before = out.slice(0, hd);
  const late = 2 * Hkv * hd;
  k[late] = k[late]! + 10; v[late] = v[late]! + 10;
  loss();
  assert.deepEqual([...out.slice(0, hd)], [...before]);
});

test("lm head: log-probs equal an explicit log-softmax, survive extreme logits, and gradients match finite differences", () => {
  const rng = Rng.from(15), rows = 3, D = 4, V = 7;
  const h = rand(rng, rows * D), w = rand(rng, V * D), targets = new Int32Array([2, 0, 6]);
  const logp = new Float64Array(rows), lse = new Float64Array(rows);
  lmHeadForward(logp, lse, h, w, targets, rows, D, V, null, "f32");
  const logits = Array.from({ length: V }, (_, j) => dot(h.subarray(0, D), w.subarray(j * D, (j + 1) * D)));
  const z = Math.log(logits.reduce((a, l) => a + Math.exp(l), 0));
  assert.ok(Math.abs(logp[0]! - (logits[2]! - z)) < 1e-12);
  // row 1 restricted to {0, 3}; row 2 to {6}
  const allowed: AllowedSets = { restricted: new Uint8Array([0, 1, 1]), offsets: new Int32Array([0, 0, 2, 3]), ids: new Int32Array([3, 0, 6]) };
  lmHeadForward(logp, lse, h, w, targets, rows, D, V, allowed, "f32");
  assert.ok(Math.abs(logp[2]!) < 1e-12, "a single allowed token has log-prob 0");
  const weights = new Float64Array([0.5, -2, 1]);
  const loss = () => { lmHeadForward(logp, lse, h, w, targets, rows, D, V, allowed, "f32"); return dot(logp, weights); };
  loss();
  const dh = new Float64Array(rows * D), dw = new Float64Array(V * D);
  lmHeadBackward(dh, dw, h, w, targets, weights, lse, rows, D, V, allowed, "f32");
  assert.ok(fdCheck(loss, h, dh) < 1e-7);
  assert.ok(fdCheck(loss, w, dw) < 1e-7);
  // [-1000, 1000]-scale logits: finite, and the winner has log-prob ~0
  const big = new Float64Array([1000, 0]), wb = new Float64Array([1, 0, -1, 0]); // logits [1000, -1000]
  lmHeadForward(logp, lse, big, wb, new Int32Array([0]), 1, 2, 2, null, "f32");
  assert.equal(logp[0], 0);
  lmHeadForward(logp, lse, big, wb, new Int32Array([1]), 1, 2, 2, null, "f32");
  assert.equal(logp[0], -2000);
});

test("adamw: one step equals the hand-computed PyTorch AdamW update", () => {
  // p=1, g=0.5, m=v=0, lr=0.1, b1=0.9, b2=0.999, eps=1e-8, wd=0.01, step 1:
  // p <- 1·(1 − 0.001) = 0.999; m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25; p <- 0.999 − 0.1·0.5/(0.5 + 1e-8)
  const p = new Float64Array([1]), m = new Float64Array(1), v = new Float64Array(1);
  adamw(p, new Float64Array([0.5]), m, v, { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, step: 1, gradScale: 1 });
  assert.ok(Math.abs(p[0]! - (0.999 - (0.1 * 0.5) / (0.5 + 1e-8))) < 1e-12);
  assert.ok(Math.abs(m[0]! - 0.05) < 1e-15 && Math.abs(v[0]! - 0.00025) < 1e-15);
  // second step with g = -0.5 and gradScale 0.5 (clipped): g' = -0.25
  adamw(p, new Float64Array([-0.5]), m, v, { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, step: 2, gradScale: 0.5 });
  const m2 = 0.9 * 0.05 - 0.1 * 0.25, v2 = 0.999 * 0.00025 + 0.001 * 0.0625;
  const p1 = 0.999 - (0.1 * 0.5) / (0.5 + 1e-8);
  const want = p1 * 0.999 - (0.1 / (1 - 0.81)) * m2 / (Math.sqrt(v2) / Math.sqrt(1 - 0.999 ** 2) + 1e-8);
  assert.ok(Math.abs(p[0]! - want) < 1e-12);
});
