// N-API glue of the seed native engine: argument unpacking (zero-copy typed arrays), a second
// line of bounds checks, and oneDNN errors turned into JavaScript exceptions. The TypeScript
// facade (src/engine/engine.ts) has already validated every argument; the checks here exist so
// that a caller bypassing it gets an exception rather than a crash: every dimension is an integer
// in [1, 2^31), every size product is overflow-checked, every index read from an array is range
// checked before a kernel uses it. Every entry point also runs with asynchronous signals blocked
// (signals.h explains the oneDNN heap corruption this prevents).
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <dnnl.hpp>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "attention.h"
#include "attention_decode.h"
#include "decoder.h"
#include "common.h"
#include "elementwise.h"
#include "lm_head.h"
#include "matmul.h"
#include "signals.h"

namespace {

using Napi::CallbackInfo;

template <typename T>
T* typed(const CallbackInfo& info, size_t i, napi_typedarray_type type, size_t min_len, const char* what) {
  Napi::Value v = info[i];
  if (!v.IsTypedArray()) throw Napi::TypeError::New(info.Env(), std::string(what) + ": expected a typed array");
  Napi::TypedArray t = v.As<Napi::TypedArray>();
  if (t.TypedArrayType() != type) throw Napi::TypeError::New(info.Env(), std::string(what) + ": wrong typed array type");
  if (t.ElementLength() < min_len) throw Napi::RangeError::New(info.Env(), std::string(what) + ": array too short");
  auto* base = static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
  return reinterpret_cast<T*>(base);
}
float* f32(const CallbackInfo& info, size_t i, size_t n, const char* what) { return typed<float>(info, i, napi_float32_array, n, what); }
int32_t* i32(const CallbackInfo& info, size_t i, size_t n, const char* what) { return typed<int32_t>(info, i, napi_int32_array, n, what); }
// Upper bounds the facade (src/engine/engine.ts) enforces too.
constexpr int64_t kMaxThreads = 1024;
constexpr int32_t kMaxPosition = int32_t(1) << 30;

// A dimension: an integer in [1, 2^31). Bounding each one keeps products of two or three of them
// far from int64 overflow; `sz` still checks the size_t products it hands to the array checks.
int64_t dim(const CallbackInfo& info, size_t i, const char* what) {
  if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), std::string(what) + ": expected a number");
  const double d = info[i].As<Napi::Number>().DoubleValue();
  if (!(d >= 1 && d < 2147483648.0) || d != std::floor(d))
    throw Napi::RangeError::New(info.Env(), std::string(what) + ": must be an integer in [1, 2^31)");
  return int64_t(d);
}
double dbl(const CallbackInfo& info, size_t i) {
  if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), "expected a number argument");
  return info[i].As<Napi::Number>().DoubleValue();
}
bool flag(const CallbackInfo& info, size_t i) { return info[i].ToBoolean().Value(); }
size_t sz(const CallbackInfo& info, int64_t a, int64_t b = 1, int64_t c = 1) {
  size_t ab, abc;
  if (a < 0 || b < 0 || c < 0 || __builtin_mul_overflow(size_t(a), size_t(b), &ab) || __builtin_mul_overflow(ab, size_t(c), &abc))
    throw Napi::RangeError::New(info.Env(), "array size out of range");
  return abc;
}

template <typename F>
Napi::Value guarded(const CallbackInfo& info, F f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    throw Napi::Error::New(info.Env(), std::string("oneDNN: ") + e.what());
  } catch (const std::bad_alloc&) {
    throw Napi::Error::New(info.Env(), "native engine: out of memory");
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Napi::Error::New(info.Env(), std::string("native engine: ") + e.what());
  }
}

Napi::Value Info(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    const dnnl_version_t* v = dnnl_version();
    Napi::Object o = Napi::Object::New(env);
    o.Set("onednn", std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch));
    o.Set("threads", seed::max_threads());
    o.Set("bf16Supported", seed::bf16_supported());
    o.Set("bf16Impl", seed::impl_name(1024, 1024, 1024, true));
    o.Set("f32Impl", seed::impl_name(1024, 1024, 1024, false));
    o.Set("isa", int(dnnl_get_effective_cpu_isa()));
    return o;
  });
}

