/**
 * The `Engine`: one facade over either kernel implementation (native oneDNN addon or the
 * TypeScript reference), which validates every call once (array types, lengths, index ranges,
 * optionally finiteness) and throws a `ShapeError` naming the kernel and the argument, so bad
 * input never reaches native code. Also the engine selection: native when the addon loads, else
 * the reference with one loud warning and the reason recorded (`seed doctor` prints it).
 * It deliberately holds no model logic.
 */
import { ShapeError } from "../core/errors.ts";
import type { AdamWHyper, AllowedSets, DecodeSeqTable, DecoderDims, DecoderWeights, Kernels, MatmulDtype, SeqTable } from "./kernels.ts";
import { referenceKernels } from "./reference.ts";
import { loadNative, type NativeInfo } from "./native.ts";

/** Which implementation runs the kernels. */
export type EngineKind = "native" | "reference";

/** What `seed doctor` reports about an engine. */
export type EngineInfo = {
  readonly kind: EngineKind;
  /** oneDNN version string when native. */
  readonly onednn: string | null;
  /** Compute threads the native engine may use (1 for the reference). */
  readonly threads: number;
  /** True when bf16 matmuls run on a fast kernel (AVX-512 BF16 or AMX), so bf16 compute pays off. */
  readonly bf16Fast: boolean;
  /** oneDNN's implementation name of a large bf16 / f32 matmul (diagnostics). */
  readonly bf16Impl: string | null;
  readonly f32Impl: string | null;
  /** Why the native engine is not in use, when it is not. */
  readonly fallbackReason: string | null;
};

/** Options of `createEngine`. */
export type EngineOptions = {
  /** "auto" picks native when it loads. @default "auto" */
  readonly kind?: EngineKind | "auto";
  /** Check every float input for NaN/Inf (slow; for debugging). @default false */
  readonly checkFinite?: boolean;
};

function fail(op: string, msg: string): never {
  throw new ShapeError(`${op}: ${msg}`);
}

/** Largest dimension the kernels accept (the native addon checks the same bound again). */
const MAX_DIM = 2 ** 31 - 1;

function dims(op: string, d: Record<string, number>): void {
  for (const [name, v] of Object.entries(d)) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_DIM) fail(op, `${name} must be an integer in [1, ${MAX_DIM}], got ${v}`);
  }
}

/**
 * The validated kernels of one implementation. Method semantics are those of `Kernels`
 * (see kernels.ts); every method throws `ShapeError` on bad input before touching any output.
 */
export class Engine {
  readonly kind: EngineKind;
  readonly info: EngineInfo;
  /** Check float inputs for NaN/Inf on every call. */
  checkFinite: boolean;
  /**
   * Floating-point operations of the GEMM-like kernels run so far (matmuls, attention, LM head;
   * 2 per multiply-add), for `seed bench update`'s compute floor. Elementwise kernels are not
   * counted: they are memory-bound and a rounding error next to the products.
   */
  flops = 0;
  private readonly k: Kernels;

  constructor(kernels: Kernels, info: EngineInfo, checkFinite = false) {
    this.k = kernels;
    this.kind = info.kind;
    this.info = info;
    this.checkFinite = checkFinite;
  }

  private arr(op: string, name: string, x: unknown, len: number): void {
    if (!(x instanceof Float32Array)) fail(op, `${name} must be a Float32Array, got ${describe(x)}`);
    if (x.length < len) fail(op, `${name} has ${x.length} elements, needs ${len}`);
  }

  private finite(op: string, name: string, x: Float32Array, len: number): void {
    if (!this.checkFinite) return;
    for (let i = 0; i < len; i++) if (!Number.isFinite(x[i]!)) fail(op, `${name}[${i}] is ${x[i]} (non-finite input)`);
  }

  private ints(op: string, name: string, x: unknown, len: number, lo: number, hi: number): void {
    if (!(x instanceof Int32Array)) fail(op, `${name} must be an Int32Array, got ${describe(x)}`);
    if (x.length < len) fail(op, `${name} has ${x.length} elements, needs ${len}`);
    for (let i = 0; i < len; i++) if (x[i]! < lo || x[i]! >= hi) fail(op, `${name}[${i}] = ${x[i]} is outside [${lo}, ${hi})`);
  }

