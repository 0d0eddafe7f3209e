/**
 * The decoder of the Qwen2 family and its relatives (Qwen3, Llama; see `ModelArch`): forward to per-token log-probs of given targets, and a hand-written
 * backward of Σ_t w_t · logprob_t into a gradient store (no autograd: one graph, as in llm.c).
 * A batch of rows of different lengths is packed back to back (no padding). Only the hidden
 * states that predict a scored token go through the final norm and the LM head.
 *
 * Per layer, with x: [N, D] the residual stream (N packed tokens), Q = nHeads·headDim (= D
 * unless the config sets headDim), KV = nKvHeads·headDim:
 *   xn1 = rmsnorm(x)                 q = xn1 Wqᵀ + bq [N, Q], k, v = xn1 Wkᵀ + bk, ... [N, KV]
 *   (Qwen3: q, k = per-head rmsnorm(q, k), arch.ts)
 *   q, k = rope(q, k)                a = attention(q, k, v) [N, Q]
 *   x2 = x + a Woᵀ                   xn2 = rmsnorm(x2)
 *   h = silu(xn2 Wgᵀ) ⊙ (xn2 Wuᵀ)    [N, F]          x' = x2 + h Wdᵀ
 * Matmuls run in the compute dtype (bf16 when the config asks for it and the CPU has fast bf16
 * kernels); attention, norms and the softmax always run in f32. KV-cache decoding lives in
 * kv-cache.ts and shares `layerWeights` and the linear helper with this file.
 */
import { ShapeError } from "../core/errors.ts";
import { getEngine, type Engine } from "../engine/engine.ts";
import type { MatmulDtype } from "../engine/kernels.ts";
import { hasQkNorm, headDim, qDim, type ModelConfig } from "./config.ts";
import { qkNormBackward, qkNormForward, type QkNormSaved } from "./arch.ts";
import { GLOBAL_NAMES, layerNames, ParamStore } from "./params.ts";
import { packBatch, type PackedBatch, type ScoreRow } from "./batch.ts";

/** The tensors of one layer, resolved from a store (params or grads). */
export type LayerTensors = {
  inputNorm: Float32Array; q: Float32Array; k: Float32Array; v: Float32Array;
  qBias: Float32Array | null; kBias: Float32Array | null; vBias: Float32Array | null;
  qNorm: Float32Array | null; kNorm: Float32Array | null;
  o: Float32Array; postNorm: Float32Array; gate: Float32Array; up: Float32Array; down: Float32Array;
};

/** The tensors of layer `i` of a store. */
export function layerWeights(store: ParamStore, i: number): LayerTensors {
  const n = layerNames(i), bias = store.config.qkvBias, qk = hasQkNorm(store.config);
  return {
    inputNorm: store.get(n.inputNorm), q: store.get(n.q), k: store.get(n.k), v: store.get(n.v),
    qBias: bias ? store.get(n.qBias) : null, kBias: bias ? store.get(n.kBias) : null, vBias: bias ? store.get(n.vBias) : null,
    qNorm: qk ? store.get(n.qNorm) : null, kNorm: qk ? store.get(n.kNorm) : null,
    o: store.get(n.o), postNorm: store.get(n.postNorm), gate: store.get(n.gate), up: store.get(n.up), down: store.get(n.down),
  };
}

/** The LM head matrix [vocab, D] of a store (the embedding when tied). */
export function headWeight(store: ParamStore): Float32Array {
  return store.get(store.config.tiedEmbeddings ? GLOBAL_NAMES.embed : GLOBAL_NAMES.lmHead);
}

/** y[rows, out] = x[rows, in] Wᵀ (+ bias). */
export function linear(e: Engine, y: Float32Array, x: Float32Array, w: Float32Array, bias: Float32Array | null,
                       rows: number, out: number, inp: number, dtype: MatmulDtype): void {
  if (bias !== null) for (let r = 0; r < rows; r++) y.set(bias, r * out);
  e.matmul(y, x, w, rows, out, inp, false, true, bias !== null, dtype);
}

/** Copy the embedding rows of `ids` into x [ids.length, D]. */
export function embed(x: Float32Array, table: Float32Array, ids: Int32Array, d: number): void {
  for (let r = 0; r < ids.length; r++) x.set(table.subarray(ids[r]! * d, (ids[r]! + 1) * d), r * d);
}

