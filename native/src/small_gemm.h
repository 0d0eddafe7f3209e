// A single-threaded f32 GEMM for the thin products of decoding and small prefills,
// C[m, n] (+)= A[m, k] · B[n, k]^T (a Linear layer, y = x W^T), where oneDNN's per-call overhead
// and packing of B cost more than the arithmetic (m = 32 rows against d = 96 weights).
#pragma once
#include <cstdint>

namespace seed {

// True when this build has the kernel (AVX-512); elsewhere matmul keeps using oneDNN.
bool small_gemm_available();
void small_gemm_nt(float* c, const float* a, const float* b, int64_t m, int64_t n, int64_t k, bool accumulate);

}  // namespace seed
