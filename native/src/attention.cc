// Causal GQA attention (see attention.h). Queries are processed in blocks of kBlock rows; a block
// multiplies against only the keys its last row can see, so the masked upper half of the score
// matrix is skipped up to one block's triangle. Scores live in a per-thread [kBlock, keys] buffer.
// The small GEMMs go through dnnl_sgemm (row-major, strided, single-threaded inside the OpenMP
// task loop); the forward runs one task per (sequence, head), the backward one per (sequence,
// kv head) so that the dk/dv rows of a task are written by that task alone.
#include "attention.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <dnnl.h>

#include "common.h"

namespace seed {
namespace {

constexpr int64_t kBlock = 64;
// Below this many multiply-adds the whole call runs on one thread.
constexpr int64_t kParallelMacs = int64_t(1) << 22;

thread_local std::vector<float> t_s, t_dp;

struct Seq {
  int64_t q_start, nq, kv_start, past;
};

inline Seq seq_at(const int32_t* seqs, int64_t b) {
  return {seqs[4 * b], seqs[4 * b + 1], seqs[4 * b + 2], seqs[4 * b + 3]};
}

int threads_for(const int32_t* seqs, int64_t nseq, int64_t H, int64_t hd) {
  int64_t macs = 0;
  for (int64_t b = 0; b < nseq; b++) {
    Seq s = seq_at(seqs, b);
    macs += s.nq * (s.past + s.nq) * H * hd;
  }
  return macs >= kParallelMacs ? max_threads() : 1;
}

// Scores of one block: S[nr, L] = scale * Qb · K[0:L]^T, then causal softmax in place (masked
// entries set to 0). Row i of the block sits at absolute position first_pos + i. Returns lse per row.
void block_probs(float* S, float* lse_out, const float* Qb, int64_t ldq, const float* Kb, int64_t ldk,
                 int64_t nr, int64_t L, int64_t hd, int64_t first_pos, float scale, const float* lse_in) {
  dnnl_sgemm('N', 'T', nr, L, hd, scale, Qb, ldq, Kb, ldk, 0.f, S, L);
  for (int64_t i = 0; i < nr; i++) {
    float* row = S + i * L;
    const int64_t valid = first_pos + i + 1;
    float l;
    if (lse_in != nullptr) {
      l = lse_in[i];
    } else {
      float mx = -INFINITY;
      for (int64_t j = 0; j < valid; j++) mx = std::max(mx, row[j]);
      float z = 0.f;
      for (int64_t j = 0; j < valid; j++) z += fast_exp(row[j] - mx);
      l = mx + std::log(z);
      lse_out[i] = l;
    }
    for (int64_t j = 0; j < valid; j++) row[j] = fast_exp(row[j] - l);
    for (int64_t j = valid; j < L; j++) row[j] = 0.f;
  }
}

// One query row (a decode step): plain loops beat two GEMM calls of height 1.
void single_query(float* o, float* lse_out, float* S, const float* qr, const float* Kb, const float* Vb, int64_t ldk,
                  int64_t L, int64_t hd, float scale) {
  float mx = -INFINITY;
  for (int64_t j = 0; j < L; j++) {
    const float* kr = Kb + j * ldk;
    float d = 0.f;
    for (int64_t c = 0; c < hd; c++) d += qr[c] * kr[c];
    S[j] = d * scale;
    mx = std::max(mx, S[j]);
  }
  float z = 0.f;
  for (int64_t j = 0; j < L; j++) {
    S[j] = fast_exp(S[j] - mx);
    z += S[j];
  }
  const float inv = 1.f / z;
  std::fill(o, o + hd, 0.f);
  for (int64_t j = 0; j < L; j++) {
    const float* vr = Vb + j * ldk;
    const float p = S[j] * inv;
    for (int64_t c = 0; c < hd; c++) o[c] += p * vr[c];
  }
  if (lse_out != nullptr) *lse_out = mx + std::log(z);
}

}  // namespace

void attention_forward(float* out, float* lse, const float* q, const float* k, const float* v,
                       const int32_t* seqs, int64_t nseq, int64_t H, int64_t Hkv, int64_t hd) {
  const int64_t ldq = H * hd, ldk = Hkv * hd, group = H / Hkv;
  const float scale = 1.0f / std::sqrt(float(hd));
  const int nthr = threads_for(seqs, nseq, H, hd);
#pragma omp parallel for num_threads(nthr) schedule(dynamic, 1)
  for (int64_t task = 0; task < nseq * H; task++) {
    const Seq s = seq_at(seqs, task / H);
    const int64_t h = task % H, g = h / group;
    float* S = scratch(t_s, size_t(kBlock * (s.past + s.nq)));
    float lse_blk[kBlock];
    if (s.nq == 1) {
      single_query(out + s.q_start * ldq + h * hd, lse == nullptr ? nullptr : lse + s.q_start * H + h, S,
                   q + s.q_start * ldq + h * hd, k + s.kv_start * ldk + g * hd, v + s.kv_start * ldk + g * hd, ldk,
                   s.past + 1, hd, scale);
      continue;
    }
    for (int64_t r0 = 0; r0 < s.nq; r0 += kBlock) {
      const int64_t nr = std::min(kBlock, s.nq - r0), L = s.past + r0 + nr;
      const float* Qb = q + (s.q_start + r0) * ldq + h * hd;
      block_probs(S, lse_blk, Qb, ldq, k + s.kv_start * ldk + g * hd, ldk, nr, L, hd, s.past + r0, scale, nullptr);
      dnnl_sgemm('N', 'N', nr, hd, L, 1.f, S, L, v + s.kv_start * ldk + g * hd, ldk, 0.f,
                 out + (s.q_start + r0) * ldq + h * hd, ldq);
      if (lse != nullptr)
        for (int64_t i = 0; i < nr; i++) lse[(s.q_start + r0 + i) * H + h] = lse_blk[i];
    }
  }
}

void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                        const float* v, const float* out, const float* lse, const int32_t* seqs, int64_t nseq,
                        int64_t H, int64_t Hkv, int64_t hd) {
  const int64_t ldq = H * hd, ldk = Hkv * hd, group = H / Hkv;
  const float scale = 1.0f / std::sqrt(float(hd));
  const int nthr = threads_for(seqs, nseq, H, hd);
#pragma omp parallel for num_threads(nthr) schedule(dynamic, 1)
  for (int64_t task = 0; task < nseq * Hkv; task++) {
    const Seq s = seq_at(seqs, task / Hkv);
    const int64_t g = task % Hkv, nk = s.past + s.nq;
    float* dKb = dk + s.kv_start * ldk + g * hd;
    float* dVb = dv + s.kv_start * ldk + g * hd;
    for (int64_t j = 0; j < nk; j++) {
      std::fill(dKb + j * ldk, dKb + j * ldk + hd, 0.f);
      std::fill(dVb + j * ldk, dVb + j * ldk + hd, 0.f);
    }
    const float* Kb = k + s.kv_start * ldk + g * hd;
    const float* Vb = v + s.kv_start * ldk + g * hd;
    float* P = scratch(t_s, size_t(kBlock * nk));
    float* dS = scratch(t_dp, size_t(kBlock * nk));
    float lse_blk[kBlock], D[kBlock];
    for (int64_t h = g * group; h < (g + 1) * group; h++) {
      for (int64_t r0 = 0; r0 < s.nq; r0 += kBlock) {
        const int64_t nr = std::min(kBlock, s.nq - r0), L = s.past + r0 + nr;
        const int64_t qoff = (s.q_start + r0) * ldq + h * hd;
        for (int64_t i = 0; i < nr; i++) {
          lse_blk[i] = lse[(s.q_start + r0 + i) * H + h];
          float d = 0.f;
          for (int64_t c = 0; c < hd; c++) d += dout[qoff + i * ldq + c] * out[qoff + i * ldq + c];
          D[i] = d;
        }
        block_probs(P, nullptr, q + qoff, ldq, Kb, ldk, nr, L, hd, s.past + r0, scale, lse_blk);
        dnnl_sgemm('N', 'T', nr, L, hd, 1.f, dout + qoff, ldq, Vb, ldk, 0.f, dS, L);  // dP
        for (int64_t i = 0; i < nr; i++)
          for (int64_t j = 0; j < L; j++) dS[i * L + j] = P[i * L + j] * (dS[i * L + j] - D[i]);
        dnnl_sgemm('N', 'N', nr, hd, L, scale, dS, L, Kb, ldk, 0.f, dq + qoff, ldq);
        dnnl_sgemm('T', 'N', L, hd, nr, scale, dS, L, q + qoff, ldq, 1.f, dKb, ldk);
        dnnl_sgemm('T', 'N', L, hd, nr, 1.f, P, L, dout + qoff, ldq, 1.f, dVb, ldk);
      }
    }
  }
}

}  // namespace seed