  private dtype(op: string, d: unknown): void {
    if (d !== "f32" && d !== "bf16") fail(op, `dtype must be "f32" or "bf16", got ${String(d)}`);
  }

  /** See `Kernels.matmul`. */
  matmul(c: Float32Array, a: Float32Array, b: Float32Array, m: number, n: number, k: number,
         transA = false, transB = false, accumulate = false, dtype: MatmulDtype = "f32"): void {
    const op = "matmul";
    dims(op, { m, n, k });
    this.dtype(op, dtype);
    this.arr(op, "c", c, m * n);
    this.arr(op, "a", a, m * k);
    this.arr(op, "b", b, k * n);
    this.finite(op, "a", a, m * k);
    this.finite(op, "b", b, k * n);
    this.flops += 2 * m * n * k;
    this.k.matmul(c, a, b, m, n, k, transA, transB, accumulate, dtype);
  }

  /** See `Kernels.rmsnormForward`. */
  rmsnormForward(out: Float32Array, invRms: Float32Array, x: Float32Array, weight: Float32Array, rows: number, cols: number, eps: number): void {
    const op = "rmsnormForward";
    dims(op, { rows, cols });
    if (!(eps > 0)) fail(op, `eps must be > 0, got ${eps}`);
    this.arr(op, "out", out, rows * cols);
    this.arr(op, "invRms", invRms, rows);
    this.arr(op, "x", x, rows * cols);
    this.arr(op, "weight", weight, cols);
    this.finite(op, "x", x, rows * cols);
    this.k.rmsnormForward(out, invRms, x, weight, rows, cols, eps);
  }

  /** See `Kernels.rmsnormBackward`. */
  rmsnormBackward(dx: Float32Array, dweight: Float32Array, dout: Float32Array, x: Float32Array, weight: Float32Array,
                  invRms: Float32Array, rows: number, cols: number): void {
    const op = "rmsnormBackward";
    dims(op, { rows, cols });
    for (const [n, t, l] of [["dx", dx, rows * cols], ["dout", dout, rows * cols], ["x", x, rows * cols], ["invRms", invRms, rows]] as const) this.arr(op, n, t, l);
    this.arr(op, "dweight", dweight, cols);
    this.arr(op, "weight", weight, cols);
    this.finite(op, "dout", dout, rows * cols);
    this.k.rmsnormBackward(dx, dweight, dout, x, weight, invRms, rows, cols);
  }

  /** See `Kernels.rope`. */
  rope(x: Float32Array, positions: Int32Array, rows: number, nHeads: number, headDim: number, theta: number, inverse = false): void {
    const op = "rope";
    dims(op, { rows, nHeads, headDim });
    if (headDim % 2 !== 0) fail(op, `headDim must be even, got ${headDim}`);
    if (!(theta > 1)) fail(op, `theta must be > 1, got ${theta}`);
    this.arr(op, "x", x, rows * nHeads * headDim);
    this.ints(op, "positions", positions, rows, 0, 2 ** 30);
    this.finite(op, "x", x, rows * nHeads * headDim);
    this.k.rope(x, positions, rows, nHeads, headDim, theta, inverse);
  }

  /** See `Kernels.swigluForward`. */
  swigluForward(h: Float32Array, gate: Float32Array, up: Float32Array, n: number): void {
    const op = "swigluForward";
    dims(op, { n });
    for (const [nm, t] of [["h", h], ["gate", gate], ["up", up]] as const) this.arr(op, nm, t, n);
    this.finite(op, "gate", gate, n);
    this.finite(op, "up", up, n);
    this.k.swigluForward(h, gate, up, n);
  }

  /** See `Kernels.swigluBackward`. */
  swigluBackward(dgate: Float32Array, dup: Float32Array, dh: Float32Array, gate: Float32Array, up: Float32Array, n: number): void {
    const op = "swigluBackward";
    dims(op, { n });
    for (const [nm, t] of [["dgate", dgate], ["dup", dup], ["dh", dh], ["gate", gate], ["up", up]] as const) this.arr(op, nm, t, n);
    this.finite(op, "dh", dh, n);
    this.k.swigluBackward(dgate, dup, dh, gate, up, n);
  }

