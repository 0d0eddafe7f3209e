// Matmul primitive cache over oneDNN (see matmul.h). Primitives are cached per
// (shape, transposes, accumulate, dtype, threads); the cache is cleared when it grows past a bound,
// since RL batches bring many distinct row counts.
#include "matmul.h"

#include <omp.h>

#include <dnnl.hpp>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "common.h"
#include "small_gemm.h"

namespace seed {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dnnl::engine& eng() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream& strm() {
  static dnnl::stream s(eng());
  return s;
}

struct Key {
  int64_t m, n, k;
  bool ta, tb, acc, bf16;
  int nthr;
  bool operator==(const Key& o) const {
    return std::tie(m, n, k, ta, tb, acc, bf16, nthr) == std::tie(o.m, o.n, o.k, o.ta, o.tb, o.acc, o.bf16, o.nthr);
  }
};
struct KeyHash {
  size_t operator()(const Key& x) const {
    size_t h = std::hash<int64_t>()(x.m);
    h = h * 1000003u ^ std::hash<int64_t>()(x.n);
    h = h * 1000003u ^ std::hash<int64_t>()(x.k);
    h = h * 31u ^ (size_t(x.ta) | size_t(x.tb) << 1 | size_t(x.acc) << 2 | size_t(x.bf16) << 3 | size_t(x.nthr) << 4);
    return h;
  }
};
struct Entry {
  dnnl::matmul prim;
  dnnl::memory::desc a, b, c;
  // Memory objects made once and re-pointed per call (set_data_handle), not rebuilt per call.
  dnnl::memory ma, mb, mc;
};

std::unordered_map<Key, Entry, KeyHash> g_cache;
constexpr size_t kMaxEntries = 1024;
// Below this many multiply-adds a GEMM runs on one thread: waking a second thread costs more.
constexpr int64_t kParallelMacs = int64_t(1) << 23;

dnnl::memory::desc desc(int64_t rows, int64_t cols, bool trans, dt type) {
  // Logical [rows, cols]; stored transposed when `trans` (i.e. as [cols, rows]).
  return dnnl::memory::desc({rows, cols}, type, trans ? dnnl::memory::dims{1, rows} : dnnl::memory::dims{cols, 1});
}

dnnl::matmul::primitive_desc make_pd(const Key& key, dnnl::memory::desc& a, dnnl::memory::desc& b, dnnl::memory::desc& c) {
  dt in = key.bf16 ? dt::bf16 : dt::f32;
  a = desc(key.m, key.k, key.ta, in);
  b = desc(key.k, key.n, key.tb, in);
  c = dnnl::memory::desc({key.m, key.n}, dt::f32, tag::ab);
  dnnl::primitive_attr attr;
  if (key.acc) {
    dnnl::post_ops po;
    po.append_sum(1.0f);
    attr.set_post_ops(po);
  }
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, eng());
}

Entry& lookup(const Key& key) {
  auto it = g_cache.find(key);
  if (it != g_cache.end()) return it->second;
  if (g_cache.size() >= kMaxEntries) g_cache.clear();
  Entry e;
  auto pd = make_pd(key, e.a, e.b, e.c);
  e.prim = dnnl::matmul(pd);
  e.ma = dnnl::memory(e.a, eng(), DNNL_MEMORY_NONE);
  e.mb = dnnl::memory(e.b, eng(), DNNL_MEMORY_NONE);
  e.mc = dnnl::memory(e.c, eng(), DNNL_MEMORY_NONE);
  return g_cache.emplace(key, std::move(e)).first->second;
}

int g_bf16_state = -1;  // -1 unknown, 0 no, 1 yes
thread_local std::vector<uint16_t> t_a16, t_b16;
thread_local std::vector<float> t_af, t_bf;

}  // namespace

bool bf16_supported() {
  if (g_bf16_state < 0) {
    try {
      Key key{64, 64, 64, false, false, false, true, 1};
      dnnl::memory::desc a, b, c;
      make_pd(key, a, b, c);
      g_bf16_state = 1;
    } catch (const dnnl::error&) {
      g_bf16_state = 0;
    }
  }
  return g_bf16_state == 1;
}

