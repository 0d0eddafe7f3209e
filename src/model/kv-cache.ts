/**
 * Batched KV-cache decoding for rows of different lengths: `append` feeds each listed row any
 * number of new tokens (a whole prompt, one sampled token, or the next observation of a growing
 * episode) and returns the logits after each row's last new token. Rows finish whenever the
 * caller stops listing them. The cache of each row holds at most `maxContext` positions; it
 * starts small and doubles as rows grow; it is stored channel-major ([row, channel, position]),
 * the layout of the engine's decode attention. With the native engine a whole append is one
 * `decoderForward` call. Matmuls here always run in f32: a decode step is a
 * handful of rows, where bf16 conversion of the weights would cost more than it saves.
 * This is the `DecodeSession` that model/sample.ts drives.
 */
import { ContextLimitError, ShapeError } from "../core/errors.ts";
import { hasQkNorm, headDim, qDim } from "./config.ts";
import { qkNormForward } from "./arch.ts";
import { GLOBAL_NAMES } from "./params.ts";
import { embed, headWeight, layerWeights, linear, type Transformer } from "./transformer.ts";
import type { DecoderWeights } from "../engine/kernels.ts";

/** A batch of per-row KV caches over one model. */
export class KvCache {
  readonly model: Transformer;
  /** Number of rows. */
  readonly batch: number;
  private readonly lengths: Int32Array;
  private capacity: number;
  // Per layer [batch, KV, capacity]: channel-major, so decode attention reads positions contiguously.
  private keys: Float32Array[];
  private values: Float32Array[];
  private weightList: (Float32Array | null)[] | null = null;

  /**
   * @param batch rows in the batch
   * @param initialCapacity positions reserved per row up front (grows by doubling up to maxContext)
   */
  constructor(model: Transformer, batch: number, initialCapacity = 64) {
    if (!Number.isInteger(batch) || batch < 1) throw new ShapeError(`KvCache: batch must be a positive integer, got ${batch}`);
    this.model = model;
    this.batch = batch;
    this.lengths = new Int32Array(batch);
    this.capacity = Math.max(1, Math.min(initialCapacity, model.config.maxContext));
    this.keys = [];
    this.values = [];
    this.allocate(this.capacity);
  }

  /** Tokens cached for a row. */
  length(row: number): number {
    this.checkRow(row);
    return this.lengths[row]!;
  }

  /** Forget the last tokens of a row, keeping the first `length` (a shared prefix). */
  truncate(row: number, length: number): void {
    this.checkRow(row);
    if (!Number.isInteger(length) || length < 0 || length > this.lengths[row]!) {
      throw new ShapeError(`KvCache.truncate: row ${row} has ${this.lengths[row]} tokens, cannot keep ${length}`);
    }
    this.lengths[row] = length;
  }

  /** Empty a row (a new sequence). */
  reset(row: number): void {
    this.truncate(row, 0);
  }

