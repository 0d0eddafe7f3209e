/**
 * SwiGLU gate of the Qwen2 MLP: h = silu(gate) * up, silu(x) = x·sigmoid(x). Forward next to
 * backward. All arrays [n].
 */
import type { Vec } from "../kernels.ts";

/** Forward: h overwritten. */
export function swigluForward(h: Vec, gate: Vec, up: Vec, n: number): void {
  for (let i = 0; i < n; i++) {
    const g = gate[i]!;
    h[i] = (g / (1 + Math.exp(-g))) * up[i]!;
  }
}

/** dgate, dup overwritten. d silu/dg = s·(1 + g·(1 − s)), s = sigmoid(g). */
export function swigluBackward(dgate: Vec, dup: Vec, dh: Vec, gate: Vec, up: Vec, n: number): void {
  for (let i = 0; i < n; i++) {
    const g = gate[i]!, s = 1 / (1 + Math.exp(-g));
    dup[i] = dh[i]! * g * s;
    dgate[i] = dh[i]! * up[i]! * s * (1 + g * (1 - s));
  }
}
