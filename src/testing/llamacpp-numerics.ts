/**
 * An option of the llama.cpp comparison, never our default forward: llama.cpp's CPU backend
 * quantises the activations that meet a quantised weight (Q8_1 blocks for Q4_0 / Q4_1 weights,
 * Q8_0 blocks for Q8_0 weights) and multiplies integer blocks, so its logits carry that rounding
 * too. `llamaCppActivationEngine` wraps an engine so every matmul against such a weight computes
 * what llama.cpp's block dot product computes:
 * - each block of 32 input values: d = max|x| / 127, q = round(x * 127 / max|x|) (half to even,
 *   as its SIMD path), x' = f16(d) * q;
 * - Q8_0 / Q4_0 weights: y = Σ w x' (exact: w is d_w q_w);
 * - Q4_1 weights (w = d_w q_w + m_w): llama.cpp adds m_w * s with s = f16(d * Σq) stored in the
 *   Q8_1 block, where Σ w x' has m_w * f16(d) * Σq; the difference is added as a second small
 *   matmul over the per-block mins (`Q4_1` needs them: `q4_1Mins`).
 * What remains is summation order.
 */
import type { Engine } from "../engine/engine.ts";
import type { ModelConfig } from "../model/config.ts";
import { layerNames, type ParamStore } from "../model/params.ts";
import { floatToHalf, GGML_TYPE, halfToFloat, q4_1Mins } from "../model/gguf/dequant.ts";
import { ggufTensorNames } from "../model/gguf/load.ts";
import { unpermuteRows } from "../model/gguf/permute.ts";
import type { GgufFile } from "../model/gguf/reader.ts";

/** How llama.cpp multiplies by one weight: its ggml type, and for Q4_1 the per-block mins [out, in/32]. */
export type QuantisedWeight = { readonly type: number; readonly mins?: Float32Array };

/**
 * Rounds each block of 32 values in place as llama.cpp's Q8_0 / Q8_1 activation quantiser does,
 * writing back the dequantised values; when `sums` is given, block b's Q8_1 sum term
 * f16(d * Σq) minus f16(d) * Σq goes to `sums[b]`. `x.length` must be a multiple of 32.
 */
export function roundToQ8Blocks(x: Float32Array, sums?: Float32Array): void {
  for (let b = 0; b < x.length; b += 32) {
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[b + j]!));
    const d = Math.fround(amax / 127), id = amax === 0 ? 0 : Math.fround(127 / amax), dh = halfToFloat(floatToHalf(d));
    let qsum = 0;
    for (let j = 0; j < 32; j++) {
      const v = Math.fround(x[b + j]! * id);
      let q = Math.round(v);
      if (q - v === 0.5 && q % 2 !== 0) q -= 1; // Math.round rounds .5 up; the SIMD path rounds to even
      x[b + j] = dh * q;
      qsum += q;
    }
    if (sums !== undefined) sums[b / 32] = halfToFloat(floatToHalf(Math.fround(d * qsum))) - dh * qsum;
  }
}

/** Whether llama.cpp's CPU matmul quantises the activations meeting a weight of this ggml type. */
export function quantisesActivations(type: number): boolean {
  return type === GGML_TYPE.Q4_0 || type === GGML_TYPE.Q4_1 || type === GGML_TYPE.Q8_0;
}

/**
 * An engine that computes every `x Wᵀ` matmul whose W is a key of `weights` as llama.cpp's block
 * dot products do (see the file comment), and reports no fused decoder, so the KV-cache path runs
 * its matmuls through `matmul`. Every other kernel is `base`'s.
 */
export function llamaCppActivationEngine(base: Engine, weights: ReadonlyMap<Float32Array, QuantisedWeight>): Engine {
  const e = Object.create(base) as Engine;
  Object.defineProperty(e, "hasDecoder", { get: () => false });
  e.matmul = (c, a, b, m, n, k, transA = false, transB = false, accumulate = false, dtype = "f32") => {
    const w = transA || !transB || k % 32 !== 0 ? undefined : weights.get(b);
    if (w === undefined) return base.matmul(c, a, b, m, n, k, transA, transB, accumulate, dtype);
    const xa = a.slice(0, m * k), nb = k / 32;
    const sums = w.type === GGML_TYPE.Q4_1 ? new Float32Array(m * nb) : undefined;
    roundToQ8Blocks(xa, sums);
    base.matmul(c, xa, b, m, n, k, false, true, accumulate, dtype);
    if (sums !== undefined && w.mins !== undefined) base.matmul(c, sums, w.mins, m, n, nb, false, true, true, "f32");
  };
  return e;
}

/**
 * The `weights` argument of `llamaCppActivationEngine` for a model loaded from `file`: each of
 * `params`' tensors that llama.cpp multiplies with quantised activations, with the Q4_1 mins in
 * our row order (q/k rows un-permuted as the weights were).
 */
export function llamaCppWeights(file: GgufFile, config: ModelConfig, params: ParamStore): Map<Float32Array, QuantisedWeight> {
  const out = new Map<Float32Array, QuantisedWeight>();
  const heads = new Map<string, number>();
  for (let i = 0; i < config.nLayers; i++) {
    heads.set(layerNames(i).q, config.nHeads);
    heads.set(layerNames(i).k, config.nKvHeads);
  }
  for (const [gguf, ours] of ggufTensorNames(config)) {
    const info = file.tensors.get(gguf);
    if (info === undefined || !quantisesActivations(info.type)) continue;
    let mins: Float32Array | undefined;
    if (info.type === GGML_TYPE.Q4_1) {
      const [cols, rows] = info.dims as [number, number];
      mins = q4_1Mins(file.bytes, info.fileOffset, rows, cols);
      const h = heads.get(ours);
      if (h !== undefined) mins = unpermuteRows(mins, h, cols / 32);
    }
    out.set(params.get(ours), { type: info.type, ...(mins === undefined ? {} : { mins }) });
  }
  return out;
}
