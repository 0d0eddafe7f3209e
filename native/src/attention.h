// Causal grouped-query attention over a sequence table (src/engine/kernels.ts `SeqTable`):
// forward saves the log-sum-exp per (query row, head); backward recomputes probabilities from it.
#pragma once
#include <cstdint>

namespace seed {

// q, out: [rows_q, H * hd]; k, v: [rows_kv, Hkv * hd]; lse: [rows_q, H] or null;
// seqs: nseq x [q_start, nq, kv_start, past].
void attention_forward(float* out, float* lse, const float* q, const float* k, const float* v,
                       const int32_t* seqs, int64_t nseq, int64_t H, int64_t Hkv, int64_t hd);
// dq, dk, dv overwritten on the rows the sequences cover.
void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                        const float* v, const float* out, const float* lse, const int32_t* seqs, int64_t nseq,
                        int64_t H, int64_t Hkv, int64_t hd);

}  // namespace seed
