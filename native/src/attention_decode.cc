// Causal GQA attention of new tokens against a KV cache stored channel-major (attention_decode.h).
//
// Why channel-major: a decode query (one row per sequence) at head size 24 costs two dot products
// of length 24 per cached key in a row-major cache, each ending in a horizontal reduction: ~14x
// its arithmetic in the old single-query loop. With the cache laid out [row][channel][position],
// the scores of 16 consecutive keys are 24 vertical FMAs (one broadcast query value each), and the
// output channel c is one long dot product over positions, so every inner loop runs along
// contiguous memory. Up to four queries (the heads of a kv group, and the positions of a prefill)
// share each load of K and V.
#include "attention_decode.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
// GCC 12 flags the intrinsics' own _mm512_undefined_ps as maybe-uninitialized (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "common.h"

namespace seed {
namespace {

constexpr int kQ = 4;  // (position, head) queries per block, sharing each load of K and V
// Above this many multiply-adds the (sequence, kv head) tasks go to every thread. Low, because the
// OpenMP worker spins briefly between calls (src/engine/native.ts) instead of sleeping: a batch-32
// decode step of the bench model (~650k) went from 7.8-8.8k to 9.4-10.4k tok/s against 2^20.
// Each task is one thread's work whatever the count, so results do not depend on it.
constexpr int64_t kParallelMacs = int64_t(1) << 16;
thread_local std::vector<float> t_p;

// S[b][0:L] = scale * q_b · K[:, 0:L] for nb queries (K channel-major: K[c * cap + j]). Keys go in
// blocks of 16 * NC so that nb * NC independent FMA chains hide the FMA latency (a single query
// gets 4 chains, not 1).
template <int nb>
void scores(float* S, int64_t ldS, const float* const* qs, const float* K, int64_t cap, int64_t L, int64_t hd, float scale) {
#if defined(__AVX512F__)
  constexpr int NC = 4;
  const __m512 sc = _mm512_set1_ps(scale);
  int64_t j0 = 0;
  for (; j0 + 16 * NC <= L; j0 += 16 * NC) {
    __m512 a[nb][NC];
    for (int b = 0; b < nb; b++)
      for (int u = 0; u < NC; u++) a[b][u] = _mm512_setzero_ps();
    for (int64_t c = 0; c < hd; c++) {
      const float* kr = K + c * cap + j0;
      __m512 kv[NC];
      for (int u = 0; u < NC; u++) kv[u] = _mm512_loadu_ps(kr + 16 * u);
      for (int b = 0; b < nb; b++) {
        const __m512 qv = _mm512_set1_ps(qs[b][c]);
        for (int u = 0; u < NC; u++) a[b][u] = _mm512_fmadd_ps(qv, kv[u], a[b][u]);
      }
    }
    for (int b = 0; b < nb; b++)
      for (int u = 0; u < NC; u++) _mm512_storeu_ps(S + b * ldS + j0 + 16 * u, _mm512_mul_ps(a[b][u], sc));
  }
  for (; j0 < L; j0 += 16) {
    const int64_t w = std::min<int64_t>(16, L - j0);
    const __mmask16 m = __mmask16((1u << w) - 1u);
    __m512 a[nb];
    for (int b = 0; b < nb; b++) a[b] = _mm512_setzero_ps();
    for (int64_t c = 0; c < hd; c++) {
      const __m512 k0 = _mm512_maskz_loadu_ps(m, K + c * cap + j0);
      for (int b = 0; b < nb; b++) a[b] = _mm512_fmadd_ps(_mm512_set1_ps(qs[b][c]), k0, a[b]);
    }
    for (int b = 0; b < nb; b++) _mm512_mask_storeu_ps(S + b * ldS + j0, m, _mm512_mul_ps(a[b], sc));
  }
#else
  for (int b = 0; b < nb; b++) {
    float* s = S + b * ldS;
    std::fill(s, s + L, 0.f);
    for (int64_t c = 0; c < hd; c++) {
      const float qc = qs[b][c] * scale;
      const float* kr = K + c * cap;
      for (int64_t j = 0; j < L; j++) s[j] += qc * kr[j];
    }
  }
#endif
}

// o_b[c] = sum_j P[b][j] * V[c * cap + j] for c < hd, j < L (V channel-major); NU partial sums
// per query break the FMA dependency chain.
template <int nb>
void weighted_values(float* const* os, const float* P, int64_t ldP, const float* V, int64_t cap, int64_t L, int64_t hd) {
#if defined(__AVX512F__)
  constexpr int NU = nb <= 2 ? 4 : 2;
  for (int64_t c = 0; c < hd; c++) {
    const float* vr = V + c * cap;
    __m512 a[nb][NU];
    for (int b = 0; b < nb; b++)
      for (int u = 0; u < NU; u++) a[b][u] = _mm512_setzero_ps();
    int64_t j = 0;
    for (; j + 16 * NU <= L; j += 16 * NU) {
      for (int u = 0; u < NU; u++) {
        const __m512 v = _mm512_loadu_ps(vr + j + 16 * u);
        for (int b = 0; b < nb; b++) a[b][u] = _mm512_fmadd_ps(_mm512_loadu_ps(P + b * ldP + j + 16 * u), v, a[b][u]);
      }
    }
    for (; j < L; j += 16) {
      const int64_t w = std::min<int64_t>(16, L - j);
      const __mmask16 m = __mmask16((1u << w) - 1u);
      const __m512 v = _mm512_maskz_loadu_ps(m, vr + j);
      for (int b = 0; b < nb; b++) a[b][0] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, P + b * ldP + j), v, a[b][0]);
    }
    for (int b = 0; b < nb; b++) {
      __m512 t = a[b][0];
      for (int u = 1; u < NU; u++) t = _mm512_add_ps(t, a[b][u]);
      os[b][c] = _mm512_reduce_add_ps(t);
    }
  }
#else
  for (int64_t c = 0; c < hd; c++) {
    const float* vr = V + c * cap;
    for (int b = 0; b < nb; b++) {
      const float* p = P + b * ldP;
      float a = 0.f;
      for (int64_t j = 0; j < L; j++) a += p[j] * vr[j];
      os[b][c] = a;
    }
  }
#endif
}

