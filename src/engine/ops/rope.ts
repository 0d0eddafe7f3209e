/**
 * Rotary position embedding in the Hugging Face "rotate half" layout: within a head, element i
 * pairs with i + headDim/2 and both rotate by angle pos · theta^(−2i/headDim). The backward is the
 * inverse rotation, so one function serves both. Angles are computed in f64 in both engines.
 * x: [rows, nHeads * headDim] (in place); positions: [rows].
 */
import type { Vec } from "../kernels.ts";

/** inv_freq[i] = theta^(−2i/headDim), i < headDim/2. */
export function ropeInvFreq(headDim: number, theta: number): Float64Array {
  const half = headDim / 2;
  const f = new Float64Array(half);
  for (let i = 0; i < half; i++) f[i] = 1 / Math.pow(theta, (2 * i) / headDim);
  return f;
}

/** Rotate x in place; `inverse` rotates back (the backward). */
export function rope(x: Vec, positions: Int32Array, rows: number, nHeads: number, headDim: number, theta: number, inverse: boolean): void {
  const half = headDim / 2;
  const inv = ropeInvFreq(headDim, theta);
  const sign = inverse ? -1 : 1;
  const cos = new Float64Array(half), sin = new Float64Array(half);
  for (let r = 0; r < rows; r++) {
    const pos = positions[r]!;
    for (let i = 0; i < half; i++) {
      const a = pos * inv[i]!;
      cos[i] = Math.cos(a);
      sin[i] = sign * Math.sin(a);
    }
    for (let h = 0; h < nHeads; h++) {
      const o = (r * nHeads + h) * headDim;
      for (let i = 0; i < half; i++) {
        const x1 = x[o + i]!, x2 = x[o + half + i]!;
        x[o + i] = x1 * cos[i]! - x2 * sin[i]!;
        x[o + half + i] = x2 * cos[i]! + x1 * sin[i]!;
      }
    }
  }
}