/** Activations of one layer saved for backward. */
type LayerActs = {
  x: Float32Array; inv1: Float32Array; xn1: Float32Array; q: Float32Array; k: Float32Array; v: Float32Array;
  a: Float32Array; lse: Float32Array; x2: Float32Array; inv2: Float32Array; xn2: Float32Array;
  gate: Float32Array; up: Float32Array; h: Float32Array;
  /** Inputs of the q/k norm (Qwen3 only). */
  qkn: QkNormSaved | null;
};

type ForwardState = {
  p: PackedBatch;
  layers: LayerActs[];
  hs: Float32Array; // [M, D] scored rows of the last residual stream
  invF: Float32Array;
  hn: Float32Array; // [M, D] after the final norm
  dhn: Float32Array | null; // [M, D] gradient w.r.t. hn (training only)
  logp: Float32Array; // [M]
  lse: Float32Array; // [M]
};

/** Config fields that decide the parameter shapes (dtype, context and norm eps do not). */
const SHAPE_FIELDS = ["arch", "vocabSize", "dModel", "nLayers", "nHeads", "nKvHeads", "headDim", "ffnSize", "qkvBias", "tiedEmbeddings"] as const;

/** Options of a `Transformer`. */
export type TransformerOptions = {
  /** @default the process-wide engine (`getEngine()`) */
  readonly engine?: Engine;
  /**
   * Run bf16 matmuls even where the CPU has no fast bf16 kernel (the inputs are rounded to bf16
   * and multiplied in f32: same numbers, slower). For tests of bf16 numerics. @default false
   */
  readonly emulateBf16?: boolean;
};

/**
 * A Qwen2-family decoder over a parameter store.
 * @example
 * const model = new Transformer(cfg, ParamStore.init(cfg, Rng.from(1)));
 * const [lp] = model.logprobs([{ tokens: [1, 5, 9, 2], start: 1 }]);   // 3 log-probs
 * model.backward([{ tokens: [1, 5, 9, 2], start: 1 }], [new Float32Array([-1, -1, -1])]);
 */
export class Transformer {
  readonly config: ModelConfig;
  readonly params: ParamStore;
  readonly engine: Engine;
  /** Dtype the matmuls of scoring and training run in (decoding always uses f32). */
  readonly computeDtype: MatmulDtype;
  private gradStore: ParamStore | null = null;
  /**
   * Activation buffers kept between calls (grown, never shrunk): a training step reuses them
   * instead of allocating and zero-filling a few hundred MB. `releaseWorkspace` frees them.
   */
  private readonly ws = new Map<string, Float32Array>();

  constructor(config: ModelConfig, params: ParamStore, options: TransformerOptions = {}) {
    for (const f of SHAPE_FIELDS) {
      if (params.config[f] !== config[f]) throw new ShapeError(`the parameter store was built for a different config (${f}: ${params.config[f]} vs ${config[f]})`);
    }
    this.config = config;
    this.params = params;
    this.engine = options.engine ?? getEngine();
    const bf16 = config.dtype === "bf16" && (this.engine.info.bf16Fast || options.emulateBf16 === true);
    this.computeDtype = bf16 ? "bf16" : "f32";
  }

  /** Accumulated gradients (allocated on first backward; same layout as `params`). */
  get grads(): ParamStore {
    if (this.gradStore === null) this.gradStore = ParamStore.zeros(this.config);
    return this.gradStore;
  }

  /** Drop the cached activation buffers (they are rebuilt on the next call). */
  releaseWorkspace(): void {
    this.ws.clear();
  }

  /** A workspace buffer of `n` floats with unspecified contents, valid until the next call. */
  private buf(key: string, n: number): Float32Array {
    let b = this.ws.get(key);
    if (b === undefined || b.length < n) {
      b = new Float32Array(n);
      this.ws.set(key, b);
    }
    return b.subarray(0, n);
  }

  /** Zero the accumulated gradients. */
  zeroGrad(): void {
    this.gradStore?.zero();
  }

  /** Global L2 norm of the accumulated gradients (0 before any backward). */
  gradNorm(): number {
    if (this.gradStore === null) return 0;
    let s = 0;
    for (const [, g] of this.gradStore.entries()) s += this.engine.sumSquares(g);
    return Math.sqrt(s);
  }