  /**
   * Checks a sequence table against q and k/v. Query ranges must not overlap (each output row
   * belongs to one sequence; the native kernels write a sequence's rows from one thread); the
   * backward (`disjointKv`) also needs disjoint key ranges, since each sequence overwrites its
   * dk/dv rows. A forward may share key rows (a common cached prefix).
   */
  private seqs(op: string, seqs: SeqTable, q: Float32Array, k: Float32Array, v: Float32Array, nHeads: number, nKvHeads: number,
               headDim: number, disjointKv: boolean): void {
    dims(op, { nHeads, nKvHeads, headDim });
    if (nHeads % nKvHeads !== 0) fail(op, `nKvHeads (${nKvHeads}) must divide nHeads (${nHeads})`);
    if (!(seqs instanceof Int32Array) || seqs.length % 4 !== 0 || seqs.length === 0) fail(op, "seqs must be a non-empty Int32Array of [qStart, nq, kvStart, past] quadruples");
    const qRows = q.length / (nHeads * headDim), kvRows = Math.min(k.length, v.length) / (nKvHeads * headDim);
    for (let b = 0; b < seqs.length / 4; b++) {
      const qs = seqs[4 * b]!, nq = seqs[4 * b + 1]!, ks = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
      if (qs < 0 || nq < 1 || ks < 0 || past < 0) fail(op, `sequence ${b} has a negative start, past or an empty query range`);
      if (qs + nq > qRows) fail(op, `sequence ${b} reads query rows up to ${qs + nq}, q has ${Math.floor(qRows)}`);
      if (ks + past + nq > kvRows) fail(op, `sequence ${b} reads key rows up to ${ks + past + nq}, k/v have ${Math.floor(kvRows)}`);
    }
    const n = seqs.length / 4;
    const overlap = (start: (b: number) => number, len: (b: number) => number): [number, number] | null => {
      const order = Array.from({ length: n }, (_, b) => b).sort((x, y) => start(x) - start(y));
      for (let i = 1; i < n; i++) {
        const a = order[i - 1]!, b = order[i]!;
        if (start(b) < start(a) + len(a)) return [a, b];
      }
      return null;
    };
    const qHit = overlap((b) => seqs[4 * b]!, (b) => seqs[4 * b + 1]!);
    if (qHit !== null) fail(op, `sequences ${qHit[0]} and ${qHit[1]} share query rows`);
    if (disjointKv) {
      const kHit = overlap((b) => seqs[4 * b + 2]!, (b) => seqs[4 * b + 3]! + seqs[4 * b + 1]!);
      if (kHit !== null) fail(op, `sequences ${kHit[0]} and ${kHit[1]} share key rows (the backward needs disjoint ones)`);
    }
  }

  /** See `Kernels.attentionForward`. */
  attentionForward(out: Float32Array, lse: Float32Array | null, q: Float32Array, k: Float32Array, v: Float32Array,
                   seqs: SeqTable, nHeads: number, nKvHeads: number, headDim: number): void {
    const op = "attentionForward";
    for (const [nm, t] of [["out", out], ["q", q], ["k", k], ["v", v]] as const) this.arr(op, nm, t, 1);
    this.seqs(op, seqs, q, k, v, nHeads, nKvHeads, headDim, false);
    if (out.length < q.length) fail(op, `out has ${out.length} elements, q has ${q.length}`);
    if (lse !== null) this.arr(op, "lse", lse, (q.length / (nHeads * headDim)) * nHeads);
    this.finite(op, "q", q, q.length);
    this.flops += 4 * nHeads * headDim * causalPairs(seqs);
    this.k.attentionForward(out, lse, q, k, v, seqs, nHeads, nKvHeads, headDim);
  }

  /** See `Kernels.attentionBackward`. */
  attentionBackward(dq: Float32Array, dk: Float32Array, dv: Float32Array, dout: Float32Array, q: Float32Array, k: Float32Array,
                    v: Float32Array, out: Float32Array, lse: Float32Array, seqs: SeqTable, nHeads: number, nKvHeads: number, headDim: number): void {
    const op = "attentionBackward";
    for (const [nm, t] of [["q", q], ["k", k], ["v", v]] as const) this.arr(op, nm, t, 1);
    this.seqs(op, seqs, q, k, v, nHeads, nKvHeads, headDim, true);
    for (const [nm, t] of [["dq", dq], ["dout", dout], ["out", out]] as const) this.arr(op, nm, t, q.length);
    this.arr(op, "dk", dk, k.length);
    this.arr(op, "dv", dv, v.length);
    this.arr(op, "lse", lse, (q.length / (nHeads * headDim)) * nHeads);
    this.finite(op, "dout", dout, q.length);
    this.flops += 8 * nHeads * headDim * causalPairs(seqs);
    this.k.attentionBackward(dq, dk, dv, dout, q, k, v, out, lse, seqs, nHeads, nKvHeads, headDim);
  }

