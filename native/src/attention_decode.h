// Attention of new tokens against a per-row KV cache stored channel-major, for decoding
// (src/model/kv-cache.ts). Shapes:
//   q, out: [rows_q, H * hd]; kc, vc: [batch, KV, cap] with KV = Hkv * hd (per row, per channel,
//   positions contiguous); seqs: nseq x [q_start, nq, row, past]: query i of a sequence sits at
//   position past + i of cache row `row` and sees that row's keys 0 .. past + i.
// No log-sum-exp is kept: decoding never runs a backward.
#pragma once
#include <cstdint>

namespace seed {

// Writes the new keys and values (k, v: [rows_q, KV]) at positions past .. past + nq - 1 of each
// sequence's cache row.
void kv_write(float* kc, float* vc, const float* k, const float* v, const int32_t* seqs, int64_t nseq, int64_t KV, int64_t cap);

void attention_decode(float* out, const float* q, const float* kc, const float* vc, const int32_t* seqs, int64_t nseq,
                      int64_t H, int64_t Hkv, int64_t hd, int64_t cap);

}  // namespace seed
