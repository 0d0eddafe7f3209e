// The small GEMM of small_gemm.h. Tiles of 4 rows of A x 4 rows of B: 16 dot products of length k
// in 16 zmm accumulators, each step one load of every row (8 loads, 16 FMAs), the k tail masked.
// The 16 accumulators are then summed lane-wise in one go (a transpose-and-add tree: 15 adds and
// 24 shuffles for 16 results, instead of 16 separate horizontal reductions). The tile of B stays
// in L1 while the loop runs over all of A (which is small here by construction).
#include "small_gemm.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <omp.h>

#include <algorithm>

#include "common.h"

namespace seed {

#if defined(__AVX512F__)
namespace {

// w[i] = sum of the 16 lanes of v[i], i < 16.
inline __m512 reduce16(const __m512* v) {
  __m512 t[8], s[4];
  for (int p = 0; p < 8; p++)
    t[p] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * p], v[2 * p + 1]), _mm512_unpackhi_ps(v[2 * p], v[2 * p + 1]));
  for (int q = 0; q < 4; q++)
    s[q] = _mm512_add_ps(_mm512_shuffle_ps(t[2 * q], t[2 * q + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_ps(t[2 * q], t[2 * q + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512 r01 = _mm512_add_ps(_mm512_shuffle_f32x4(s[0], s[1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(s[0], s[1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512 r23 = _mm512_add_ps(_mm512_shuffle_f32x4(s[2], s[3], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(s[2], s[3], _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm512_add_ps(_mm512_shuffle_f32x4(r01, r23, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(r01, r23, _MM_SHUFFLE(3, 1, 3, 1)));
}

}  // namespace

bool small_gemm_available() { return true; }

// Above this many multiply-adds the column tiles are split across the engine's threads.
constexpr int64_t kParallelMacs = int64_t(1) << 19;

void small_gemm_nt(float* c, const float* a, const float* b, int64_t m, int64_t n, int64_t k, bool accumulate) {
  const int64_t kfull = k & ~int64_t(15);
  const __mmask16 tail = __mmask16((1u << (k - kfull)) - 1u);
  const int nthr = m * n * k >= kParallelMacs && n >= 32 ? max_threads() : 1;
#pragma omp parallel for num_threads(nthr) schedule(static)
  for (int64_t j0 = 0; j0 < n; j0 += 4) {
    const int nj = int(std::min<int64_t>(4, n - j0));
    const float* br[4];
    for (int q = 0; q < 4; q++) br[q] = b + std::min<int64_t>(j0 + q, n - 1) * k;  // a short tile repeats its last row
    for (int64_t i0 = 0; i0 < m; i0 += 4) {
      const int mi = int(std::min<int64_t>(4, m - i0));
      const float* ar[4];
      for (int r = 0; r < 4; r++) ar[r] = a + std::min<int64_t>(i0 + r, m - 1) * k;
      __m512 acc[16];
      for (int x = 0; x < 16; x++) acc[x] = _mm512_setzero_ps();
      for (int64_t kk = 0; kk < kfull; kk += 16) {
        __m512 av[4], bv[4];
        for (int r = 0; r < 4; r++) av[r] = _mm512_loadu_ps(ar[r] + kk);
        for (int q = 0; q < 4; q++) bv[q] = _mm512_loadu_ps(br[q] + kk);
        for (int r = 0; r < 4; r++)
          for (int q = 0; q < 4; q++) acc[4 * r + q] = _mm512_fmadd_ps(av[r], bv[q], acc[4 * r + q]);
      }
      if (kfull < k) {
        __m512 av[4], bv[4];
        for (int r = 0; r < 4; r++) av[r] = _mm512_maskz_loadu_ps(tail, ar[r] + kfull);
        for (int q = 0; q < 4; q++) bv[q] = _mm512_maskz_loadu_ps(tail, br[q] + kfull);
        for (int r = 0; r < 4; r++)
          for (int q = 0; q < 4; q++) acc[4 * r + q] = _mm512_fmadd_ps(av[r], bv[q], acc[4 * r + q]);
      }
      alignas(64) float w[16];
      _mm512_store_ps(w, reduce16(acc));
      for (int r = 0; r < mi; r++) {
        float* cr = c + (i0 + r) * n + j0;
        for (int q = 0; q < nj; q++) cr[q] = accumulate ? cr[q] + w[4 * r + q] : w[4 * r + q];
      }
    }
  }
}

#else

bool small_gemm_available() { return false; }
void small_gemm_nt(float*, const float*, const float*, int64_t, int64_t, int64_t, bool) {}

#endif

}  // namespace seed
