// The fused decoder forward (decoder.h). Activations live in per-thread buffers that only grow, so
// a decode step allocates nothing.
#include "decoder.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "attention_decode.h"
#include "common.h"
#include "elementwise.h"
#include "matmul.h"

namespace seed {
namespace {

thread_local std::vector<float> t_x, t_xn, t_q, t_k, t_v, t_a, t_gate, t_up, t_h, t_inv, t_last;

// y[rows, out] = x[rows, in] W^T (+ bias), the bias laid down first and the product accumulated
// onto it, as src/model/transformer.ts `linear` does.
void linear(float* y, const float* x, const float* w, const float* bias, int64_t rows, int64_t out, int64_t in) {
  if (bias != nullptr)
    for (int64_t r = 0; r < rows; r++) std::memcpy(y + r * out, bias, size_t(out) * sizeof(float));
  matmul(y, x, w, rows, out, in, false, true, bias != nullptr, false);
}

}  // namespace

void decoder_forward(float* logits, const int32_t* ids, const int32_t* positions, int64_t n, const int32_t* seqs, int64_t nseq,
                     const float* embed, const float* final_norm, const float* head, const DecoderLayer* layers, const DecoderDims& d) {
  const int64_t D = d.D, F = d.F, Q = d.H * d.hd, KV = d.Hkv * d.hd;
  float* x = scratch(t_x, size_t(n * D));
  float* xn = scratch(t_xn, size_t(n * D));
  float* q = scratch(t_q, size_t(n * Q));
  float* k = scratch(t_k, size_t(n * KV));
  float* v = scratch(t_v, size_t(n * KV));
  float* a = scratch(t_a, size_t(n * Q));
  float* gate = scratch(t_gate, size_t(n * F));
  float* up = scratch(t_up, size_t(n * F));
  float* h = scratch(t_h, size_t(n * F));
  float* inv = scratch(t_inv, size_t(std::max(n, nseq)));
  for (int64_t r = 0; r < n; r++) std::memcpy(x + r * D, embed + int64_t(ids[r]) * D, size_t(D) * sizeof(float));
  for (int64_t l = 0; l < d.layers; l++) {
    const DecoderLayer& w = layers[l];
    rmsnorm_forward(xn, inv, x, w.input_norm, n, D, d.eps);
    linear(q, xn, w.q, w.q_bias, n, Q, D);
    linear(k, xn, w.k, w.k_bias, n, KV, D);
    linear(v, xn, w.v, w.v_bias, n, KV, D);
    rope(q, positions, n, d.H, d.hd, d.theta, false);
    rope(k, positions, n, d.Hkv, d.hd, d.theta, false);
    kv_write(w.kc, w.vc, k, v, seqs, nseq, KV, d.cap);
    attention_decode(a, q, w.kc, w.vc, seqs, nseq, d.H, d.Hkv, d.hd, d.cap);
    matmul(x, a, w.o, n, D, Q, false, true, true, false);
    rmsnorm_forward(xn, inv, x, w.post_norm, n, D, d.eps);
    matmul(gate, xn, w.gate, n, F, D, false, true, false, false);
    matmul(up, xn, w.up, n, F, D, false, true, false, false);
    swiglu_forward(h, gate, up, n * F);
    matmul(x, h, w.down, n, D, F, false, true, true, false);
  }
  float* last = scratch(t_last, size_t(2 * nseq * D));
  float* lastn = last + nseq * D;
  for (int64_t b = 0; b < nseq; b++) {
    const int64_t row = int64_t(seqs[4 * b]) + seqs[4 * b + 1] - 1;
    std::memcpy(last + b * D, x + row * D, size_t(D) * sizeof(float));
  }
  rmsnorm_forward(lastn, inv, last, final_norm, nseq, D, d.eps);
  matmul(logits, lastn, head, nseq, d.V, D, false, true, false, false);
}

}  // namespace seed