// The largest of s[0:n] (n >= 1). std::max's NaN rules keep GCC from vectorising the plain loop.
float row_max(const float* s, int64_t n) {
#if defined(__AVX512F__)
  __m512 m = _mm512_set1_ps(-INFINITY);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(s + j));
  if (j < n) m = _mm512_mask_max_ps(m, __mmask16((1u << (n - j)) - 1u), m, _mm512_maskz_loadu_ps(__mmask16((1u << (n - j)) - 1u), s + j));
  return _mm512_reduce_max_ps(m);
#else
  float mx = -INFINITY;
  for (int64_t j = 0; j < n; j++) mx = std::max(mx, s[j]);
  return mx;
#endif
}

// Softmax of s[0:valid] in place, zeros in s[valid:L].
void softmax_row(float* s, int64_t valid, int64_t L) {
  const float mx = row_max(s, valid);
  float z = 0.f;
  for (int64_t j = 0; j < valid; j++) {
    const float e = fast_exp(s[j] - mx);
    s[j] = e;
    z += e;
  }
  const float inv = 1.f / z;
  for (int64_t j = 0; j < valid; j++) s[j] *= inv;
  for (int64_t j = valid; j < L; j++) s[j] = 0.f;
}

}  // namespace

void kv_write(float* kc, float* vc, const float* k, const float* v, const int32_t* seqs, int64_t nseq, int64_t KV, int64_t cap) {
  for (int64_t b = 0; b < nseq; b++) {
    const int64_t qs = seqs[4 * b], nq = seqs[4 * b + 1], row = seqs[4 * b + 2], past = seqs[4 * b + 3];
    float* kr = kc + row * KV * cap;
    float* vr = vc + row * KV * cap;
    for (int64_t i = 0; i < nq; i++) {
      const float* ks = k + (qs + i) * KV;
      const float* vs = v + (qs + i) * KV;
      const int64_t p = past + i;
      for (int64_t c = 0; c < KV; c++) {
        kr[c * cap + p] = ks[c];
        vr[c * cap + p] = vs[c];
      }
    }
  }
}

void attention_decode(float* out, const float* q, const float* kc, const float* vc, const int32_t* seqs, int64_t nseq,
                      int64_t H, int64_t Hkv, int64_t hd, int64_t cap) {
  const int64_t ldq = H * hd, KV = Hkv * hd, group = H / Hkv;
  const float scale = 1.0f / std::sqrt(float(hd));
  int64_t macs = 0;
  for (int64_t b = 0; b < nseq; b++) macs += seqs[4 * b + 1] * (seqs[4 * b + 3] + seqs[4 * b + 1]) * H * hd;
  const int nthr = macs >= kParallelMacs ? max_threads() : 1;
  // One task per (sequence, kv head): the query heads of its group read the same keys and values,
  // so they go through the kernels together. A block is up to kQ (position, head) pairs, in order.
#pragma omp parallel for num_threads(nthr) schedule(dynamic, 1)
  for (int64_t task = 0; task < nseq * Hkv; task++) {
    const int64_t b = task / Hkv, g = task % Hkv;
    const int64_t qs = seqs[4 * b], nq = seqs[4 * b + 1], row = seqs[4 * b + 2], past = seqs[4 * b + 3];
    const float* K = kc + (row * KV + g * hd) * cap;
    const float* V = vc + (row * KV + g * hd) * cap;
    const int64_t ldS = past + nq + 16;  // room for a masked tail
    float* S = scratch(t_p, size_t(kQ * ldS));
    const int64_t pairs = nq * group;
    for (int64_t p0 = 0; p0 < pairs; p0 += kQ) {
      const int nb = int(std::min<int64_t>(kQ, pairs - p0));
      const float* qp[kQ];
      float* op[kQ];
      int64_t valid[kQ];
      int64_t L = 0;
      for (int bq = 0; bq < nb; bq++) {
        const int64_t i = (p0 + bq) / group, h = g * group + (p0 + bq) % group;
        qp[bq] = q + (qs + i) * ldq + h * hd;
        op[bq] = out + (qs + i) * ldq + h * hd;
        valid[bq] = past + i + 1;
        L = std::max(L, valid[bq]);
      }
      switch (nb) {
        case 1: scores<1>(S, ldS, qp, K, cap, L, hd, scale); break;
        case 2: scores<2>(S, ldS, qp, K, cap, L, hd, scale); break;
        case 3: scores<3>(S, ldS, qp, K, cap, L, hd, scale); break;
        default: scores<4>(S, ldS, qp, K, cap, L, hd, scale); break;
      }
      for (int bq = 0; bq < nb; bq++) softmax_row(S + bq * ldS, valid[bq], L);
      switch (nb) {
        case 1: weighted_values<1>(op, S, ldS, V, cap, L, hd); break;
        case 2: weighted_values<2>(op, S, ldS, V, cap, L, hd); break;
        case 3: weighted_values<3>(op, S, ldS, V, cap, L, hd); break;
        default: weighted_values<4>(op, S, ldS, V, cap, L, hd); break;
      }
    }
  }
}

}  // namespace seed