Napi::Value SetThreads(const CallbackInfo& info) {
  const int64_t n = dim(info, 0, "threads");
  if (n > kMaxThreads) throw Napi::RangeError::New(info.Env(), "threads: at most " + std::to_string(kMaxThreads));
  seed::set_max_threads(int(n));
  seed::shield_worker_threads(int(n));
  return info.Env().Undefined();
}

// Which threads block asynchronous signals during a native call (for tests of signals.h).
Napi::Value ShieldState(const CallbackInfo& info) {
  const seed::ShieldReport r = seed::shield_report(seed::max_threads());
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("caller", r.caller);
  o.Set("team", r.team);
  o.Set("blocked", r.blocked);
  return o;
}

Napi::Value Matmul(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t m = dim(info, 3, "m"), n = dim(info, 4, "n"), k = dim(info, 5, "k");
    seed::matmul(f32(info, 0, sz(info, m, n), "c"), f32(info, 1, sz(info, m, k), "a"), f32(info, 2, sz(info, k, n), "b"), m, n, k,
                 flag(info, 6), flag(info, 7), flag(info, 8), flag(info, 9));
    return info.Env().Undefined();
  });
}

// bf16 bits in, f32 out: the raw bf16 primitive path (or its exact f32 stand-in where oneDNN
// refuses the shape or has no bf16 kernel). For tests of that path on any CPU.
Napi::Value MatmulBf16Bits(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t m = dim(info, 3, "m"), n = dim(info, 4, "n"), k = dim(info, 5, "k");
    seed::matmul_raw(f32(info, 0, sz(info, m, n), "c"), typed<uint16_t>(info, 1, napi_uint16_array, sz(info, m, k), "a"),
                     typed<uint16_t>(info, 2, napi_uint16_array, sz(info, k, n), "b"), m, n, k, flag(info, 6), flag(info, 7), flag(info, 8),
                     true);
    return info.Env().Undefined();
  });
}

Napi::Value RmsnormForward(const CallbackInfo& info) {
  int64_t rows = dim(info, 4, "rows"), cols = dim(info, 5, "cols");
  seed::rmsnorm_forward(f32(info, 0, sz(info, rows, cols), "out"), f32(info, 1, sz(info, rows), "invRms"), f32(info, 2, sz(info, rows, cols), "x"),
                        f32(info, 3, sz(info, cols), "weight"), rows, cols, float(dbl(info, 6)));
  return info.Env().Undefined();
}

Napi::Value RmsnormBackward(const CallbackInfo& info) {
  int64_t rows = dim(info, 6, "rows"), cols = dim(info, 7, "cols");
  seed::rmsnorm_backward(f32(info, 0, sz(info, rows, cols), "dx"), f32(info, 1, sz(info, cols), "dweight"), f32(info, 2, sz(info, rows, cols), "dout"),
                         f32(info, 3, sz(info, rows, cols), "x"), f32(info, 4, sz(info, cols), "weight"), f32(info, 5, sz(info, rows), "invRms"), rows, cols);
  return info.Env().Undefined();
}

Napi::Value Rope(const CallbackInfo& info) {
  int64_t rows = dim(info, 2, "rows"), heads = dim(info, 3, "heads"), hd = dim(info, 4, "headDim");
  if (hd % 2 != 0) throw Napi::RangeError::New(info.Env(), "rope: headDim must be even");
  float* x = f32(info, 0, sz(info, rows, heads, hd), "x");
  int32_t* positions = i32(info, 1, sz(info, rows), "positions");
  // The cos/sin table is indexed by position: a negative one would read before it.
  for (int64_t r = 0; r < rows; r++)
    if (positions[r] < 0 || positions[r] >= kMaxPosition) throw Napi::RangeError::New(info.Env(), "rope: position out of range");
  seed::rope(x, positions, rows, heads, hd, dbl(info, 5), flag(info, 6));
  return info.Env().Undefined();
}

Napi::Value SwigluForward(const CallbackInfo& info) {
  int64_t n = dim(info, 3, "n");
  seed::swiglu_forward(f32(info, 0, sz(info, n), "h"), f32(info, 1, sz(info, n), "gate"), f32(info, 2, sz(info, n), "up"), n);
  return info.Env().Undefined();
}

