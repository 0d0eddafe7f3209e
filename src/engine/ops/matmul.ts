/**
 * Reference matmul (C = op(A)·op(B), optionally accumulated) and the bf16 rounding it shares with
 * the native engine's bf16 path. Straight loops with f64 accumulation: an oracle, not a fast
 * kernel. Both operands are first copied into "rows of the reduction axis" layout so the inner
 * loop is a contiguous dot product whatever the transposes.
 */
import type { MatmulDtype, Vec } from "../kernels.ts";

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Round an f32 value to the nearest bf16 (ties to even), returned as a number. NaN stays NaN. */
export function roundBf16(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  if ((bits & 0x7f800000) === 0x7f800000) return f32[0]!; // inf / nan unchanged
  u32[0] = ((bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f32[0]!;
}

/** Copy op(X) as rows of length k: X is [rows, k], or [k, rows] when `trans`. */
function asRows(x: Vec, rows: number, k: number, trans: boolean, bf16: boolean): Float64Array {
  const out = new Float64Array(rows * k);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < k; j++) {
      const val = trans ? x[j * rows + r]! : x[r * k + j]!;
      out[r * k + j] = bf16 ? roundBf16(val) : val;
    }
  }
  return out;
}

/**
 * C[m, n] (+)= op(A) · op(B). A: [m, k] or [k, m] (transA); B: [k, n] or [n, k] (transB).
 */
export function matmul(c: Vec, a: Vec, b: Vec, m: number, n: number, k: number,
                       transA: boolean, transB: boolean, accumulate: boolean, dtype: MatmulDtype): void {
  const bf16 = dtype === "bf16";
  const ar = asRows(a, m, k, transA, bf16); // [m, k]
  const br = asRows(b, n, k, !transB, bf16); // [n, k]: B's columns as rows
  for (let i = 0; i < m; i++) {
    const ao = i * k;
    for (let j = 0; j < n; j++) {
      const bo = j * k;
      let s = 0;
      for (let p = 0; p < k; p++) s += ar[ao + p]! * br[bo + p]!;
      c[i * n + j] = accumulate ? c[i * n + j]! + s : s;
    }
  }
}
