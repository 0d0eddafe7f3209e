/**
 * The error measure the engine tests compare kernels with: the largest absolute difference,
 * scaled by the reference's magnitude when it exceeds 1 (so large activations are compared
 * relatively and small ones absolutely).
 */

/**
 * max |a − b| / max(1, max |b|), with `b` the reference.
 * @example relErr(Float32Array.of(1, 2.001), Float32Array.of(1, 2)) // ≈ 0.0005
 */
export function relErr(a: Float32Array, b: Float32Array): number {
  let d = 0, s = 1;
  for (let i = 0; i < b.length; i++) {
    d = Math.max(d, Math.abs(a[i]! - b[i]!));
    s = Math.max(s, Math.abs(b[i]!));
  }
  return d / s;
}