Napi::Value SwigluBackward(const CallbackInfo& info) {
  int64_t n = dim(info, 5, "n");
  seed::swiglu_backward(f32(info, 0, sz(info, n), "dgate"), f32(info, 1, sz(info, n), "dup"), f32(info, 2, sz(info, n), "dh"),
                        f32(info, 3, sz(info, n), "gate"), f32(info, 4, sz(info, n), "up"), n);
  return info.Env().Undefined();
}

// Bounds of a sequence table against q (rows_q) and k/v (rows_kv). Query ranges must be disjoint
// (each output row belongs to one sequence, and the kernels write a sequence's rows from one
// task); the backward also needs disjoint key ranges, since each task overwrites its dk/dv rows.
int64_t checked_seqs(const CallbackInfo& info, const int32_t* seqs, size_t len, size_t q_len, size_t kv_len, int64_t H,
                     int64_t Hkv, int64_t hd, bool disjoint_kv) {
  if (H % Hkv != 0) throw Napi::RangeError::New(info.Env(), "attention: nKvHeads must divide nHeads");
  if (len % 4 != 0) throw Napi::RangeError::New(info.Env(), "attention: seqs must hold [qStart, nq, kvStart, past] quadruples");
  const int64_t rows_q = int64_t(q_len) / (H * hd), rows_kv = int64_t(kv_len) / (Hkv * hd);
  std::vector<std::pair<int64_t, int64_t>> qr, kr;
  for (size_t b = 0; b < len; b += 4) {
    int64_t qs = seqs[b], nq = seqs[b + 1], ks = seqs[b + 2], past = seqs[b + 3];
    if (qs < 0 || nq < 1 || ks < 0 || past < 0 || qs + nq > rows_q || ks + past + nq > rows_kv)
      throw Napi::RangeError::New(info.Env(), "attention: sequence table out of range");
    qr.emplace_back(qs, qs + nq);
    kr.emplace_back(ks, ks + past + nq);
  }
  auto overlapping = [](std::vector<std::pair<int64_t, int64_t>>& r) {
    std::sort(r.begin(), r.end());
    for (size_t i = 1; i < r.size(); i++)
      if (r[i].first < r[i - 1].second) return true;
    return false;
  };
  if (overlapping(qr)) throw Napi::RangeError::New(info.Env(), "attention: two sequences share query rows");
  if (disjoint_kv && overlapping(kr)) throw Napi::RangeError::New(info.Env(), "attention backward: two sequences share key rows");
  return int64_t(len / 4);
}

// Length of argument i, which an f32/i32 call has already checked to be a typed array.
size_t len_of(const CallbackInfo& info, size_t i) { return info[i].As<Napi::TypedArray>().ElementLength(); }

Napi::Value AttentionForward(const CallbackInfo& info) {
  int64_t H = dim(info, 6, "nHeads"), Hkv = dim(info, 7, "nKvHeads"), hd = dim(info, 8, "headDim");
  float* q = f32(info, 2, 1, "q");
  float* k = f32(info, 3, 1, "k");
  float* v = f32(info, 4, len_of(info, 3), "v");
  int32_t* seqs = i32(info, 5, 4, "seqs");
  int64_t nseq = checked_seqs(info, seqs, len_of(info, 5), len_of(info, 2), len_of(info, 3), H, Hkv, hd, false);
  float* out = f32(info, 0, len_of(info, 2), "out");
  float* lse = info[1].IsNull() ? nullptr : f32(info, 1, len_of(info, 2) / size_t(hd), "lse");
  seed::attention_forward(out, lse, q, k, v, seqs, nseq, H, Hkv, hd);
  return info.Env().Undefined();
}

Napi::Value AttentionBackward(const CallbackInfo& info) {
  int64_t H = dim(info, 10, "nHeads"), Hkv = dim(info, 11, "nKvHeads"), hd = dim(info, 12, "headDim");
  float* q = f32(info, 4, 1, "q");
  float* k = f32(info, 5, 1, "k");
  size_t ql = len_of(info, 4), kl = len_of(info, 5);
  int32_t* seqs = i32(info, 9, 4, "seqs");
  int64_t nseq = checked_seqs(info, seqs, len_of(info, 9), ql, kl, H, Hkv, hd, true);
  seed::attention_backward(f32(info, 0, ql, "dq"), f32(info, 1, kl, "dk"), f32(info, 2, kl, "dv"), f32(info, 3, ql, "dout"),
                           q, k, f32(info, 6, kl, "v"), f32(info, 7, ql, "out"),
                           f32(info, 8, ql / size_t(hd), "lse"), seqs, nseq, H, Hkv, hd);
  return info.Env().Undefined();
}