  /**
   * Checks a decode sequence table against `qRows` query rows and a cache of `batch` rows of `cap`
   * positions: in range, distinct query ranges and distinct cache rows.
   */
  private decodeSeqs(op: string, seqs: DecodeSeqTable, qRows: number, batch: number, cap: number): void {
    if (!(seqs instanceof Int32Array) || seqs.length % 4 !== 0 || seqs.length === 0) fail(op, "seqs must be a non-empty Int32Array of [qStart, nq, row, past] quadruples");
    const n = seqs.length / 4, rows = new Set<number>();
    for (let b = 0; b < n; b++) {
      const qs = seqs[4 * b]!, nq = seqs[4 * b + 1]!, row = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
      if (qs < 0 || nq < 1 || past < 0) fail(op, `sequence ${b} has a negative start, past or an empty query range`);
      if (qs + nq > qRows) fail(op, `sequence ${b} reads query rows up to ${qs + nq}, there are ${qRows}`);
      if (row < 0 || row >= batch) fail(op, `sequence ${b} uses cache row ${row}, the cache has ${batch}`);
      if (past + nq > cap) fail(op, `sequence ${b} fills positions up to ${past + nq}, the cache holds ${cap} per row`);
      if (rows.has(row)) fail(op, `two sequences use cache row ${row}`);
      rows.add(row);
      if (b > 0 && qs < seqs[4 * (b - 1)]! + seqs[4 * (b - 1) + 1]!) fail(op, `sequence ${b} starts before the end of sequence ${b - 1} (query ranges must be increasing and disjoint)`);
    }
  }

  private cacheRows(op: string, kCache: unknown, vCache: unknown, kvDim: number, cap: number): number {
    this.arr(op, "kCache", kCache, kvDim * cap);
    this.arr(op, "vCache", vCache, kvDim * cap);
    const len = (kCache as Float32Array).length;
    if (len % (kvDim * cap) !== 0) fail(op, `kCache has ${len} elements, not a multiple of kvDim * cap = ${kvDim * cap}`);
    if ((vCache as Float32Array).length !== len) fail(op, `vCache has ${(vCache as Float32Array).length} elements, kCache ${len}`);
    return len / (kvDim * cap);
  }

  /** See `Kernels.kvWrite`. */
  kvWrite(kCache: Float32Array, vCache: Float32Array, k: Float32Array, v: Float32Array, seqs: DecodeSeqTable, kvDim: number, cap: number): void {
    const op = "kvWrite";
    dims(op, { kvDim, cap });
    const batch = this.cacheRows(op, kCache, vCache, kvDim, cap);
    this.arr(op, "k", k, kvDim);
    this.arr(op, "v", v, k.length);
    this.decodeSeqs(op, seqs, Math.floor(k.length / kvDim), batch, cap);
    this.k.kvWrite(kCache, vCache, k, v, seqs, kvDim, cap);
  }

  /** See `Kernels.attentionDecode`. */
  attentionDecode(out: Float32Array, q: Float32Array, kCache: Float32Array, vCache: Float32Array, seqs: DecodeSeqTable,
                  nHeads: number, nKvHeads: number, headDim: number, cap: number): void {
    const op = "attentionDecode";
    dims(op, { nHeads, nKvHeads, headDim, cap });
    if (nHeads % nKvHeads !== 0) fail(op, `nKvHeads (${nKvHeads}) must divide nHeads (${nHeads})`);
    const batch = this.cacheRows(op, kCache, vCache, nKvHeads * headDim, cap);
    this.arr(op, "q", q, nHeads * headDim);
    this.arr(op, "out", out, q.length);
    this.decodeSeqs(op, seqs, Math.floor(q.length / (nHeads * headDim)), batch, cap);
    this.finite(op, "q", q, q.length);
    let pairs = 0;
    for (let b = 0; b < seqs.length / 4; b++) pairs += seqs[4 * b + 1]! * seqs[4 * b + 3]! + (seqs[4 * b + 1]! * (seqs[4 * b + 1]! + 1)) / 2;
    this.flops += 4 * nHeads * headDim * pairs;
    this.k.attentionDecode(out, q, kCache, vCache, seqs, nHeads, nKvHeads, headDim, cap);
  }

