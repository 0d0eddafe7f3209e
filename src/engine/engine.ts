/**
 * The `Engine`: one facade over either kernel implementation (native oneDNN addon or the
 * TypeScript reference), which validates every call once (array types, lengths, index ranges,
 * optionally finiteness; the checks are `checks.ts`) and throws a `ShapeError` naming the kernel
 * and the argument, so bad input never reaches native code. Also the engine selection: native
 * when the addon loads, else the reference with one loud warning and the reason recorded
 * (`seed doctor` prints it).
 * It deliberately holds no model logic.
 */
import type { AdamWHyper, AllowedSets, DecodeSeqTable, DecoderDims, DecoderWeights, Kernels, MatmulDtype, SeqTable } from "./kernels.ts";
import { allowedSets, cacheRows, causalPairs, checkDtype, decodeSeqTable, dims, fail, floats, ints, seqTable } from "./checks.ts";
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

  private finite(op: string, name: string, x: Float32Array, len: number): void {
    if (!this.checkFinite) return;
    for (let i = 0; i < len; i++) if (!Number.isFinite(x[i]!)) fail(op, `${name}[${i}] is ${x[i]} (non-finite input)`);
  }

  /** See `Kernels.matmul`. */
  matmul(c: Float32Array, a: Float32Array, b: Float32Array, m: number, n: number, k: number,
         transA = false, transB = false, accumulate = false, dtype: MatmulDtype = "f32"): void {
    const op = "matmul";
    dims(op, { m, n, k });
    checkDtype(op, dtype);
    floats(op, "c", c, m * n);
    floats(op, "a", a, m * k);
    floats(op, "b", b, k * n);
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
    floats(op, "out", out, rows * cols);
    floats(op, "invRms", invRms, rows);
    floats(op, "x", x, rows * cols);
    floats(op, "weight", weight, cols);
    this.finite(op, "x", x, rows * cols);
    this.k.rmsnormForward(out, invRms, x, weight, rows, cols, eps);
  }

  /** See `Kernels.rmsnormBackward`. */
  rmsnormBackward(dx: Float32Array, dweight: Float32Array, dout: Float32Array, x: Float32Array, weight: Float32Array,
                  invRms: Float32Array, rows: number, cols: number): void {
    const op = "rmsnormBackward";
    dims(op, { rows, cols });
    for (const [n, t, l] of [["dx", dx, rows * cols], ["dout", dout, rows * cols], ["x", x, rows * cols], ["invRms", invRms, rows]] as const) floats(op, n, t, l);
    floats(op, "dweight", dweight, cols);
    floats(op, "weight", weight, cols);
    this.finite(op, "dout", dout, rows * cols);
    this.k.rmsnormBackward(dx, dweight, dout, x, weight, invRms, rows, cols);
  }

  /** See `Kernels.rope`. */
  rope(x: Float32Array, positions: Int32Array, rows: number, nHeads: number, headDim: number, theta: number, inverse = false): void {
    const op = "rope";
    dims(op, { rows, nHeads, headDim });
    if (headDim % 2 !== 0) fail(op, `headDim must be even, got ${headDim}`);
    if (!(theta > 1)) fail(op, `theta must be > 1, got ${theta}`);
    floats(op, "x", x, rows * nHeads * headDim);
    ints(op, "positions", positions, rows, 0, 2 ** 30);
    this.finite(op, "x", x, rows * nHeads * headDim);
    this.k.rope(x, positions, rows, nHeads, headDim, theta, inverse);
  }

  /** See `Kernels.swigluForward`. */
  swigluForward(h: Float32Array, gate: Float32Array, up: Float32Array, n: number): void {
    const op = "swigluForward";
    dims(op, { n });
    for (const [nm, t] of [["h", h], ["gate", gate], ["up", up]] as const) floats(op, nm, t, n);
    this.finite(op, "gate", gate, n);
    this.finite(op, "up", up, n);
    this.k.swigluForward(h, gate, up, n);
  }

  /** See `Kernels.swigluBackward`. */
  swigluBackward(dgate: Float32Array, dup: Float32Array, dh: Float32Array, gate: Float32Array, up: Float32Array, n: number): void {
    const op = "swigluBackward";
    dims(op, { n });
    for (const [nm, t] of [["dgate", dgate], ["dup", dup], ["dh", dh], ["gate", gate], ["up", up]] as const) floats(op, nm, t, n);
    this.finite(op, "dh", dh, n);
    this.k.swigluBackward(dgate, dup, dh, gate, up, n);
  }

  /** See `Kernels.attentionForward`. */
  attentionForward(out: Float32Array, lse: Float32Array | null, q: Float32Array, k: Float32Array, v: Float32Array,
                   seqs: SeqTable, nHeads: number, nKvHeads: number, headDim: number): void {
    const op = "attentionForward";
    for (const [nm, t] of [["out", out], ["q", q], ["k", k], ["v", v]] as const) floats(op, nm, t, 1);
    seqTable(op, seqs, q, k, v, nHeads, nKvHeads, headDim, false);
    if (out.length < q.length) fail(op, `out has ${out.length} elements, q has ${q.length}`);
    if (lse !== null) floats(op, "lse", lse, (q.length / (nHeads * headDim)) * nHeads);
    this.finite(op, "q", q, q.length);
    this.flops += 4 * nHeads * headDim * causalPairs(seqs);
    this.k.attentionForward(out, lse, q, k, v, seqs, nHeads, nKvHeads, headDim);
  }

  /** See `Kernels.attentionBackward`. */
  attentionBackward(dq: Float32Array, dk: Float32Array, dv: Float32Array, dout: Float32Array, q: Float32Array, k: Float32Array,
                    v: Float32Array, out: Float32Array, lse: Float32Array, seqs: SeqTable, nHeads: number, nKvHeads: number, headDim: number): void {
    const op = "attentionBackward";
    for (const [nm, t] of [["q", q], ["k", k], ["v", v]] as const) floats(op, nm, t, 1);
    seqTable(op, seqs, q, k, v, nHeads, nKvHeads, headDim, true);
    for (const [nm, t] of [["dq", dq], ["dout", dout], ["out", out]] as const) floats(op, nm, t, q.length);
    floats(op, "dk", dk, k.length);
    floats(op, "dv", dv, v.length);
    floats(op, "lse", lse, (q.length / (nHeads * headDim)) * nHeads);
    this.finite(op, "dout", dout, q.length);
    this.flops += 8 * nHeads * headDim * causalPairs(seqs);
    this.k.attentionBackward(dq, dk, dv, dout, q, k, v, out, lse, seqs, nHeads, nKvHeads, headDim);
  }

  /** See `Kernels.kvWrite`. */
  kvWrite(kCache: Float32Array, vCache: Float32Array, k: Float32Array, v: Float32Array, seqs: DecodeSeqTable, kvDim: number, cap: number): void {
    const op = "kvWrite";
    dims(op, { kvDim, cap });
    const batch = cacheRows(op, kCache, vCache, kvDim, cap);
    floats(op, "k", k, kvDim);
    floats(op, "v", v, k.length);
    decodeSeqTable(op, seqs, Math.floor(k.length / kvDim), batch, cap);
    this.k.kvWrite(kCache, vCache, k, v, seqs, kvDim, cap);
  }

  /** See `Kernels.attentionDecode`. */
  attentionDecode(out: Float32Array, q: Float32Array, kCache: Float32Array, vCache: Float32Array, seqs: DecodeSeqTable,
                  nHeads: number, nKvHeads: number, headDim: number, cap: number): void {
    const op = "attentionDecode";
    dims(op, { nHeads, nKvHeads, headDim, cap });
    if (nHeads % nKvHeads !== 0) fail(op, `nKvHeads (${nKvHeads}) must divide nHeads (${nHeads})`);
    const batch = cacheRows(op, kCache, vCache, nKvHeads * headDim, cap);
    floats(op, "q", q, nHeads * headDim);
    floats(op, "out", out, q.length);
    decodeSeqTable(op, seqs, Math.floor(q.length / (nHeads * headDim)), batch, cap);
    this.finite(op, "q", q, q.length);
    const pairs = causalPairs(seqs);
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
    ints(op, "ids", ids, n, 0, V);
    ints(op, "positions", positions, n, 0, 2 ** 30);
    floats(op, "embed", w.embed, V * D);
    floats(op, "finalNorm", w.finalNorm, D);
    floats(op, "head", w.head, V * D);
    const L = w.layers.length / 12;
    if (!Number.isInteger(L) || L < 1 || w.caches.length !== 2 * L) fail(op, `weights need 12 tensors and 2 caches per layer, got ${w.layers.length} and ${w.caches.length}`);
    const sizes = [D, Q * D, Q, KV * D, KV, KV * D, KV, D * Q, D, F * D, F * D, D * F];
    const names = ["inputNorm", "q", "qBias", "k", "kBias", "v", "vBias", "o", "postNorm", "gate", "up", "down"];
    let batch = 0;
    for (let l = 0; l < L; l++) {
      for (let i = 0; i < 12; i++) {
        const t = w.layers[12 * l + i];
        if (t === null && (i === 2 || i === 4 || i === 6)) continue;
        floats(op, `layers[${l}].${names[i]}`, t, sizes[i]!);
      }
      const b = cacheRows(op, w.caches[2 * l], w.caches[2 * l + 1], KV, cap);
      if (l > 0 && b !== batch) fail(op, `layer ${l}'s cache has ${b} rows, layer 0's ${batch}`);
      batch = b;
    }
    decodeSeqTable(op, seqs, n, batch, cap);
    floats(op, "logits", logits, (seqs.length / 4) * V);
    const pairs = causalPairs(seqs);
    this.flops += L * (2 * n * D * (2 * Q + 2 * KV + 3 * F) + 4 * H * hd * pairs) + 2 * (seqs.length / 4) * D * V;
    this.k.decoderForward(logits, ids, positions, seqs, w, d);
  }

  /** See `Kernels.lmHeadForward`. */
  lmHeadForward(logp: Float32Array, lse: Float32Array, h: Float32Array, w: Float32Array, targets: Int32Array, rows: number,
                dModel: number, vocab: number, allowed: AllowedSets | null = null, dtype: MatmulDtype = "f32"): void {
    const op = "lmHeadForward";
    dims(op, { rows, dModel, vocab });
    checkDtype(op, dtype);
    floats(op, "logp", logp, rows);
    floats(op, "lse", lse, rows);
    floats(op, "h", h, rows * dModel);
    floats(op, "w", w, vocab * dModel);
    ints(op, "targets", targets, rows, 0, vocab);
    allowedSets(op, allowed, targets, rows, vocab);
    this.finite(op, "h", h, rows * dModel);
    this.flops += 2 * rows * dModel * vocab;
    this.k.lmHeadForward(logp, lse, h, w, targets, rows, dModel, vocab, allowed, dtype);
  }

  /** See `Kernels.lmHeadBackward`. */
  lmHeadBackward(dh: Float32Array, dw: Float32Array, h: Float32Array, w: Float32Array, targets: Int32Array, weights: Float32Array,
                 lse: Float32Array, rows: number, dModel: number, vocab: number, allowed: AllowedSets | null = null, dtype: MatmulDtype = "f32"): void {
    const op = "lmHeadBackward";
    dims(op, { rows, dModel, vocab });
    checkDtype(op, dtype);
    floats(op, "dh", dh, rows * dModel);
    floats(op, "dw", dw, vocab * dModel);
    floats(op, "h", h, rows * dModel);
    floats(op, "w", w, vocab * dModel);
    floats(op, "weights", weights, rows);
    floats(op, "lse", lse, rows);
    ints(op, "targets", targets, rows, 0, vocab);
    allowedSets(op, allowed, targets, rows, vocab);
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
    checkDtype(op, dtype);
    floats(op, "logp", logp, rows);
    floats(op, "lse", lse, rows);
    floats(op, "dh", dh, rows * dModel);
    floats(op, "dw", dw, vocab * dModel);
    floats(op, "h", h, rows * dModel);
    floats(op, "w", w, vocab * dModel);
    floats(op, "weights", weights, rows);
    ints(op, "targets", targets, rows, 0, vocab);
    allowedSets(op, allowed, targets, rows, vocab);
    this.finite(op, "h", h, rows * dModel);
    this.finite(op, "weights", weights, rows);
    this.flops += 6 * rows * dModel * vocab;
    this.k.lmHeadTrain(logp, lse, dh, dw, h, w, targets, weights, rows, dModel, vocab, allowed, dtype);
  }

  /** See `Kernels.adamw`. */
  adamw(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, hp: AdamWHyper): void {
    const op = "adamw";
    floats(op, "p", p, 1);
    for (const [nm, t] of [["g", g], ["m", m], ["v", v]] as const) {
      floats(op, nm, t, p.length);
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
    floats("sumSquares", "x", x, 0);
    return this.k.sumSquares(x);
  }
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
