/**
 * RMSNorm over the last axis (Qwen2: x / sqrt(mean(x²) + eps) * weight), forward next to backward.
 * x, out, dx, dout: [rows, cols]; weight, dweight: [cols]; invRms: [rows] (saved for backward).
 */
import type { Vec } from "../kernels.ts";

/** Forward: out and invRms overwritten. */
export function rmsnormForward(out: Vec, invRms: Vec, x: Vec, weight: Vec, rows: number, cols: number, eps: number): void {
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    let ss = 0;
    for (let c = 0; c < cols; c++) ss += x[o + c]! * x[o + c]!;
    const inv = 1 / Math.sqrt(ss / cols + eps);
    invRms[r] = inv;
    for (let c = 0; c < cols; c++) out[o + c] = x[o + c]! * inv * weight[c]!;
  }
}

/** dx overwritten, dweight accumulated. */
export function rmsnormBackward(dx: Vec, dweight: Vec, dout: Vec, x: Vec, weight: Vec, invRms: Vec, rows: number, cols: number): void {
  for (let r = 0; r < rows; r++) {
    const o = r * cols, inv = invRms[r]!;
    let dot = 0; // Σ_c dout·weight·x, the part of the norm's Jacobian through the mean square
    for (let c = 0; c < cols; c++) dot += dout[o + c]! * weight[c]! * x[o + c]!;
    const k = (inv * inv * inv * dot) / cols;
    for (let c = 0; c < cols; c++) {
      dweight[c] = dweight[c]! + dout[o + c]! * x[o + c]! * inv;
      dx[o + c] = dout[o + c]! * weight[c]! * inv - x[o + c]! * k;
    }
  }
}
