/**
 * Causal grouped-query attention over a table of sequences (see `SeqTable` in ../kernels.ts),
 * forward next to backward. The forward saves only the log-sum-exp of each softmax row; the
 * backward recomputes the probabilities from it (as FlashAttention does), so no [T, T] matrix
 * outlives one query row. Reference loops with f64 accumulation: an oracle, not a fast kernel.
 * q, out, dq, dout: [rowsQ, nHeads * hd]; k, v, dk, dv: [rowsKv, nKvHeads * hd]; lse: [rowsQ, nHeads].
 */
import type { SeqTable, Vec } from "../kernels.ts";

/** Forward: out overwritten on the covered rows; lse (when given) saved for backward. */
export function attentionForward(out: Vec, lse: Vec | null, q: Vec, k: Vec, v: Vec, seqs: SeqTable,
                                 nHeads: number, nKvHeads: number, hd: number): void {
  const group = nHeads / nKvHeads, scale = 1 / Math.sqrt(hd);
  const qStride = nHeads * hd, kvStride = nKvHeads * hd;
  const s = new Float64Array(0 | maxKeys(seqs));
  const acc = new Float64Array(hd);
  for (let b = 0; b < seqs.length / 4; b++) {
    const qStart = seqs[4 * b]!, nq = seqs[4 * b + 1]!, kvStart = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    for (let h = 0; h < nHeads; h++) {
      const kvOff = Math.floor(h / group) * hd;
      for (let i = 0; i < nq; i++) {
        const qo = (qStart + i) * qStride + h * hd, nk = past + i + 1;
        let mx = -Infinity;
        for (let j = 0; j < nk; j++) {
          const ko = (kvStart + j) * kvStride + kvOff;
          let d = 0;
          for (let c = 0; c < hd; c++) d += q[qo + c]! * k[ko + c]!;
          s[j] = d * scale;
          if (s[j]! > mx) mx = s[j]!;
        }
        let z = 0;
        acc.fill(0);
        for (let j = 0; j < nk; j++) {
          const p = Math.exp(s[j]! - mx);
          z += p;
          const vo = (kvStart + j) * kvStride + kvOff;
          for (let c = 0; c < hd; c++) acc[c] = acc[c]! + p * v[vo + c]!;
        }
        for (let c = 0; c < hd; c++) out[qo + c] = acc[c]! / z;
        if (lse !== null) lse[(qStart + i) * nHeads + h] = mx + Math.log(z);
      }
    }
  }
}

/** dq, dk, dv overwritten on the rows the sequences cover. */
export function attentionBackward(dq: Vec, dk: Vec, dv: Vec, dout: Vec, q: Vec, k: Vec, v: Vec, out: Vec, lse: Vec,
                                  seqs: SeqTable, nHeads: number, nKvHeads: number, hd: number): void {
  const group = nHeads / nKvHeads, scale = 1 / Math.sqrt(hd);
  const qStride = nHeads * hd, kvStride = nKvHeads * hd;
  const nSeq = seqs.length / 4;
  for (let b = 0; b < nSeq; b++) {
    const qStart = seqs[4 * b]!, nq = seqs[4 * b + 1]!, kvStart = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    dq.fill(0, qStart * qStride, (qStart + nq) * qStride);
    dk.fill(0, kvStart * kvStride, (kvStart + past + nq) * kvStride);
    dv.fill(0, kvStart * kvStride, (kvStart + past + nq) * kvStride);
  }
  for (let b = 0; b < nSeq; b++) {
    const qStart = seqs[4 * b]!, nq = seqs[4 * b + 1]!, kvStart = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    for (let h = 0; h < nHeads; h++) {
      const kvOff = Math.floor(h / group) * hd;
      for (let i = 0; i < nq; i++) {
        const qo = (qStart + i) * qStride + h * hd, nk = past + i + 1;
        const l = lse[(qStart + i) * nHeads + h]!;
        let dd = 0; // D = dout · out
        for (let c = 0; c < hd; c++) dd += dout[qo + c]! * out[qo + c]!;
        for (let j = 0; j < nk; j++) {
          const ko = (kvStart + j) * kvStride + kvOff;
          let sdot = 0, dp = 0;
          for (let c = 0; c < hd; c++) {
            sdot += q[qo + c]! * k[ko + c]!;
            dp += dout[qo + c]! * v[ko + c]!;
          }
          const p = Math.exp(sdot * scale - l);
          const ds = p * (dp - dd) * scale;
          for (let c = 0; c < hd; c++) {
            dq[qo + c] = dq[qo + c]! + ds * k[ko + c]!;
            dk[ko + c] = dk[ko + c]! + ds * q[qo + c]!;
            dv[ko + c] = dv[ko + c]! + p * dout[qo + c]!;
          }
        }
      }
    }
  }
}

function maxKeys(seqs: SeqTable): number {
  let m = 1;
  for (let b = 0; b < seqs.length / 4; b++) m = Math.max(m, seqs[4 * b + 1]! + seqs[4 * b + 3]!);
  return m;
}