// A decode sequence table [q_start, nq, row, past] against q (rows_q rows) and a channel-major
// cache of `batch` rows of `cap` positions: in range, and no two sequences share query rows or
// a cache row (each writes its row's new positions).
int64_t checked_decode_seqs(const CallbackInfo& info, const int32_t* seqs, size_t len, int64_t rows_q, int64_t batch, int64_t cap) {
  if (len % 4 != 0 || len == 0) throw Napi::RangeError::New(info.Env(), "decode: seqs must hold [qStart, nq, row, past] quadruples");
  std::vector<std::pair<int64_t, int64_t>> qr;
  std::vector<int64_t> rows;
  for (size_t b = 0; b < len; b += 4) {
    int64_t qs = seqs[b], nq = seqs[b + 1], row = seqs[b + 2], past = seqs[b + 3];
    if (qs < 0 || nq < 1 || qs + nq > rows_q || row < 0 || row >= batch || past < 0 || past + nq > cap)
      throw Napi::RangeError::New(info.Env(), "decode: sequence table out of range");
    qr.emplace_back(qs, qs + nq);
    rows.push_back(row);
  }
  std::sort(qr.begin(), qr.end());
  for (size_t i = 1; i < qr.size(); i++)
    if (qr[i].first < qr[i - 1].second) throw Napi::RangeError::New(info.Env(), "decode: two sequences share query rows");
  std::sort(rows.begin(), rows.end());
  if (std::adjacent_find(rows.begin(), rows.end()) != rows.end()) throw Napi::RangeError::New(info.Env(), "decode: two sequences share a cache row");
  return int64_t(len / 4);
}

// Rows of a channel-major cache argument: its length / (KV * cap), which must divide exactly.
int64_t cache_rows(const CallbackInfo& info, size_t len, int64_t KV, int64_t cap) {
  const size_t per = sz(info, KV, cap);
  if (len == 0 || len % per != 0) throw Napi::RangeError::New(info.Env(), "decode: cache length is not a multiple of KV * cap");
  return int64_t(len / per);
}

Napi::Value KvWrite(const CallbackInfo& info) {
  int64_t KV = dim(info, 5, "kvDim"), cap = dim(info, 6, "cap");
  float* kc = f32(info, 0, 1, "kCache");
  const size_t cl = len_of(info, 0);
  float* vc = f32(info, 1, cl, "vCache");
  const int64_t batch = cache_rows(info, cl, KV, cap);
  float* k = f32(info, 2, 1, "k");
  const int64_t rows_q = int64_t(len_of(info, 2)) / KV;
  float* v = f32(info, 3, len_of(info, 2), "v");
  int32_t* seqs = i32(info, 4, 4, "seqs");
  int64_t nseq = checked_decode_seqs(info, seqs, len_of(info, 4), rows_q, batch, cap);
  seed::kv_write(kc, vc, k, v, seqs, nseq, KV, cap);
  return info.Env().Undefined();
}

Napi::Value AttentionDecode(const CallbackInfo& info) {
  int64_t H = dim(info, 5, "nHeads"), Hkv = dim(info, 6, "nKvHeads"), hd = dim(info, 7, "headDim"), cap = dim(info, 8, "cap");
  if (H % Hkv != 0) throw Napi::RangeError::New(info.Env(), "attentionDecode: nKvHeads must divide nHeads");
  float* q = f32(info, 1, 1, "q");
  float* out = f32(info, 0, len_of(info, 1), "out");
  float* kc = f32(info, 2, 1, "kCache");
  const size_t cl = len_of(info, 2);
  float* vc = f32(info, 3, cl, "vCache");
  const int64_t batch = cache_rows(info, cl, Hkv * hd, cap);
  int32_t* seqs = i32(info, 4, 4, "seqs");
  int64_t nseq = checked_decode_seqs(info, seqs, len_of(info, 4), int64_t(len_of(info, 1)) / (H * hd), batch, cap);
  seed::attention_decode(out, q, kc, vc, seqs, nseq, H, Hkv, hd, cap);
  return info.Env().Undefined();
}