  /**
   * Feed `tokens[i]` (non-empty) to row `rows[i]`; rows are distinct. Returns the logits after
   * each listed row's last new token: [rows.length, vocab], row after row.
   * @throws ContextLimitError when a row would exceed maxContext (nothing is changed then)
   */
  append(rows: readonly number[], tokens: readonly (readonly number[])[]): Float32Array {
    const m = this.model, c = m.config, e = m.engine;
    if (rows.length !== tokens.length) throw new ShapeError(`KvCache.append: ${rows.length} rows but ${tokens.length} token lists`);
    if (rows.length === 0) return new Float32Array(0);
    const seen = new Set<number>();
    let n = 0, need = 0;
    rows.forEach((r, i) => {
      this.checkRow(r);
      if (seen.has(r)) throw new ShapeError(`KvCache.append: row ${r} listed twice`);
      seen.add(r);
      const t = tokens[i]!;
      if (t.length === 0) throw new ShapeError(`KvCache.append: no tokens for row ${r}`);
      for (const id of t) if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new ShapeError(`KvCache.append: token ${id} of row ${r} is outside [0, ${c.vocabSize})`);
      const len = this.lengths[r]! + t.length;
      if (len > c.maxContext) throw new ContextLimitError(c.maxContext, len);
      need = Math.max(need, len);
      n += t.length;
    });
    if (need > this.capacity) this.grow(need);

    const D = c.dModel, F = c.ffnSize, hd = headDim(c), Q = qDim(c), KV = c.nKvHeads * hd, cap = this.capacity;
    const ids = new Int32Array(n), positions = new Int32Array(n), seqs = new Int32Array(4 * rows.length);
    let base = 0;
    rows.forEach((r, i) => {
      const t = tokens[i]!, past = this.lengths[r]!;
      for (let j = 0; j < t.length; j++) {
        ids[base + j] = t[j]!;
        positions[base + j] = past + j;
      }
      seqs[4 * i] = base;
      seqs[4 * i + 1] = t.length;
      seqs[4 * i + 2] = r;
      seqs[4 * i + 3] = past;
      base += t.length;
    });
    const B = rows.length, logits = new Float32Array(B * c.vocabSize);
    if (e.hasDecoder && !hasQkNorm(c)) {
      // One native call for the whole step: no per-layer crossings or activation arrays.
      e.decoderForward(logits, ids, positions, seqs, this.decoderWeights(), {
        dModel: D, ffnSize: F, nHeads: c.nHeads, nKvHeads: c.nKvHeads, headDim: hd, vocab: c.vocabSize, cap, eps: c.rmsNormEps, theta: c.ropeTheta,
      });
      rows.forEach((r, i) => { this.lengths[r] = this.lengths[r]! + tokens[i]!.length; });
      return logits;
    }

    const x = new Float32Array(n * D), xn = new Float32Array(n * D), q = new Float32Array(n * Q), a = new Float32Array(n * Q);
    const k = new Float32Array(n * KV), v = new Float32Array(n * KV), inv = new Float32Array(n);
    const qkn = hasQkNorm(c) ? { qRaw: new Float32Array(n * Q), kRaw: new Float32Array(n * KV), invQ: new Float32Array(n * c.nHeads), invK: new Float32Array(n * c.nKvHeads) } : null;
    const gate = new Float32Array(n * F), up = new Float32Array(n * F), h = new Float32Array(n * F);
    embed(x, m.params.get(GLOBAL_NAMES.embed), ids, D);
    for (let l = 0; l < c.nLayers; l++) {
      const w = layerWeights(m.params, l), kc = this.keys[l]!, vc = this.values[l]!;
      e.rmsnormForward(xn, inv, x, w.inputNorm, n, D, c.rmsNormEps);
      linear(e, qkn?.qRaw ?? q, xn, w.q, w.qBias, n, Q, D, "f32");
      linear(e, qkn?.kRaw ?? k, xn, w.k, w.kBias, n, KV, D, "f32");
      linear(e, v, xn, w.v, w.vBias, n, KV, D, "f32");
      if (qkn !== null) qkNormForward(e, c, w, q, k, qkn, n);
      e.rope(q, positions, n, c.nHeads, hd, c.ropeTheta);
      e.rope(k, positions, n, c.nKvHeads, hd, c.ropeTheta);
      e.kvWrite(kc, vc, k, v, seqs, KV, cap);
      e.attentionDecode(a, q, kc, vc, seqs, c.nHeads, c.nKvHeads, hd, cap);
      e.matmul(x, a, w.o, n, D, Q, false, true, true, "f32");
      e.rmsnormForward(xn, inv, x, w.postNorm, n, D, c.rmsNormEps);
      e.matmul(gate, xn, w.gate, n, F, D, false, true, false, "f32");
      e.matmul(up, xn, w.up, n, F, D, false, true, false, "f32");
      e.swigluForward(h, gate, up, n * F);
      e.matmul(x, h, w.down, n, D, F, false, true, true, "f32");
    }
    rows.forEach((r, i) => { this.lengths[r] = this.lengths[r]! + tokens[i]!.length; });

    // Final norm and head on each row's last new token only.
    const last = new Float32Array(B * D), lastN = new Float32Array(B * D), invF = new Float32Array(B);
    for (let i = 0; i < B; i++) {
      const rowEnd = seqs[4 * i]! + seqs[4 * i + 1]! - 1;
      last.set(x.subarray(rowEnd * D, (rowEnd + 1) * D), i * D);
    }
    e.rmsnormForward(lastN, invF, last, m.params.get(GLOBAL_NAMES.finalNorm), B, D, c.rmsNormEps);
    e.matmul(logits, lastN, headWeight(m.params), B, c.vocabSize, D, false, true, false, "f32");
    return logits;
  }

  /** The tensors `decoderForward` reads, in its order (the store's arrays: updated in place, never replaced). */
  private decoderWeights(): DecoderWeights {
    const p = this.model.params;
    if (this.weightList === null) {
      const layers: (Float32Array | null)[] = [];
      for (let l = 0; l < this.model.config.nLayers; l++) {
        const w = layerWeights(p, l);
        layers.push(w.inputNorm, w.q, w.qBias, w.k, w.kBias, w.v, w.vBias, w.o, w.postNorm, w.gate, w.up, w.down);
      }
      this.weightList = layers;
    }
    const caches: Float32Array[] = [];
    for (let l = 0; l < this.keys.length; l++) caches.push(this.keys[l]!, this.values[l]!);
    return { embed: p.get(GLOBAL_NAMES.embed), finalNorm: p.get(GLOBAL_NAMES.finalNorm), head: headWeight(p), layers: this.weightList, caches };
  }

  private checkRow(row: number): void {
    if (!Number.isInteger(row) || row < 0 || row >= this.batch) throw new ShapeError(`KvCache: row ${row} is outside [0, ${this.batch})`);
  }

  private allocate(cap: number): void {
    const c = this.model.config, KV = c.nKvHeads * headDim(c);
    const keys: Float32Array[] = [], values: Float32Array[] = [];
    for (let l = 0; l < c.nLayers; l++) {
      keys.push(new Float32Array(this.batch * cap * KV));
      values.push(new Float32Array(this.batch * cap * KV));
    }
    // Copy what is cached into the larger layout (channel ch of row r moves from (r*KV+ch)*old to (r*KV+ch)*cap).
    if (this.keys.length > 0) {
      const old = this.capacity;
      for (let l = 0; l < c.nLayers; l++) {
        for (let r = 0; r < this.batch; r++) {
          const len = this.lengths[r]!;
          if (len === 0) continue;
          for (let ch = 0; ch < KV; ch++) {
            const from = (r * KV + ch) * old, to = (r * KV + ch) * cap;
            keys[l]!.set(this.keys[l]!.subarray(from, from + len), to);
            values[l]!.set(this.values[l]!.subarray(from, from + len), to);
          }
        }
      }
    }
    this.keys = keys;
    this.values = values;
    this.capacity = cap;
  }

  private grow(need: number): void {
    let cap = this.capacity;
    while (cap < need) cap *= 2;
    this.allocate(Math.min(cap, this.model.config.maxContext));
  }
}