  /**
   * Log-prob of every token from `start` on, per row: arrays of length `tokens.length - start`.
   * Rows may have different lengths. Throws `ShapeError` / `ContextLimitError` on bad rows.
   */
  logprobs(batch: readonly ScoreRow[]): Float32Array[] {
    const st = this.forward(packBatch(batch, this.config.vocabSize, this.config.maxContext), null);
    return split(st.logp, st.p.scoreOffsets);
  }

  /**
   * `logprobs` of each row, plus the raw logits of the token after each row's last one
   * ([rows, vocab], row after row): a prompt's log-probs and its next-token distribution from
   * one forward pass (a score pass gives only the first, a sampling prefill only the second).
   * Rows must leave room for one more token within maxContext.
   */
  logprobsAndNext(batch: readonly ScoreRow[]): { logprobs: Float32Array[]; next: Float32Array } {
    const c = this.config, D = c.dModel, V = c.vocabSize;
    // A placeholder target (id 0) after each row makes the pass compute the hidden state after
    // its last real token; its own log-prob is dropped.
    const rows: ScoreRow[] = batch.map((r) => ({ tokens: [...Array.from(r.tokens), 0], start: r.start, ...(r.allowed !== undefined ? { allowed: [...r.allowed, null] } : {}) }));
    const st = this.forward(packBatch(rows, V, c.maxContext), null);
    const off = st.p.scoreOffsets, last = new Float32Array(batch.length * D);
    for (let b = 0; b < batch.length; b++) last.set(st.hn.subarray((off[b + 1]! - 1) * D, off[b + 1]! * D), b * D);
    const next = new Float32Array(batch.length * V);
    this.engine.matmul(next, last, headWeight(this.params), batch.length, V, D, false, true, false, "f32");
    const logprobs: Float32Array[] = [];
    for (let b = 0; b < batch.length; b++) logprobs.push(st.logp.slice(off[b]!, off[b + 1]! - 1));
    return { logprobs, next };
  }

  /**
   * Accumulate into `grads` the gradient of Σ_rows Σ_t weights[row][t] · logprob[row][t]
   * (weights laid out like `logprobs`' output). Returns the log-probs of the forward it ran.
   * Gradients are of the objective as given: pass loss weights (e.g. −1/n for NLL) to descend.
   */
  backward(batch: readonly ScoreRow[], weights: readonly Float32Array[]): Float32Array[] {
    if (weights.length !== batch.length) throw new ShapeError(`backward: ${weights.length} weight arrays for ${batch.length} rows`);
    const p = packBatch(batch, this.config.vocabSize, this.config.maxContext);
    const w = new Float32Array(p.m);
    weights.forEach((wb, b) => {
      const n = p.scoreOffsets[b + 1]! - p.scoreOffsets[b]!;
      if (!(wb instanceof Float32Array) || wb.length !== n) throw new ShapeError(`backward: row ${b} needs ${n} weights (one per scored token), got ${wb?.length}`);
      for (let i = 0; i < n; i++) if (!Number.isFinite(wb[i]!)) throw new ShapeError(`backward: row ${b} weight ${i} is ${wb[i]}`);
      w.set(wb, p.scoreOffsets[b]!);
    });
    const st = this.forward(p, w);
    this.backwardFrom(st);
    return split(st.logp, p.scoreOffsets);
  }