  /** Whether this engine runs a whole decode step in one call (`decoderForward`). */
  get hasDecoder(): boolean {
    return this.k.decoderForward !== undefined;
  }

  /** See `Kernels.decoderForward`; throws when the engine has none (`hasDecoder`). */
  decoderForward(logits: Float32Array, ids: Int32Array, positions: Int32Array, seqs: DecodeSeqTable, w: DecoderWeights, d: DecoderDims): void {
    const op = "decoderForward";
    if (this.k.decoderForward === undefined) fail(op, `the ${this.kind} engine has no fused decoder; use the per-kernel path`);
    const { dModel: D, ffnSize: F, nHeads: H, nKvHeads: Hkv, headDim: hd, vocab: V, cap } = d;
    dims(op, { D, F, H, Hkv, hd, V, cap });
    if (H % Hkv !== 0 || hd % 2 !== 0) fail(op, `nKvHeads must divide nHeads and headDim must be even (got ${H}, ${Hkv}, ${hd})`);
    if (!(d.eps > 0) || !(d.theta > 1)) fail(op, `eps must be > 0 and theta > 1 (got ${d.eps}, ${d.theta})`);
    const Q = H * hd, KV = Hkv * hd, n = ids.length;
    if (!(ids instanceof Int32Array) || n === 0) fail(op, "ids must be a non-empty Int32Array");
    this.ints(op, "ids", ids, n, 0, V);
    this.ints(op, "positions", positions, n, 0, 2 ** 30);
    this.arr(op, "embed", w.embed, V * D);
    this.arr(op, "finalNorm", w.finalNorm, D);
    this.arr(op, "head", w.head, V * D);
    const L = w.layers.length / 12;
    if (!Number.isInteger(L) || L < 1 || w.caches.length !== 2 * L) fail(op, `weights need 12 tensors and 2 caches per layer, got ${w.layers.length} and ${w.caches.length}`);
    const sizes = [D, Q * D, Q, KV * D, KV, KV * D, KV, D * Q, D, F * D, F * D, D * F];
    const names = ["inputNorm", "q", "qBias", "k", "kBias", "v", "vBias", "o", "postNorm", "gate", "up", "down"];
    let batch = 0;
    for (let l = 0; l < L; l++) {
      for (let i = 0; i < 12; i++) {
        const t = w.layers[12 * l + i];
        if (t === null && (i === 2 || i === 4 || i === 6)) continue;
        this.arr(op, `layers[${l}].${names[i]}`, t, sizes[i]!);
      }
      const b = this.cacheRows(op, w.caches[2 * l], w.caches[2 * l + 1], KV, cap);
      if (l > 0 && b !== batch) fail(op, `layer ${l}'s cache has ${b} rows, layer 0's ${batch}`);
      batch = b;
    }
    this.decodeSeqs(op, seqs, n, batch, cap);
    this.arr(op, "logits", logits, (seqs.length / 4) * V);
    let pairs = 0;
    for (let b = 0; b < seqs.length / 4; b++) pairs += seqs[4 * b + 1]! * seqs[4 * b + 3]! + (seqs[4 * b + 1]! * (seqs[4 * b + 1]! + 1)) / 2;
    this.flops += L * (2 * n * D * (2 * Q + 2 * KV + 3 * F) + 4 * H * hd * pairs) + 2 * (seqs.length / 4) * D * V;
    this.k.decoderForward(logits, ids, positions, seqs, w, d);
  }

