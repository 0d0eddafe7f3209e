// Shared helpers of the seed native engine: bf16 conversion, a vectorisable exp, and the thread
// policy. The TypeScript facade (src/engine/engine.ts) validates every argument before any of this
// runs; the checks in addon.cc are only a second line of defence against out-of-bounds access.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace seed {

// Threads for large GEMMs and large elementwise ops; small ones run on one thread.
int max_threads();
void set_max_threads(int n);

// f32 -> bf16, round to nearest even (NaN/Inf keep their class). Vectorises.
inline uint16_t to_bf16(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if ((b & 0x7f800000u) == 0x7f800000u) return uint16_t(b >> 16) | ((b & 0xffffu) ? 0x40 : 0);
  b += 0x7fffu + ((b >> 16) & 1u);
  return uint16_t(b >> 16);
}

void convert_bf16(uint16_t* dst, const float* src, size_t n);

// exp for x <= 0 in softmax-style uses (Cephes polynomial, ~1 ulp over [-87, 88]); clamps below
// -87 to a tiny positive value rather than 0. Branch-free, so loops over it vectorise
// (given -fno-trapping-math).
inline float fast_exp(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  float n = __builtin_floorf(x * 1.44269504088896341f + 0.5f);
  float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t e = (int32_t(n) + 127) << 23;
  float s;
  std::memcpy(&s, &e, 4);
  return p * s;
}

// A per-thread scratch buffer that only grows.
template <typename T>
T* scratch(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

}  // namespace seed