  /**
   * The forward pass. With `weights` (training) it saves every layer's activations and runs the
   * LM head's backward in the same pass, leaving d(objective)/d(final-norm output) in `dhn`.
   */
  private forward(p: PackedBatch, weights: Float32Array | null): ForwardState {
    const c = this.config, e = this.engine, dt = this.computeDtype, save = weights !== null;
    const N = p.n, D = c.dModel, F = c.ffnSize, hd = headDim(c), Q = qDim(c), KV = c.nKvHeads * hd, qk = hasQkNorm(c);
    let x = this.buf(save ? "x0" : "x", N * D);
    embed(x, this.params.get(GLOBAL_NAMES.embed), p.ids, D);
    const layers: LayerActs[] = [];
    for (let l = 0; l < c.nLayers; l++) {
      const w = layerWeights(this.params, l);
      // Training keeps every layer's activations; scoring reuses one set.
      const k = (name: string) => (save ? `L${l}.${name}` : name);
      const acts: LayerActs = {
        x, inv1: this.buf(k("inv1"), N), xn1: this.buf(k("xn1"), N * D), q: this.buf(k("q"), N * Q),
        k: this.buf(k("k"), N * KV), v: this.buf(k("v"), N * KV), a: this.buf(k("a"), N * Q),
        lse: this.buf(k("lse"), N * c.nHeads), x2: this.buf(k("x2"), N * D), inv2: this.buf(k("inv2"), N),
        xn2: this.buf(k("xn2"), N * D), gate: this.buf(k("gate"), N * F), up: this.buf(k("up"), N * F), h: this.buf(k("h"), N * F),
        qkn: qk ? { qRaw: this.buf(k("qRaw"), N * Q), kRaw: this.buf(k("kRaw"), N * KV), invQ: this.buf(k("invQ"), N * c.nHeads), invK: this.buf(k("invK"), N * c.nKvHeads) } : null,
      };
      e.rmsnormForward(acts.xn1, acts.inv1, x, w.inputNorm, N, D, c.rmsNormEps);
      linear(e, acts.qkn?.qRaw ?? acts.q, acts.xn1, w.q, w.qBias, N, Q, D, dt);
      linear(e, acts.qkn?.kRaw ?? acts.k, acts.xn1, w.k, w.kBias, N, KV, D, dt);
      linear(e, acts.v, acts.xn1, w.v, w.vBias, N, KV, D, dt);
      if (acts.qkn !== null) qkNormForward(e, c, w, acts.q, acts.k, acts.qkn, N);
      e.rope(acts.q, p.positions, N, c.nHeads, hd, c.ropeTheta);
      e.rope(acts.k, p.positions, N, c.nKvHeads, hd, c.ropeTheta);
      e.attentionForward(acts.a, acts.lse, acts.q, acts.k, acts.v, p.seqs, c.nHeads, c.nKvHeads, hd);
      acts.x2.set(x);
      e.matmul(acts.x2, acts.a, w.o, N, D, Q, false, true, true, dt);
      e.rmsnormForward(acts.xn2, acts.inv2, acts.x2, w.postNorm, N, D, c.rmsNormEps);
      e.matmul(acts.gate, acts.xn2, w.gate, N, F, D, false, true, false, dt);
      e.matmul(acts.up, acts.xn2, w.up, N, F, D, false, true, false, dt);
      e.swigluForward(acts.h, acts.gate, acts.up, N * F);
      // The next layer's input; without saving, the old input buffer is free to reuse.
      const next = save ? this.buf(`x${l + 1}`, N * D) : x;
      next.set(acts.x2);
      e.matmul(next, acts.h, w.down, N, D, F, false, true, true, dt);
      if (save) layers.push(acts);
      x = next;
    }
    const M = p.m;
    const hs = this.buf("hs", M * D), invF = this.buf("invF", M), hn = this.buf("hn", M * D);
    for (let s = 0; s < M; s++) hs.set(x.subarray(p.scoredRows[s]! * D, (p.scoredRows[s]! + 1) * D), s * D);
    e.rmsnormForward(hn, invF, hs, this.params.get(GLOBAL_NAMES.finalNorm), M, D, c.rmsNormEps);
    const logp = new Float32Array(M), lse = new Float32Array(M);
    let dhn: Float32Array | null = null;
    if (weights === null) {
      e.lmHeadForward(logp, lse, hn, headWeight(this.params), p.targets, M, D, c.vocabSize, p.allowed, dt);
    } else {
      dhn = this.buf("dhn", M * D);
      e.lmHeadTrain(logp, lse, dhn, headWeight(this.grads), hn, headWeight(this.params), p.targets, weights, M, D, c.vocabSize, p.allowed, dt);
    }
    return { p, layers, hs, invF, hn, dhn, logp, lse };
  }

