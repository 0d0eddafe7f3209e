/**
 * The kernel interface every engine implements: the pure-TypeScript reference kernels (the
 * oracle and the fallback) and the native oneDNN addon. Kernels take flat row-major arrays plus
 * their dimensions and write into caller-owned outputs; they never allocate results, never check
 * their inputs (the `Engine` facade in `engine.ts` does, once, for both implementations) and know
 * nothing of models or text.
 *
 * Conventions shared by every kernel:
 * - "overwritten" outputs are fully written; "accumulated" outputs get `+=` (the caller zeroes).
 * - A dimension list in a doc comment, `[rows, cols]`, is the layout of the flat array.
 */

/** Compute dtype of a matmul: "bf16" rounds both inputs to bf16 and accumulates in f32. */
export type MatmulDtype = "f32" | "bf16";

/** A float array a reference kernel accepts; f64 lets gradient checks run at high precision. */
export type Vec = Float32Array | Float64Array;

/**
 * Per-row restriction of a softmax to a set of token ids (action masking; `ScoreRequest.allowed`).
 * Row r is unrestricted when `restricted[r]` is 0; otherwise its ids are
 * `ids[offsets[r] .. offsets[r + 1])`, distinct and in [0, vocab).
 */
export type AllowedSets = {
  readonly restricted: Uint8Array; // [rows]
  readonly offsets: Int32Array; // [rows + 1]
  readonly ids: Int32Array; // [offsets[rows]]
};

/**
 * The sequence table of the attention kernels: 4 ints per sequence,
 * `[qStart, nq, kvStart, past]`. The sequence's queries are rows `qStart .. qStart + nq` of q;
 * its keys and values are rows `kvStart .. kvStart + past + nq` of k and v; query i sits at
 * absolute position `past + i` and attends keys `0 .. past + i` (causal). Training packs
 * sequences with `kvStart = qStart, past = 0`; a KV cache uses `past` = tokens already cached.
 */
export type SeqTable = Int32Array;

/**
 * The sequence table of the decode kernels (a KV cache, `model/kv-cache.ts`): 4 ints per
 * sequence, `[qStart, nq, row, past]`. Its new tokens are rows `qStart .. qStart + nq` of q (and
 * of the new k, v); they go to positions `past .. past + nq` of cache row `row`, and query i
 * attends that row's positions `0 .. past + i`. Sequences use distinct query rows and cache rows.
 */
export type DecodeSeqTable = Int32Array;

/**
 * The weights and caches of a whole-model decode step (`Kernels.decoderForward`). Per layer, 12
 * tensors in this order: inputNorm [D], q [Q, D], qBias [Q] | null, k [KV, D], kBias | null,
 * v [KV, D], vBias | null, o [D, Q], postNorm [D], gate [F, D], up [F, D], down [D, F]; and 2
 * caches, keys then values, each [batch, KV, cap] (channel-major, see `attentionDecode`).
 */
export type DecoderWeights = {
  readonly embed: Float32Array; // [vocab, D]
  readonly finalNorm: Float32Array; // [D]
  readonly head: Float32Array; // [vocab, D]
  readonly layers: readonly (Float32Array | null)[]; // 12 per layer
  readonly caches: readonly Float32Array[]; // 2 per layer
};

/** Shape of a decode step's model (`Kernels.decoderForward`). */
export type DecoderDims = {
  readonly dModel: number; readonly ffnSize: number; readonly nHeads: number; readonly nKvHeads: number;
  readonly headDim: number; readonly vocab: number; readonly cap: number; readonly eps: number; readonly theta: number;
};

/** Hyper-parameters of one fused AdamW update of one tensor (PyTorch `AdamW` semantics). */
export type AdamWHyper = {
  readonly lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  /** Decoupled weight decay: p <- p * (1 - lr * weightDecay) before the Adam update. */
  readonly weightDecay: number;
  /** 1-based step number (for bias correction). */
  readonly step: number;
  /** Multiplies the gradient first (global-norm clipping folded into the update). */
  readonly gradScale: number;
};

/** The kernels of one engine. See the file header for conventions. */
export interface Kernels {
  /**
   * C = op(A) · op(B), or C += op(A) · op(B) when `accumulate`.
   * C: [m, n]; A: [m, k], or [k, m] when `transA`; B: [k, n], or [n, k] when `transB`.
   * A Linear layer y = x Wᵀ is `matmul(y, x, W, rows, out, in, false, true)`.
   */
  matmul(c: Float32Array, a: Float32Array, b: Float32Array, m: number, n: number, k: number,
         transA: boolean, transB: boolean, accumulate: boolean, dtype: MatmulDtype): void;

  /** RMSNorm forward. out, x: [rows, cols] (overwritten); weight: [cols]; invRms: [rows] (overwritten, saved for backward). */
  rmsnormForward(out: Float32Array, invRms: Float32Array, x: Float32Array, weight: Float32Array,
                 rows: number, cols: number, eps: number): void;
  /** RMSNorm backward. dx: [rows, cols] (overwritten); dweight: [cols] (accumulated). */
  rmsnormBackward(dx: Float32Array, dweight: Float32Array, dout: Float32Array, x: Float32Array,
                  weight: Float32Array, invRms: Float32Array, rows: number, cols: number): void;

  /**
   * Rotary embedding in place (Hugging Face "rotate half" layout: pairs (i, i + headDim/2)).
   * x: [rows, nHeads * headDim]; positions: [rows]. `inverse` rotates by the negative angle,
   * which is exactly the backward (the rotation is orthogonal).
   */
  rope(x: Float32Array, positions: Int32Array, rows: number, nHeads: number, headDim: number,
       theta: number, inverse: boolean): void;

