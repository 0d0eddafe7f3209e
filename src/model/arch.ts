/**
 * The architecture options that add a step to the shared decoder graph (see `ModelArch` in
 * config.ts). Today that is Qwen3's per-head RMSNorm of q and k, applied after the projections
 * and before RoPE: each head's `headDim` values are one row of an RMSNorm with a learned
 * [headDim] weight shared by all heads (`q_norm` for queries, `k_norm` for keys). It reuses the
 * row-wise RMSNorm kernel over [rows · heads, headDim], so it needs no kernel of its own.
 * The transformer (training and scoring) and the KV cache (decoding) both call these.
 */
import type { Engine } from "../engine/engine.ts";
import { headDim, type ModelConfig } from "./config.ts";

/** The q/k norm weights of one layer (from params, or the matching gradient tensors). */
export type QkNormWeights = { readonly qNorm: Float32Array | null; readonly kNorm: Float32Array | null };

/** What the forward of the q/k norm saves for its backward: inputs and inverse RMS per head row. */
export type QkNormSaved = { qRaw: Float32Array; kRaw: Float32Array; invQ: Float32Array; invK: Float32Array };

/**
 * q = rmsnorm_heads(qRaw) · qNorm, k = rmsnorm_heads(kRaw) · kNorm, for `rows` token rows.
 * q, qRaw: [rows, nHeads·hd]; k, kRaw: [rows, nKvHeads·hd]; invQ: [rows·nHeads]; invK: [rows·nKvHeads].
 */
export function qkNormForward(e: Engine, c: ModelConfig, w: QkNormWeights, q: Float32Array, k: Float32Array, s: QkNormSaved, rows: number): void {
  const hd = headDim(c);
  e.rmsnormForward(q, s.invQ, s.qRaw, w.qNorm!, rows * c.nHeads, hd, c.rmsNormEps);
  e.rmsnormForward(k, s.invK, s.kRaw, w.kNorm!, rows * c.nKvHeads, hd, c.rmsNormEps);
}

/**
 * Backward of `qkNormForward`: dqRaw, dkRaw overwritten from dq, dk (gradients w.r.t. the normed
 * q and k); the norm weights' gradients accumulate into `g`.
 */
export function qkNormBackward(e: Engine, c: ModelConfig, w: QkNormWeights, g: QkNormWeights, dqRaw: Float32Array, dkRaw: Float32Array,
                               dq: Float32Array, dk: Float32Array, s: QkNormSaved, rows: number): void {
  const hd = headDim(c);
  e.rmsnormBackward(dqRaw, g.qNorm!, dq, s.qRaw, w.qNorm!, s.invQ, rows * c.nHeads, hd);
  e.rmsnormBackward(dkRaw, g.kNorm!, dk, s.kRaw, w.kNorm!, s.invK, rows * c.nKvHeads, hd);
}