  private backwardFrom(st: ForwardState): void {
    const c = this.config, e = this.engine, dt = this.computeDtype, g = this.grads;
    const { p } = st;
    const N = p.n, M = p.m, D = c.dModel, F = c.ffnSize, hd = headDim(c), Q = qDim(c), KV = c.nKvHeads * hd;
    const dhs = this.buf("dhs", M * D);
    e.rmsnormBackward(dhs, g.get(GLOBAL_NAMES.finalNorm), st.dhn!, st.hs, this.params.get(GLOBAL_NAMES.finalNorm), st.invF, M, D);
    let dx = this.buf("dx", N * D).fill(0);
    for (let s = 0; s < M; s++) {
      const o = p.scoredRows[s]! * D;
      for (let j = 0; j < D; j++) dx[o + j] = dx[o + j]! + dhs[s * D + j]!;
    }
    // The forward's scoring-set buffers ("gate", "up", ...) are free during backward; the
    // per-layer ones ("L3.gate") are not.
    const bufF1 = this.buf("gate", N * F), bufF2 = this.buf("up", N * F), bufF3 = this.buf("h", N * F);
    const dxn = this.buf("xn1", N * D), dx2 = this.buf("x2", N * D), da = this.buf("a", N * Q), dqn = this.buf("q", N * Q);
    const dkn = this.buf("k", N * KV), dv = this.buf("v", N * KV), ones = this.buf("ones", N).fill(1);
    // Gradients w.r.t. the projections' outputs: those of the normed q, k unless Qwen3 norms them.
    const dq = hasQkNorm(c) ? this.buf("dqRaw", N * Q) : dqn, dk = hasQkNorm(c) ? this.buf("dkRaw", N * KV) : dkn;
    let dxIn = this.buf("dxIn", N * D);
    for (let l = c.nLayers - 1; l >= 0; l--) {
      const a = st.layers[l]!, w = layerWeights(this.params, l), gw = layerWeights(g, l);
      // x' = x2 + h Wdᵀ
      e.matmul(bufF1, dx, w.down, N, F, D, false, false, false, dt); // dh
      e.matmul(gw.down, dx, a.h, D, F, N, true, false, true, dt);
      e.swigluBackward(bufF2, bufF3, bufF1, a.gate, a.up, N * F); // dgate, dup
      e.matmul(dxn, bufF2, w.gate, N, D, F, false, false, false, dt);
      e.matmul(dxn, bufF3, w.up, N, D, F, false, false, true, dt);
      e.matmul(gw.gate, bufF2, a.xn2, F, D, N, true, false, true, dt);
      e.matmul(gw.up, bufF3, a.xn2, F, D, N, true, false, true, dt);
      e.rmsnormBackward(dx2, gw.postNorm, dxn, a.x2, w.postNorm, a.inv2, N, D);
      for (let i = 0; i < N * D; i++) dx2[i] = dx2[i]! + dx[i]!;
      // x2 = x + a Woᵀ
      e.matmul(da, dx2, w.o, N, Q, D, false, false, false, dt);
      e.matmul(gw.o, dx2, a.a, D, Q, N, true, false, true, dt);
      e.attentionBackward(dqn, dkn, dv, da, a.q, a.k, a.v, a.a, a.lse, p.seqs, c.nHeads, c.nKvHeads, hd);
      e.rope(dqn, p.positions, N, c.nHeads, hd, c.ropeTheta, true);
      e.rope(dkn, p.positions, N, c.nKvHeads, hd, c.ropeTheta, true);
      if (a.qkn !== null) qkNormBackward(e, c, w, gw, dq, dk, dqn, dkn, a.qkn, N);
      if (gw.qBias !== null) {
        e.matmul(gw.qBias, ones, dq, 1, Q, N, false, false, true, "f32");
        e.matmul(gw.kBias!, ones, dk, 1, KV, N, false, false, true, "f32");
        e.matmul(gw.vBias!, ones, dv, 1, KV, N, false, false, true, "f32");
      }
      e.matmul(dxn, dq, w.q, N, D, Q, false, false, false, dt);
      e.matmul(dxn, dk, w.k, N, D, KV, false, false, true, dt);
      e.matmul(dxn, dv, w.v, N, D, KV, false, false, true, dt);
      e.matmul(gw.q, dq, a.xn1, Q, D, N, true, false, true, dt);
      e.matmul(gw.k, dk, a.xn1, KV, D, N, true, false, true, dt);
      e.matmul(gw.v, dv, a.xn1, KV, D, N, true, false, true, dt);
      e.rmsnormBackward(dxIn, gw.inputNorm, dxn, a.x, w.inputNorm, a.inv1, N, D);
      for (let i = 0; i < N * D; i++) dxIn[i] = dxIn[i]! + dx2[i]!;
      [dx, dxIn] = [dxIn, dx];
    }
    const gEmbed = g.get(GLOBAL_NAMES.embed);
    for (let r = 0; r < N; r++) {
      const o = p.ids[r]! * D;
      for (let j = 0; j < D; j++) gEmbed[o + j] = gEmbed[o + j]! + dx[r * D + j]!;
    }
  }
}

function split(v: Float32Array, offsets: Int32Array): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b + 1 < offsets.length; b++) out.push(v.slice(offsets[b]!, offsets[b + 1]!));
  return out;
}