// decoderForward(logits, ids, positions, seqs, embed, finalNorm, head, weights[12 per layer],
//                caches[2 per layer], D, F, H, Hkv, hd, V, cap, eps, theta)
Napi::Value DecoderForward(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    seed::DecoderDims d{};
    d.D = dim(info, 9, "dModel");
    d.F = dim(info, 10, "ffnSize");
    d.H = dim(info, 11, "nHeads");
    d.Hkv = dim(info, 12, "nKvHeads");
    d.hd = dim(info, 13, "headDim");
    d.V = dim(info, 14, "vocab");
    d.cap = dim(info, 15, "cap");
    d.eps = float(dbl(info, 16));
    d.theta = dbl(info, 17);
    if (d.H % d.Hkv != 0 || d.hd % 2 != 0) throw Napi::RangeError::New(info.Env(), "decoderForward: bad head layout");
    const int64_t D = d.D, F = d.F, Q = d.H * d.hd, KV = d.Hkv * d.hd;
    int32_t* ids = i32(info, 1, 1, "ids");
    const int64_t n = int64_t(len_of(info, 1));
    int32_t* positions = i32(info, 2, size_t(n), "positions");
    for (int64_t r = 0; r < n; r++) {
      if (ids[r] < 0 || ids[r] >= d.V) throw Napi::RangeError::New(info.Env(), "decoderForward: token id out of range");
      if (positions[r] < 0 || positions[r] >= kMaxPosition) throw Napi::RangeError::New(info.Env(), "decoderForward: position out of range");
    }
    const float* embed = f32(info, 4, sz(info, d.V, D), "embed");
    const float* final_norm = f32(info, 5, sz(info, D), "finalNorm");
    const float* head = f32(info, 6, sz(info, d.V, D), "head");
    if (!info[7].IsArray() || !info[8].IsArray()) throw Napi::TypeError::New(info.Env(), "decoderForward: weights and caches must be arrays");
    Napi::Array wa = info[7].As<Napi::Array>(), ca = info[8].As<Napi::Array>();
    if (wa.Length() == 0 || wa.Length() % 12 != 0 || ca.Length() != wa.Length() / 6)
      throw Napi::RangeError::New(info.Env(), "decoderForward: 12 weights and 2 caches per layer");
    d.layers = int64_t(wa.Length() / 12);
    auto tensor = [&](Napi::Array arr, uint32_t i, size_t need, bool nullable, const char* what) -> float* {
      Napi::Value v = arr.Get(i);
      if (nullable && v.IsNull()) return nullptr;
      if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
        throw Napi::TypeError::New(info.Env(), std::string("decoderForward: ") + what + " must be a Float32Array");
      Napi::TypedArray t = v.As<Napi::TypedArray>();
      if (t.ElementLength() < need) throw Napi::RangeError::New(info.Env(), std::string("decoderForward: ") + what + " too short");
      return reinterpret_cast<float*>(static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset());
    };
    const size_t cache_len = [&] {
      Napi::Value v = ca.Get(uint32_t(0));
      if (!v.IsTypedArray()) throw Napi::TypeError::New(info.Env(), "decoderForward: caches must be Float32Arrays");
      return v.As<Napi::TypedArray>().ElementLength();
    }();
    const int64_t batch = cache_rows(info, cache_len, KV, d.cap);
    std::vector<seed::DecoderLayer> layers(size_t(d.layers));
    for (int64_t l = 0; l < d.layers; l++) {
      const uint32_t o = uint32_t(12 * l);
      seed::DecoderLayer& w = layers[size_t(l)];
      w.input_norm = tensor(wa, o + 0, sz(info, D), false, "inputNorm");
      w.q = tensor(wa, o + 1, sz(info, Q, D), false, "q");
      w.q_bias = tensor(wa, o + 2, sz(info, Q), true, "qBias");
      w.k = tensor(wa, o + 3, sz(info, KV, D), false, "k");
      w.k_bias = tensor(wa, o + 4, sz(info, KV), true, "kBias");
      w.v = tensor(wa, o + 5, sz(info, KV, D), false, "v");
      w.v_bias = tensor(wa, o + 6, sz(info, KV), true, "vBias");
      w.o = tensor(wa, o + 7, sz(info, D, Q), false, "o");
      w.post_norm = tensor(wa, o + 8, sz(info, D), false, "postNorm");
      w.gate = tensor(wa, o + 9, sz(info, F, D), false, "gate");
      w.up = tensor(wa, o + 10, sz(info, F, D), false, "up");
      w.down = tensor(wa, o + 11, sz(info, D, F), false, "down");
      w.kc = tensor(ca, uint32_t(2 * l), cache_len, false, "kCache");
      w.vc = tensor(ca, uint32_t(2 * l + 1), cache_len, false, "vCache");
    }
    int32_t* seqs = i32(info, 3, 4, "seqs");
    const int64_t nseq = checked_decode_seqs(info, seqs, len_of(info, 3), n, batch, d.cap);
    float* logits = f32(info, 0, sz(info, nseq, d.V), "logits");
    seed::decoder_forward(logits, ids, positions, n, seqs, nseq, embed, final_norm, head, layers.data(), d);
    return info.Env().Undefined();
  });
}