  /** SwiGLU: h = silu(gate) * up. All [n] (h overwritten). */
  swigluForward(h: Float32Array, gate: Float32Array, up: Float32Array, n: number): void;
  /** SwiGLU backward. dgate, dup: [n] (overwritten). */
  swigluBackward(dgate: Float32Array, dup: Float32Array, dh: Float32Array, gate: Float32Array,
                 up: Float32Array, n: number): void;

  /**
   * Causal grouped-query attention with softmax scale 1/sqrt(headDim), over the sequences of
   * `seqs` (see `SeqTable`). q, out: [rowsQ, nHeads * headDim]; k, v: [rowsKv, nKvHeads * headDim];
   * lse: [rowsQ, nHeads] log-sum-exp of each softmax row (saved for backward), or null.
   * Query head h reads kv head floor(h / (nHeads / nKvHeads)). Rows of `out` outside every
   * sequence are left untouched.
   */
  attentionForward(out: Float32Array, lse: Float32Array | null, q: Float32Array, k: Float32Array,
                   v: Float32Array, seqs: SeqTable, nHeads: number, nKvHeads: number, headDim: number): void;
  /**
   * Attention backward from `dout`, using the forward's `out` and `lse`. dq, dk, dv (layouts of
   * q, k, v) are overwritten on the rows the sequences cover.
   */
  attentionBackward(dq: Float32Array, dk: Float32Array, dv: Float32Array, dout: Float32Array,
                    q: Float32Array, k: Float32Array, v: Float32Array, out: Float32Array,
                    lse: Float32Array, seqs: SeqTable, nHeads: number, nKvHeads: number, headDim: number): void;

  /**
   * Writes new keys and values into a channel-major cache (see `attentionDecode`):
   * k, v: [rowsQ, kvDim]; token i of a sequence goes to position past + i of its cache row.
   */
  kvWrite(kCache: Float32Array, vCache: Float32Array, k: Float32Array, v: Float32Array, seqs: DecodeSeqTable,
          kvDim: number, cap: number): void;
  /**
   * Causal GQA attention of new tokens against a KV cache (see `DecodeSeqTable`), softmax scale
   * 1/sqrt(headDim), no log-sum-exp (decoding has no backward). q, out: [rowsQ, nHeads * headDim];
   * kCache, vCache: [batch, nKvHeads * headDim, cap]: per cache row and channel, the positions are
   * contiguous, so a query's scores and outputs run along memory. Rows of `out` outside every
   * sequence are left untouched.
   */
  attentionDecode(out: Float32Array, q: Float32Array, kCache: Float32Array, vCache: Float32Array, seqs: DecodeSeqTable,
                  nHeads: number, nKvHeads: number, headDim: number, cap: number): void;
  /**
   * The whole forward of a KV-cache append in one call (native only; absent in the reference):
   * embedding of `ids`, every layer in f32 (RMSNorm, q/k/v + biases, RoPE at `positions`,
   * `kvWrite`, `attentionDecode`, o, RMSNorm, SwiGLU, residuals) and the final norm and LM head
   * on each sequence's last new token: logits [nseq, vocab] overwritten. Models with q/k norms
   * take the per-kernel path instead.
   */
  decoderForward?(logits: Float32Array, ids: Int32Array, positions: Int32Array, seqs: DecodeSeqTable,
                  weights: DecoderWeights, dims: DecoderDims): void;

  /**
   * LM head fused with log-softmax and the gather of target tokens: for each row r,
   * logp[r] = (h_r · w_t) − logsumexp_j (h_r · w_j), t = targets[r], j over the vocabulary or
   * the row's allowed set. Never holds more than a chunk of rows × vocab logits.
   * h: [rows, dModel]; w: [vocab, dModel]; targets, logp, lse: [rows] (logp and lse overwritten).
   */
  lmHeadForward(logp: Float32Array, lse: Float32Array, h: Float32Array, w: Float32Array,
                targets: Int32Array, rows: number, dModel: number, vocab: number,
                allowed: AllowedSets | null, dtype: MatmulDtype): void;
  /**
   * Backward of Σ_r weights[r] · logp[r]: dh [rows, dModel] overwritten, dw [vocab, dModel]
   * accumulated. Needs the forward's `lse`; the logits are recomputed chunk by chunk.
   */
  lmHeadBackward(dh: Float32Array, dw: Float32Array, h: Float32Array, w: Float32Array,
                 targets: Int32Array, weights: Float32Array, lse: Float32Array, rows: number,
                 dModel: number, vocab: number, allowed: AllowedSets | null, dtype: MatmulDtype): void;

  /**
   * `lmHeadForward` and `lmHeadBackward` in one pass, for training, where the weights are known
   * before the forward: each chunk's logits are computed once. logp, lse, dh overwritten; dw accumulated.
   */
  lmHeadTrain(logp: Float32Array, lse: Float32Array, dh: Float32Array, dw: Float32Array, h: Float32Array,
              w: Float32Array, targets: Int32Array, weights: Float32Array, rows: number, dModel: number,
              vocab: number, allowed: AllowedSets | null, dtype: MatmulDtype): void;

  /** One fused AdamW update of a tensor in place. p, g, m, v: [n] (g read only). */
  adamw(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, hp: AdamWHyper): void;

  /** Σ x², accumulated in f64. */
  sumSquares(x: Float32Array): number;
}
