// LM head + log-softmax + gather (see lm_head.h). The head weight is prepared (bf16 conversion)
// once per call; each chunk of rows runs one logits GEMM, then the row-wise softmax work on up to
// max_threads() threads, and in the backward two more GEMMs (dh = dlogits·W, dW += dlogitsᵀ·h).
#include "lm_head.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common.h"
#include "matmul.h"

namespace seed {
namespace {

// Budget of one chunk of logits; a chunk never exceeds kMaxChunkRows rows.
constexpr int64_t kChunkBytes = int64_t(32) << 20;
constexpr int64_t kMaxChunkRows = 2048;

thread_local std::vector<float> t_logits, t_wf, t_hf, t_gf;
thread_local std::vector<uint16_t> t_w16, t_h16, t_g16;

int64_t chunk_rows(int64_t rows, int64_t V) {
  return std::max<int64_t>(1, std::min({rows, kMaxChunkRows, kChunkBytes / (V * int64_t(sizeof(float)))}));
}

inline bool is_restricted(const uint8_t* restricted, int64_t r) { return restricted != nullptr && restricted[r] != 0; }

int row_threads(int64_t n, int64_t V) { return n * V >= (int64_t(1) << 17) ? max_threads() : 1; }


// Log-sum-exp of one row of logits (over the allowed ids when restricted).
float row_lse(const float* row, int64_t r, int64_t V, const uint8_t* restricted, const int32_t* offsets, const int32_t* ids) {
  float mx = -INFINITY, z = 0.f;
  if (is_restricted(restricted, r)) {
    for (int32_t a = offsets[r]; a < offsets[r + 1]; a++) mx = std::max(mx, row[ids[a]]);
    for (int32_t a = offsets[r]; a < offsets[r + 1]; a++) z += fast_exp(row[ids[a]] - mx);
  } else {
    for (int64_t j = 0; j < V; j++) mx = std::max(mx, row[j]);
    for (int64_t j = 0; j < V; j++) z += fast_exp(row[j] - mx);
  }
  return mx + std::log(z);
}

// Turns one row of logits into d(w·logp)/d logits = w · (onehot(target) − softmax), in place.
void row_grad(float* row, int64_t r, int64_t V, float wr, float l, int32_t target, const uint8_t* restricted,
              const int32_t* offsets, const int32_t* ids) {
  if (wr == 0.f) {
    std::fill(row, row + V, 0.f);
  } else if (is_restricted(restricted, r)) {
    // Only the allowed ids carry gradient: gather their probabilities, clear, scatter back.
    const int32_t a0 = offsets[r], a1 = offsets[r + 1];
    std::vector<float> p(size_t(a1 - a0));
    for (int32_t a = a0; a < a1; a++) p[size_t(a - a0)] = fast_exp(row[ids[a]] - l);
    std::fill(row, row + V, 0.f);
    for (int32_t a = a0; a < a1; a++) row[ids[a]] = -wr * p[size_t(a - a0)];
    row[target] += wr;
  } else {
    for (int64_t j = 0; j < V; j++) row[j] = -wr * fast_exp(row[j] - l);
    row[target] += wr;
  }
}

// One chunk of the LM head: logits GEMM, then per row lse/logp (when `forward`) and the gradient
// (when `weights`), then dh = g·W and dW += gᵀ·h.
void chunk(int64_t r0, int64_t n, float* logp, float* lse, float* dh, float* dw, const float* h, const void* pw,
           const int32_t* targets, const float* weights, int64_t D, int64_t V, const uint8_t* restricted,
           const int32_t* offsets, const int32_t* ids, bool bf16, bool forward) {
  float* g = scratch(t_logits, size_t(n * V));
  const bool nb = native_bf16(bf16);
  const void* ph = prepare_operand(h + r0 * D, size_t(n * D), bf16, t_h16, t_hf);
  matmul_raw(g, ph, pw, n, V, D, false, true, false, nb);
#pragma omp parallel for num_threads(row_threads(n, V)) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const int64_t r = r0 + i;
    float* row = g + i * V;
    if (forward) {
      lse[r] = row_lse(row, r, V, restricted, offsets, ids);
      logp[r] = row[targets[r]] - lse[r];
    }
    if (weights != nullptr) row_grad(row, r, V, weights[r], lse[r], targets[r], restricted, offsets, ids);
  }
  if (weights == nullptr) return;
  const void* pg = prepare_operand(g, size_t(n * V), bf16, t_g16, t_gf);
  matmul_raw(dh + r0 * D, pg, pw, n, D, V, false, false, false, nb);
  matmul_raw(dw, pg, ph, V, D, n, true, false, true, nb);
}

}  // namespace

void lm_head_forward(float* logp, float* lse, const float* h, const float* w, const int32_t* targets,
                     int64_t rows, int64_t D, int64_t V, const uint8_t* restricted, const int32_t* offsets,
                     const int32_t* ids, bool bf16) {
  const int64_t R = chunk_rows(rows, V);
  const void* pw = prepare_operand(w, size_t(V * D), bf16, t_w16, t_wf);
  for (int64_t r0 = 0; r0 < rows; r0 += R)
    chunk(r0, std::min(R, rows - r0), logp, lse, nullptr, nullptr, h, pw, targets, nullptr, D, V, restricted, offsets, ids, bf16, true);
}

void lm_head_backward(float* dh, float* dw, const float* h, const float* w, const int32_t* targets,
                      const float* weights, const float* lse, int64_t rows, int64_t D, int64_t V,
                      const uint8_t* restricted, const int32_t* offsets, const int32_t* ids, bool bf16) {
  const int64_t R = chunk_rows(rows, V);
  const void* pw = prepare_operand(w, size_t(V * D), bf16, t_w16, t_wf);
  for (int64_t r0 = 0; r0 < rows; r0 += R)
    chunk(r0, std::min(R, rows - r0), nullptr, const_cast<float*>(lse), dh, dw, h, pw, targets, weights, D, V, restricted, offsets, ids, bf16, false);
}

void lm_head_train(float* logp, float* lse, float* dh, float* dw, const float* h, const float* w,
                   const int32_t* targets, const float* weights, int64_t rows, int64_t D, int64_t V,
                   const uint8_t* restricted, const int32_t* offsets, const int32_t* ids, bool bf16) {
  const int64_t R = chunk_rows(rows, V);
  const void* pw = prepare_operand(w, size_t(V * D), bf16, t_w16, t_wf);
  for (int64_t r0 = 0; r0 < rows; r0 += R)
    chunk(r0, std::min(R, rows - r0), logp, lse, dh, dw, h, pw, targets, weights, D, V, restricted, offsets, ids, bf16, true);
}

}  // namespace seed
