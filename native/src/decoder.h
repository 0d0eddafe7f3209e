// The whole decoder forward of a KV-cache append in one native call (src/model/kv-cache.ts):
// embedding, every layer (RMSNorm, q/k/v with optional biases, RoPE, cache write, attention
// against the channel-major cache, o, RMSNorm, SwiGLU MLP, residual adds) and the final norm and
// LM head on each sequence's last new token. The same kernels the per-op path calls run in the
// same order, so the two agree to the last bit; what this saves is ~15 N-API crossings, their
// argument checks and a dozen JS allocations per layer per decode step.
#pragma once
#include <cstdint>

namespace seed {

struct DecoderLayer {
  const float *input_norm, *q, *q_bias, *k, *k_bias, *v, *v_bias, *o, *post_norm, *gate, *up, *down;  // biases may be null
  float *kc, *vc;  // [batch, KV, cap]
};

struct DecoderDims {
  int64_t D, F, H, Hkv, hd, V, cap, layers;
  float eps;
  double theta;
};

// ids, positions: [n]; seqs: nseq x [q_start, nq, row, past]; logits: [nseq, V] after each
// sequence's last new token (row q_start + nq - 1).
void decoder_forward(float* logits, const int32_t* ids, const int32_t* positions, int64_t n, const int32_t* seqs, int64_t nseq,
                     const float* embed, const float* final_norm, const float* head, const DecoderLayer* layers, const DecoderDims& d);

}  // namespace seed