struct Allowed {
  const uint8_t* restricted = nullptr;
  const int32_t* offsets = nullptr;
  const int32_t* ids = nullptr;
};

Allowed allowed_at(const CallbackInfo& info, size_t i, int64_t rows, int64_t V) {
  Allowed a;
  if (info[i].IsNull() || info[i].IsUndefined()) return a;
  a.restricted = typed<uint8_t>(info, i, napi_uint8_array, sz(info, rows), "allowed.restricted");
  a.offsets = i32(info, i + 1, sz(info, rows + 1), "allowed.offsets");
  a.ids = i32(info, i + 2, 0, "allowed.ids");
  size_t nids = len_of(info, i + 2);
  for (int64_t r = 0; r <= rows; r++)
    if (a.offsets[r] < 0 || size_t(a.offsets[r]) > nids || (r > 0 && a.offsets[r] < a.offsets[r - 1]))
      throw Napi::RangeError::New(info.Env(), "allowed.offsets out of range");
  for (size_t j = 0; j < nids; j++)
    if (a.ids[j] < 0 || a.ids[j] >= V) throw Napi::RangeError::New(info.Env(), "allowed.ids out of range");
  return a;
}

void check_targets(const CallbackInfo& info, const int32_t* t, int64_t rows, int64_t V) {
  for (int64_t r = 0; r < rows; r++)
    if (t[r] < 0 || t[r] >= V) throw Napi::RangeError::New(info.Env(), "lm head: target out of range");
}

Napi::Value LmHeadForward(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t rows = dim(info, 5, "rows"), D = dim(info, 6, "dModel"), V = dim(info, 7, "vocab");
    int32_t* targets = i32(info, 4, sz(info, rows), "targets");
    check_targets(info, targets, rows, V);
    Allowed a = allowed_at(info, 8, rows, V);
    seed::lm_head_forward(f32(info, 0, sz(info, rows), "logp"), f32(info, 1, sz(info, rows), "lse"), f32(info, 2, sz(info, rows, D), "h"),
                          f32(info, 3, sz(info, V, D), "w"), targets, rows, D, V, a.restricted, a.offsets, a.ids, flag(info, 11));
    return info.Env().Undefined();
  });
}

Napi::Value LmHeadBackward(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t rows = dim(info, 7, "rows"), D = dim(info, 8, "dModel"), V = dim(info, 9, "vocab");
    int32_t* targets = i32(info, 4, sz(info, rows), "targets");
    check_targets(info, targets, rows, V);
    Allowed a = allowed_at(info, 10, rows, V);
    seed::lm_head_backward(f32(info, 0, sz(info, rows, D), "dh"), f32(info, 1, sz(info, V, D), "dw"), f32(info, 2, sz(info, rows, D), "h"),
                           f32(info, 3, sz(info, V, D), "w"), targets, f32(info, 5, sz(info, rows), "weights"), f32(info, 6, sz(info, rows), "lse"),
                           rows, D, V, a.restricted, a.offsets, a.ids, flag(info, 13));
    return info.Env().Undefined();
  });
}

