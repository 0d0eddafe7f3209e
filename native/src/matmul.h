// Matmul through cached oneDNN primitives. C[m,n] (+)= op(A)·op(B), row-major, with transposes
// expressed as strides (no copies). bf16 inputs run a bf16 x bf16 -> f32 primitive (AMX or
// AVX-512 BF16 kernels); where the CPU has no bf16 kernel the inputs are rounded to bf16 and the
// f32 primitive runs, which gives the same products (exact in f32) at f32 speed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace seed {

// a, b are float* (bf16 == false) or uint16_t* bf16 bits (bf16 == true).
void matmul_raw(float* c, const void* a, const void* b, int64_t m, int64_t n, int64_t k,
                bool trans_a, bool trans_b, bool accumulate, bool bf16);

// f32 inputs; with bf16 they are converted into scratch first.
void matmul(float* c, const float* a, const float* b, int64_t m, int64_t n, int64_t k,
            bool trans_a, bool trans_b, bool accumulate, bool bf16);

// An operand ready for matmul_raw: `src` itself (f32), its bf16 bits (native bf16), or its
// bf16-rounded values in f32 (bf16 emulated). Pass `native_bf16(bf16)` as matmul_raw's flag.
const void* prepare_operand(const float* src, size_t n, bool bf16, std::vector<uint16_t>& bits, std::vector<float>& rounded);
bool native_bf16(bool bf16);

// True when a bf16 primitive exists on this CPU (else bf16 is emulated through f32).
bool bf16_supported();
// oneDNN's implementation name for an m x n x k matmul ("" when none).
std::string impl_name(int64_t m, int64_t n, int64_t k, bool bf16);
size_t cache_entries();

}  // namespace seed