std::string impl_name(int64_t m, int64_t n, int64_t k, bool bf16) {
  if (bf16 && !bf16_supported()) return "";
  try {
    Key key{m, n, k, false, true, false, bf16, max_threads()};
    dnnl::memory::desc a, b, c;
    return make_pd(key, a, b, c).impl_info_str();
  } catch (const dnnl::error&) {
    return "";
  }
}

size_t cache_entries() { return g_cache.size(); }

namespace {

// bf16 shapes (strides) for which oneDNN has no primitive: those run exactly in f32 instead.
std::unordered_map<Key, bool, KeyHash> g_bf16_refused;
thread_local std::vector<float> t_wa, t_wb;

void widen(float* dst, const uint16_t* src, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u = uint32_t(src[i]) << 16;
    std::memcpy(&dst[i], &u, 4);
  }
}

}  // namespace

void matmul_raw(float* c, const void* a, const void* b, int64_t m, int64_t n, int64_t k,
                bool trans_a, bool trans_b, bool accumulate, bool bf16) {
  int nthr = (m * n * k >= kParallelMacs) ? max_threads() : 1;
  omp_set_num_threads(nthr);
  Key key{m, n, k, trans_a, trans_b, accumulate, bf16, nthr};
  if (bf16 && g_bf16_refused.count(key) == 0) {
    try {
      lookup(key);
    } catch (const dnnl::error&) {
      g_bf16_refused[key] = true;
    }
  }
  if (bf16 && g_bf16_refused.count(key) != 0) {
    // bf16 -> f32 is exact, so the f32 primitive gives the bf16 products without a bf16 kernel.
    float* fa = scratch(t_wa, size_t(m * k));
    float* fb = scratch(t_wb, size_t(k * n));
    widen(fa, static_cast<const uint16_t*>(a), size_t(m * k));
    widen(fb, static_cast<const uint16_t*>(b), size_t(k * n));
    matmul_raw(c, fa, fb, m, n, k, trans_a, trans_b, accumulate, false);
    return;
  }
  Entry& e = lookup(key);
  e.ma.set_data_handle(const_cast<void*>(a));
  e.mb.set_data_handle(const_cast<void*>(b));
  e.mc.set_data_handle(c);
  e.prim.execute(strm(), {{DNNL_ARG_SRC, e.ma}, {DNNL_ARG_WEIGHTS, e.mb}, {DNNL_ARG_DST, e.mc}});
  strm().wait();
}

bool native_bf16(bool bf16) { return bf16 && bf16_supported(); }

const void* prepare_operand(const float* src, size_t n, bool bf16, std::vector<uint16_t>& bits, std::vector<float>& rounded) {
  if (!bf16) return src;
  if (bf16_supported()) {
    uint16_t* d = scratch(bits, n);
    convert_bf16(d, src, n);
    return d;
  }
  float* d = scratch(rounded, n);
  for (size_t i = 0; i < n; i++) {
    uint32_t u = uint32_t(to_bf16(src[i])) << 16;
    std::memcpy(&d[i], &u, 4);
  }
  return d;
}

// Linear layers below this many multiply-adds (decode steps, short prefills) skip oneDNN.
constexpr int64_t kSmallGemmMacs = int64_t(1) << 22;

void matmul(float* c, const float* a, const float* b, int64_t m, int64_t n, int64_t k,
            bool trans_a, bool trans_b, bool accumulate, bool bf16) {
  if (!bf16 && !trans_a && trans_b && m * n * k < kSmallGemmMacs && small_gemm_available()) {
    small_gemm_nt(c, a, b, m, n, k, accumulate);
    return;
  }
  const void* pa = prepare_operand(a, size_t(m * k), bf16, t_a16, t_af);
  const void* pb = prepare_operand(b, size_t(k * n), bf16, t_b16, t_bf);
  matmul_raw(c, pa, pb, m, n, k, trans_a, trans_b, accumulate, native_bf16(bf16));
}

}  // namespace seed
