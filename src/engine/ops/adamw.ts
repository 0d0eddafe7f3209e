/**
 * One fused AdamW update of one tensor, with PyTorch `torch.optim.AdamW` semantics: decoupled
 * decay p <- p(1 − lr·wd), then p <- p − (lr / (1 − β1ᵗ)) · m / (sqrt(v / (1 − β2ᵗ)) + eps).
 * The gradient is first multiplied by `gradScale` (global-norm clipping without an extra pass).
 */
import type { AdamWHyper, Vec } from "../kernels.ts";

/** AdamW on one tensor in place (see the file header); hyper-parameters as in `Kernels.adamw`. */
export function adamw(p: Vec, g: Vec, m: Vec, v: Vec, hp: AdamWHyper): void {
  const { lr, beta1, beta2, eps, weightDecay, step, gradScale } = hp;
  const bc1 = 1 - Math.pow(beta1, step), bc2 = 1 - Math.pow(beta2, step);
  const stepSize = lr / bc1, sqrtBc2 = Math.sqrt(bc2), decay = 1 - lr * weightDecay;
  for (let i = 0; i < p.length; i++) {
    const gi = g[i]! * gradScale;
    const mi = beta1 * m[i]! + (1 - beta1) * gi;
    const vi = beta2 * v[i]! + (1 - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i]! * decay - (stepSize * mi) / (Math.sqrt(vi) / sqrtBc2 + eps);
  }
}

/** Σ x², accumulated in f64. */
export function sumSquares(x: Vec): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return s;
}
