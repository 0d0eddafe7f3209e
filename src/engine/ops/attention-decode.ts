/**
 * Decode attention against a channel-major KV cache (see `Kernels.attentionDecode` and
 * `DecodeSeqTable` in ../kernels.ts), and the cache write that precedes it. Reference loops with
 * f64 accumulation: the oracle of the native kernel, not a fast one.
 * q, out: [rowsQ, nHeads * hd]; k, v: [rowsQ, nKvHeads * hd]; kCache, vCache: [batch, nKvHeads * hd, cap].
 */
import type { DecodeSeqTable, Vec } from "../kernels.ts";

/** Token i of each sequence goes to position past + i of its cache row. */
export function kvWrite(kCache: Vec, vCache: Vec, k: Vec, v: Vec, seqs: DecodeSeqTable, kvDim: number, cap: number): void {
  for (let b = 0; b < seqs.length / 4; b++) {
    const qStart = seqs[4 * b]!, nq = seqs[4 * b + 1]!, row = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    const base = row * kvDim * cap;
    for (let i = 0; i < nq; i++) {
      const src = (qStart + i) * kvDim, p = past + i;
      for (let c = 0; c < kvDim; c++) {
        kCache[base + c * cap + p] = k[src + c]!;
        vCache[base + c * cap + p] = v[src + c]!;
      }
    }
  }
}

/** out overwritten on the sequences' query rows. */
export function attentionDecode(out: Vec, q: Vec, kCache: Vec, vCache: Vec, seqs: DecodeSeqTable,
                                nHeads: number, nKvHeads: number, hd: number, cap: number): void {
  const group = nHeads / nKvHeads, scale = 1 / Math.sqrt(hd), qStride = nHeads * hd, kvDim = nKvHeads * hd;
  for (let b = 0; b < seqs.length / 4; b++) {
    const qStart = seqs[4 * b]!, nq = seqs[4 * b + 1]!, row = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    const s = new Float64Array(past + nq);
    for (let h = 0; h < nHeads; h++) {
      const base = (row * kvDim + Math.floor(h / group) * hd) * cap;
      for (let i = 0; i < nq; i++) {
        const qo = (qStart + i) * qStride + h * hd, nk = past + i + 1;
        let mx = -Infinity;
        for (let j = 0; j < nk; j++) {
          let d = 0;
          for (let c = 0; c < hd; c++) d += q[qo + c]! * kCache[base + c * cap + j]!;
          s[j] = d * scale;
          if (s[j]! > mx) mx = s[j]!;
        }
        let z = 0;
        for (let j = 0; j < nk; j++) {
          s[j] = Math.exp(s[j]! - mx);
          z += s[j]!;
        }
        for (let c = 0; c < hd; c++) {
          let acc = 0;
          for (let j = 0; j < nk; j++) acc += s[j]! * vCache[base + c * cap + j]!;
          out[qo + c] = acc / z;
        }
      }
    }
  }
}