  private allowed(op: string, allowed: AllowedSets | null, targets: Int32Array, rows: number, vocab: number): void {
    if (allowed === null) return;
    const { restricted, offsets, ids } = allowed;
    if (!(restricted instanceof Uint8Array) || restricted.length < rows) fail(op, `allowed.restricted must be a Uint8Array of ${rows}`);
    if (!(offsets instanceof Int32Array) || offsets.length < rows + 1) fail(op, `allowed.offsets must be an Int32Array of ${rows + 1}`);
    this.ints(op, "allowed.ids", ids, offsets[rows]!, 0, vocab);
    for (let r = 0; r < rows; r++) {
      if (restricted[r] === 0) continue;
      const a = offsets[r]!, b = offsets[r + 1]!;
      if (a < 0 || b < a || b > ids.length) fail(op, `allowed.offsets are not increasing at row ${r}`);
      if (b === a) fail(op, `row ${r} is restricted to an empty set`);
      let found = false;
      for (let i = a; i < b; i++) if (ids[i] === targets[r]) found = true;
      if (!found) fail(op, `target token ${targets[r]} of row ${r} is not in its allowed set`);
    }
  }

  /** See `Kernels.lmHeadForward`. */
  lmHeadForward(logp: Float32Array, lse: Float32Array, h: Float32Array, w: Float32Array, targets: Int32Array, rows: number,
                dModel: number, vocab: number, allowed: AllowedSets | null = null, dtype: MatmulDtype = "f32"): void {
    const op = "lmHeadForward";
    dims(op, { rows, dModel, vocab });
    this.dtype(op, dtype);
    this.arr(op, "logp", logp, rows);
    this.arr(op, "lse", lse, rows);
    this.arr(op, "h", h, rows * dModel);
    this.arr(op, "w", w, vocab * dModel);
    this.ints(op, "targets", targets, rows, 0, vocab);
    this.allowed(op, allowed, targets, rows, vocab);
    this.finite(op, "h", h, rows * dModel);
    this.flops += 2 * rows * dModel * vocab;
    this.k.lmHeadForward(logp, lse, h, w, targets, rows, dModel, vocab, allowed, dtype);
  }

  /** See `Kernels.lmHeadBackward`. */
  lmHeadBackward(dh: Float32Array, dw: Float32Array, h: Float32Array, w: Float32Array, targets: Int32Array, weights: Float32Array,
                 lse: Float32Array, rows: number, dModel: number, vocab: number, allowed: AllowedSets | null = null, dtype: MatmulDtype = "f32"): void {
    const op = "lmHeadBackward";
    dims(op, { rows, dModel, vocab });
    this.dtype(op, dtype);
    this.arr(op, "dh", dh, rows * dModel);
    this.arr(op, "dw", dw, vocab * dModel);
    this.arr(op, "h", h, rows * dModel);
    this.arr(op, "w", w, vocab * dModel);
    this.arr(op, "weights", weights, rows);
    this.arr(op, "lse", lse, rows);
    this.ints(op, "targets", targets, rows, 0, vocab);
    this.allowed(op, allowed, targets, rows, vocab);
    this.finite(op, "weights", weights, rows);
    this.flops += 6 * rows * dModel * vocab;
    this.k.lmHeadBackward(dh, dw, h, w, targets, weights, lse, rows, dModel, vocab, allowed, dtype);
  }

  /** See `Kernels.lmHeadTrain`. */
  lmHeadTrain(logp: Float32Array, lse: Float32Array, dh: Float32Array, dw: Float32Array, h: Float32Array, w: Float32Array,
              targets: Int32Array, weights: Float32Array, rows: number, dModel: number, vocab: number,
              allowed: AllowedSets | null = null, dtype: MatmulDtype = "f32"): void {
    const op = "lmHeadTrain";
    dims(op, { rows, dModel, vocab });
    this.dtype(op, dtype);
    this.arr(op, "logp", logp, rows);
    this.arr(op, "lse", lse, rows);
    this.arr(op, "dh", dh, rows * dModel);
    this.arr(op, "dw", dw, vocab * dModel);
    this.arr(op, "h", h, rows * dModel);
    this.arr(op, "w", w, vocab * dModel);
    this.arr(op, "weights", weights, rows);
    this.ints(op, "targets", targets, rows, 0, vocab);
    this.allowed(op, allowed, targets, rows, vocab);
    this.finite(op, "h", h, rows * dModel);
    this.finite(op, "weights", weights, rows);
    this.flops += 6 * rows * dModel * vocab;
    this.k.lmHeadTrain(logp, lse, dh, dw, h, w, targets, weights, rows, dModel, vocab, allowed, dtype);
  }

