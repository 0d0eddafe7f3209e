/**
 * The LM head fused with log-softmax and the gather of target tokens, forward next to backward.
 * Only one row of logits exists at a time here (the native kernel holds a chunk of rows), so the
 * [rows x vocab] matrix is never materialised. A row restricted by `AllowedSets` normalises over
 * its allowed ids only, and its gradient touches only those rows of the head.
 * h, dh: [rows, dModel]; w, dw: [vocab, dModel]; targets, weights, logp, lse: [rows].
 */
import type { AllowedSets, MatmulDtype, Vec } from "../kernels.ts";
import { roundBf16 } from "./matmul.ts";

/** The ids a row normalises over: its allowed set, or null for the whole vocabulary. */
function rowIds(allowed: AllowedSets | null, r: number): Int32Array | null {
  if (allowed === null || allowed.restricted[r] === 0) return null;
  return allowed.ids.subarray(allowed.offsets[r]!, allowed.offsets[r + 1]!);
}

function rowLogits(logits: Float64Array, h: Vec, w: Vec, r: number, dModel: number, vocab: number, ids: Int32Array | null): number {
  const n = ids === null ? vocab : ids.length;
  const ho = r * dModel;
  for (let a = 0; a < n; a++) {
    const j = ids === null ? a : ids[a]!, wo = j * dModel;
    let s = 0;
    for (let c = 0; c < dModel; c++) s += h[ho + c]! * w[wo + c]!;
    logits[a] = s;
  }
  return n;
}

/** bf16-rounded copies of the operands (once per call, not per product). */
function rounded(x: Vec, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = roundBf16(x[i]!);
  return out;
}

/** Forward: logp and lse overwritten, one row of logits at a time. */
export function lmHeadForward(logp: Vec, lse: Vec, h: Vec, w: Vec, targets: Int32Array, rows: number, dModel: number,
                              vocab: number, allowed: AllowedSets | null, dtype: MatmulDtype): void {
  if (dtype === "bf16") {
    h = rounded(h, rows * dModel);
    w = rounded(w, vocab * dModel);
  }
  const logits = new Float64Array(vocab);
  for (let r = 0; r < rows; r++) {
    const ids = rowIds(allowed, r);
    const n = rowLogits(logits, h, w, r, dModel, vocab, ids);
    let mx = -Infinity, target = NaN;
    for (let a = 0; a < n; a++) {
      if (logits[a]! > mx) mx = logits[a]!;
      if ((ids === null ? a : ids[a]) === targets[r]) target = logits[a]!;
    }
    let z = 0;
    for (let a = 0; a < n; a++) z += Math.exp(logits[a]! - mx);
    lse[r] = mx + Math.log(z);
    logp[r] = target - lse[r]!;
  }
}

/** dh overwritten, dw accumulated: gradient of Σ_r weights[r]·logp[r]. */
export function lmHeadBackward(dh: Vec, dw: Vec, h: Vec, w: Vec, targets: Int32Array, weights: Vec, lse: Vec, rows: number,
                               dModel: number, vocab: number, allowed: AllowedSets | null, dtype: MatmulDtype): void {
  const hq = dtype === "bf16" ? rounded(h, rows * dModel) : h, wq = dtype === "bf16" ? rounded(w, vocab * dModel) : w;
  const logits = new Float64Array(vocab);
  dh.fill(0, 0, rows * dModel);
  for (let r = 0; r < rows; r++) {
    const wr = weights[r]!;
    if (wr === 0) continue;
    const ids = rowIds(allowed, r);
    const n = rowLogits(logits, hq, wq, r, dModel, vocab, ids);
    const ho = r * dModel;
    for (let a = 0; a < n; a++) {
      const j = ids === null ? a : ids[a]!, wo = j * dModel;
      // d logp / d logit_j = 1[j = target] − softmax_j
      const g = wr * ((j === targets[r] ? 1 : 0) - Math.exp(logits[a]! - lse[r]!));
      for (let c = 0; c < dModel; c++) {
        dh[ho + c] = dh[ho + c]! + g * wq[wo + c]!;
        dw[wo + c] = dw[wo + c]! + g * hq[ho + c]!;
      }
    }
  }
}

/** Forward then backward (the reference has no logits to share between them). */
export function lmHeadTrain(logp: Vec, lse: Vec, dh: Vec, dw: Vec, h: Vec, w: Vec, targets: Int32Array, weights: Vec, rows: number,
                            dModel: number, vocab: number, allowed: AllowedSets | null, dtype: MatmulDtype): void {
  lmHeadForward(logp, lse, h, w, targets, rows, dModel, vocab, allowed, dtype);
  lmHeadBackward(dh, dw, h, w, targets, weights, lse, rows, dModel, vocab, allowed, dtype);
}