Napi::Value LmHeadTrain(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t rows = dim(info, 8, "rows"), D = dim(info, 9, "dModel"), V = dim(info, 10, "vocab");
    int32_t* targets = i32(info, 6, sz(info, rows), "targets");
    check_targets(info, targets, rows, V);
    Allowed a = allowed_at(info, 11, rows, V);
    seed::lm_head_train(f32(info, 0, sz(info, rows), "logp"), f32(info, 1, sz(info, rows), "lse"), f32(info, 2, sz(info, rows, D), "dh"),
                        f32(info, 3, sz(info, V, D), "dw"), f32(info, 4, sz(info, rows, D), "h"), f32(info, 5, sz(info, V, D), "w"), targets,
                        f32(info, 7, sz(info, rows), "weights"), rows, D, V, a.restricted, a.offsets, a.ids, flag(info, 14));
    return info.Env().Undefined();
  });
}

Napi::Value Adamw(const CallbackInfo& info) {
  float* p = f32(info, 0, 0, "p");
  size_t n = len_of(info, 0);
  seed::adamw(p, f32(info, 1, n, "g"), f32(info, 2, n, "m"), f32(info, 3, n, "v"), int64_t(n), dbl(info, 4),
              dbl(info, 5), dbl(info, 6), dbl(info, 7), dbl(info, 8), dbl(info, 9), dbl(info, 10));
  return info.Env().Undefined();
}

Napi::Value SumSquares(const CallbackInfo& info) {
  float* x = f32(info, 0, 0, "x");
  return Napi::Number::New(info.Env(), seed::sum_squares(x, int64_t(len_of(info, 0))));
}

// One native call at a time per process: the primitive cache, the RoPE tables, the thread count
// and oneDNN's stream are process-wide and unsynchronised, and Node worker threads could each load
// the addon. Uncontended (the usual single JS thread) it costs a few tens of nanoseconds.
std::mutex g_call_mutex;

// Every entry point runs inside `guarded`, so no C++ exception can escape into Node as a crash,
// and inside a SignalShield, so no signal frame can land on a oneDNN kernel's heap "stack"
// (signals.h). Signals that arrive meanwhile are delivered when the shield goes, as the call returns.
template <Napi::Value (*F)(const CallbackInfo&)>
Napi::Value Guard(const CallbackInfo& info) {
  seed::SignalShield shield;
  std::lock_guard<std::mutex> lock(g_call_mutex);
  return guarded(info, [&]() -> Napi::Value { return F(info); });
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  {
    // Start the OpenMP pool now with its workers' signals blocked (see signals.h).
    seed::SignalShield shield;
    std::lock_guard<std::mutex> lock(g_call_mutex);
    seed::shield_worker_threads(seed::max_threads());
  }
  exports.Set("info", Napi::Function::New(env, Guard<Info>));
  exports.Set("setThreads", Napi::Function::New(env, Guard<SetThreads>));
  exports.Set("shieldState", Napi::Function::New(env, Guard<ShieldState>));
  exports.Set("matmul", Napi::Function::New(env, Guard<Matmul>));
  exports.Set("matmulBf16Bits", Napi::Function::New(env, Guard<MatmulBf16Bits>));
  exports.Set("rmsnormForward", Napi::Function::New(env, Guard<RmsnormForward>));
  exports.Set("rmsnormBackward", Napi::Function::New(env, Guard<RmsnormBackward>));
  exports.Set("rope", Napi::Function::New(env, Guard<Rope>));
  exports.Set("swigluForward", Napi::Function::New(env, Guard<SwigluForward>));
  exports.Set("swigluBackward", Napi::Function::New(env, Guard<SwigluBackward>));
  exports.Set("attentionForward", Napi::Function::New(env, Guard<AttentionForward>));
  exports.Set("attentionBackward", Napi::Function::New(env, Guard<AttentionBackward>));
  exports.Set("kvWrite", Napi::Function::New(env, Guard<KvWrite>));
  exports.Set("attentionDecode", Napi::Function::New(env, Guard<AttentionDecode>));
  exports.Set("decoderForward", Napi::Function::New(env, Guard<DecoderForward>));
  exports.Set("lmHeadForward", Napi::Function::New(env, Guard<LmHeadForward>));
  exports.Set("lmHeadBackward", Napi::Function::New(env, Guard<LmHeadBackward>));
  exports.Set("lmHeadTrain", Napi::Function::New(env, Guard<LmHeadTrain>));
  exports.Set("adamw", Napi::Function::New(env, Guard<Adamw>));
  exports.Set("sumSquares", Napi::Function::New(env, Guard<SumSquares>));
  return exports;
}

}  // namespace

NODE_API_MODULE(seed_native, Init)