  /** See `Kernels.adamw`. */
  adamw(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, hp: AdamWHyper): void {
    const op = "adamw";
    this.arr(op, "p", p, 1);
    for (const [nm, t] of [["g", g], ["m", m], ["v", v]] as const) {
      this.arr(op, nm, t, p.length);
      if (t.length !== p.length) fail(op, `${nm} has ${t.length} elements, p has ${p.length}`);
    }
    if (!Number.isInteger(hp.step) || hp.step < 1) fail(op, `step must be a positive integer, got ${hp.step}`);
    for (const key of ["lr", "beta1", "beta2", "eps", "weightDecay", "gradScale"] as const) {
      if (!Number.isFinite(hp[key]) || hp[key] < 0) fail(op, `${key} must be a finite number >= 0, got ${hp[key]}`);
    }
    if (hp.beta1 >= 1 || hp.beta2 >= 1) fail(op, "beta1 and beta2 must be < 1");
    this.finite(op, "g", g, g.length);
    this.k.adamw(p, g, m, v, hp);
  }

  /** See `Kernels.sumSquares`. */
  sumSquares(x: Float32Array): number {
    this.arr("sumSquares", "x", x, 0);
    return this.k.sumSquares(x);
  }
}

/** Query-key pairs a causal attention call over `seqs` computes: each query sees its past and itself. */
function causalPairs(seqs: SeqTable): number {
  let n = 0;
  for (let b = 0; b < seqs.length / 4; b++) {
    const nq = seqs[4 * b + 1]!, past = seqs[4 * b + 3]!;
    n += nq * past + (nq * (nq + 1)) / 2;
  }
  return n;
}

function describe(x: unknown): string {
  if (x === null) return "null";
  if (typeof x === "object") return (x as object).constructor?.name ?? "object";
  return typeof x;
}

const REFERENCE_INFO = { kind: "reference", onednn: null, threads: 1, bf16Fast: false, bf16Impl: null, f32Impl: null } as const;

/** A reference engine (always available). */
export function referenceEngine(options: { checkFinite?: boolean; fallbackReason?: string } = {}): Engine {
  return new Engine(referenceKernels, { ...REFERENCE_INFO, fallbackReason: options.fallbackReason ?? null }, options.checkFinite ?? false);
}

/**
 * An engine of the requested kind. "auto" tries the native addon and falls back to the reference
 * with the reason recorded; "native" throws the loader's `SeedError` when the addon cannot load.
 * The environment variable
 * `SEED_ENGINE=reference` forces the reference engine for "auto" (debugging only).
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const kind = options.kind ?? "auto";
  const checkFinite = options.checkFinite ?? false;
  if (kind === "reference") return referenceEngine({ checkFinite });
  if (kind === "auto" && process.env["SEED_ENGINE"] === "reference") {
    return referenceEngine({ checkFinite, fallbackReason: "forced by SEED_ENGINE=reference" });
  }
  const loaded = loadNative();
  if (loaded.ok) return nativeEngine(loaded.value, checkFinite);
  if (kind === "native") throw loaded.error;
  return referenceEngine({ checkFinite, fallbackReason: loaded.error.message });
}

function nativeEngine(native: { kernels: Kernels; info: NativeInfo }, checkFinite: boolean): Engine {
  const i = native.info;
  return new Engine(native.kernels, {
    kind: "native", onednn: i.onednn, threads: i.threads, bf16Fast: i.bf16Fast, bf16Impl: i.bf16Impl, f32Impl: i.f32Impl, fallbackReason: null,
  }, checkFinite);
}

let defaultEngine: Engine | undefined;
let warned = false;

/**
 * The process-wide engine, chosen on first use ("auto"). A fallback prints one warning line on
 * stderr, once per process.
 */
export function getEngine(): Engine {
  if (defaultEngine === undefined) {
    defaultEngine = createEngine();
    if (defaultEngine.kind === "reference" && !warned && process.env["SEED_ENGINE"] !== "reference") {
      warned = true;
      process.stderr.write(`[seed] WARNING: native engine unavailable (${defaultEngine.info.fallbackReason}); using the slow TypeScript reference engine\n`);
    }
  }
  return defaultEngine;
}

/** Replace the process-wide engine (tests, `--engine reference`). */
export function setEngine(engine: Engine): void {
  defaultEngine = engine;
}
