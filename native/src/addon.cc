// N-API glue of the seed native engine: argument unpacking (zero-copy typed arrays), a second
// line of bounds checks, and oneDNN errors turned into JavaScript exceptions. The TypeScript
// facade (src/engine/engine.ts) has already validated every argument; the checks here exist so
// that a caller bypassing it gets an exception rather than a crash.
#include <napi.h>

#include <dnnl.hpp>
#include <string>

#include "attention.h"
#include "common.h"
#include "elementwise.h"
#include "lm_head.h"
#include "matmul.h"

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
int64_t num(const CallbackInfo& info, size_t i) {
  if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), "expected a number argument");
  return info[i].As<Napi::Number>().Int64Value();
}
double dbl(const CallbackInfo& info, size_t i) {
  if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), "expected a number argument");
  return info[i].As<Napi::Number>().DoubleValue();
}
bool flag(const CallbackInfo& info, size_t i) { return info[i].ToBoolean().Value(); }
size_t sz(int64_t a, int64_t b = 1) { return size_t(a) * size_t(b); }

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
  seed::set_max_threads(int(num(info, 0)));
  return info.Env().Undefined();
}

Napi::Value Matmul(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t m = num(info, 3), n = num(info, 4), k = num(info, 5);
    seed::matmul(f32(info, 0, sz(m, n), "c"), f32(info, 1, sz(m, k), "a"), f32(info, 2, sz(k, n), "b"), m, n, k,
                 flag(info, 6), flag(info, 7), flag(info, 8), flag(info, 9));
    return info.Env().Undefined();
  });
}

// bf16 bits in, f32 out: the raw bf16 primitive path (or its exact f32 stand-in where oneDNN
// refuses the shape or has no bf16 kernel). For tests of that path on any CPU.
Napi::Value MatmulBf16Bits(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t m = num(info, 3), n = num(info, 4), k = num(info, 5);
    seed::matmul_raw(f32(info, 0, sz(m, n), "c"), typed<uint16_t>(info, 1, napi_uint16_array, sz(m, k), "a"),
                     typed<uint16_t>(info, 2, napi_uint16_array, sz(k, n), "b"), m, n, k, flag(info, 6), flag(info, 7), flag(info, 8),
                     true);
    return info.Env().Undefined();
  });
}

Napi::Value RmsnormForward(const CallbackInfo& info) {
  int64_t rows = num(info, 4), cols = num(info, 5);
  seed::rmsnorm_forward(f32(info, 0, sz(rows, cols), "out"), f32(info, 1, sz(rows), "invRms"), f32(info, 2, sz(rows, cols), "x"),
                        f32(info, 3, sz(cols), "weight"), rows, cols, float(dbl(info, 6)));
  return info.Env().Undefined();
}

Napi::Value RmsnormBackward(const CallbackInfo& info) {
  int64_t rows = num(info, 6), cols = num(info, 7);
  seed::rmsnorm_backward(f32(info, 0, sz(rows, cols), "dx"), f32(info, 1, sz(cols), "dweight"), f32(info, 2, sz(rows, cols), "dout"),
                         f32(info, 3, sz(rows, cols), "x"), f32(info, 4, sz(cols), "weight"), f32(info, 5, sz(rows), "invRms"), rows, cols);
  return info.Env().Undefined();
}

Napi::Value Rope(const CallbackInfo& info) {
  int64_t rows = num(info, 2), heads = num(info, 3), hd = num(info, 4);
  seed::rope(f32(info, 0, sz(rows, heads * hd), "x"), i32(info, 1, sz(rows), "positions"), rows, heads, hd, dbl(info, 5), flag(info, 6));
  return info.Env().Undefined();
}

Napi::Value SwigluForward(const CallbackInfo& info) {
  int64_t n = num(info, 3);
  seed::swiglu_forward(f32(info, 0, sz(n), "h"), f32(info, 1, sz(n), "gate"), f32(info, 2, sz(n), "up"), n);
  return info.Env().Undefined();
}

Napi::Value SwigluBackward(const CallbackInfo& info) {
  int64_t n = num(info, 5);
  seed::swiglu_backward(f32(info, 0, sz(n), "dgate"), f32(info, 1, sz(n), "dup"), f32(info, 2, sz(n), "dh"), f32(info, 3, sz(n), "gate"),
                        f32(info, 4, sz(n), "up"), n);
  return info.Env().Undefined();
}

// Bounds of a sequence table against q (rows_q) and k/v (rows_kv).
int64_t checked_seqs(const CallbackInfo& info, const int32_t* seqs, size_t len, size_t q_len, size_t kv_len, int64_t H, int64_t Hkv, int64_t hd) {
  if (H < 1 || Hkv < 1 || hd < 1 || H % Hkv != 0) throw Napi::RangeError::New(info.Env(), "attention: bad head counts");
  const int64_t rows_q = int64_t(q_len) / (H * hd), rows_kv = int64_t(kv_len) / (Hkv * hd);
  for (size_t b = 0; b + 3 < len; b += 4) {
    int64_t qs = seqs[b], nq = seqs[b + 1], ks = seqs[b + 2], past = seqs[b + 3];
    if (qs < 0 || nq < 1 || ks < 0 || past < 0 || qs + nq > rows_q || ks + past + nq > rows_kv)
      throw Napi::RangeError::New(info.Env(), "attention: sequence table out of range");
  }
  return int64_t(len / 4);
}

size_t len_of(const CallbackInfo& info, size_t i) { return info[i].As<Napi::TypedArray>().ElementLength(); }

Napi::Value AttentionForward(const CallbackInfo& info) {
  int64_t H = num(info, 6), Hkv = num(info, 7), hd = num(info, 8);
  float* q = f32(info, 2, 1, "q");
  float* k = f32(info, 3, 1, "k");
  float* v = f32(info, 4, len_of(info, 3), "v");
  int32_t* seqs = i32(info, 5, 4, "seqs");
  int64_t nseq = checked_seqs(info, seqs, len_of(info, 5), len_of(info, 2), len_of(info, 3), H, Hkv, hd);
  float* out = f32(info, 0, len_of(info, 2), "out");
  float* lse = info[1].IsNull() ? nullptr : f32(info, 1, len_of(info, 2) / size_t(hd), "lse");
  seed::attention_forward(out, lse, q, k, v, seqs, nseq, H, Hkv, hd);
  return info.Env().Undefined();
}

Napi::Value AttentionBackward(const CallbackInfo& info) {
  int64_t H = num(info, 10), Hkv = num(info, 11), hd = num(info, 12);
  size_t ql = len_of(info, 4), kl = len_of(info, 5);
  int32_t* seqs = i32(info, 9, 4, "seqs");
  int64_t nseq = checked_seqs(info, seqs, len_of(info, 9), ql, kl, H, Hkv, hd);
  seed::attention_backward(f32(info, 0, ql, "dq"), f32(info, 1, kl, "dk"), f32(info, 2, kl, "dv"), f32(info, 3, ql, "dout"),
                           f32(info, 4, ql, "q"), f32(info, 5, kl, "k"), f32(info, 6, kl, "v"), f32(info, 7, ql, "out"),
                           f32(info, 8, ql / size_t(hd), "lse"), seqs, nseq, H, Hkv, hd);
  return info.Env().Undefined();
}

struct Allowed {
  const uint8_t* restricted = nullptr;
  const int32_t* offsets = nullptr;
  const int32_t* ids = nullptr;
};

Allowed allowed_at(const CallbackInfo& info, size_t i, int64_t rows, int64_t V) {
  Allowed a;
  if (info[i].IsNull() || info[i].IsUndefined()) return a;
  a.restricted = typed<uint8_t>(info, i, napi_uint8_array, sz(rows), "allowed.restricted");
  a.offsets = i32(info, i + 1, sz(rows + 1), "allowed.offsets");
  size_t nids = len_of(info, i + 2);
  a.ids = i32(info, i + 2, 0, "allowed.ids");
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
    int64_t rows = num(info, 5), D = num(info, 6), V = num(info, 7);
    int32_t* targets = i32(info, 4, sz(rows), "targets");
    check_targets(info, targets, rows, V);
    Allowed a = allowed_at(info, 8, rows, V);
    seed::lm_head_forward(f32(info, 0, sz(rows), "logp"), f32(info, 1, sz(rows), "lse"), f32(info, 2, sz(rows, D), "h"),
                          f32(info, 3, sz(V, D), "w"), targets, rows, D, V, a.restricted, a.offsets, a.ids, flag(info, 11));
    return info.Env().Undefined();
  });
}

Napi::Value LmHeadBackward(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t rows = num(info, 7), D = num(info, 8), V = num(info, 9);
    int32_t* targets = i32(info, 4, sz(rows), "targets");
    check_targets(info, targets, rows, V);
    Allowed a = allowed_at(info, 10, rows, V);
    seed::lm_head_backward(f32(info, 0, sz(rows, D), "dh"), f32(info, 1, sz(V, D), "dw"), f32(info, 2, sz(rows, D), "h"),
                           f32(info, 3, sz(V, D), "w"), targets, f32(info, 5, sz(rows), "weights"), f32(info, 6, sz(rows), "lse"),
                           rows, D, V, a.restricted, a.offsets, a.ids, flag(info, 13));
    return info.Env().Undefined();
  });
}

Napi::Value LmHeadTrain(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    int64_t rows = num(info, 8), D = num(info, 9), V = num(info, 10);
    int32_t* targets = i32(info, 6, sz(rows), "targets");
    check_targets(info, targets, rows, V);
    Allowed a = allowed_at(info, 11, rows, V);
    seed::lm_head_train(f32(info, 0, sz(rows), "logp"), f32(info, 1, sz(rows), "lse"), f32(info, 2, sz(rows, D), "dh"),
                        f32(info, 3, sz(V, D), "dw"), f32(info, 4, sz(rows, D), "h"), f32(info, 5, sz(V, D), "w"), targets,
                        f32(info, 7, sz(rows), "weights"), rows, D, V, a.restricted, a.offsets, a.ids, flag(info, 14));
    return info.Env().Undefined();
  });
}

Napi::Value Adamw(const CallbackInfo& info) {
  size_t n = len_of(info, 0);
  seed::adamw(f32(info, 0, n, "p"), f32(info, 1, n, "g"), f32(info, 2, n, "m"), f32(info, 3, n, "v"), int64_t(n), dbl(info, 4),
              dbl(info, 5), dbl(info, 6), dbl(info, 7), dbl(info, 8), dbl(info, 9), dbl(info, 10));
  return info.Env().Undefined();
}

Napi::Value SumSquares(const CallbackInfo& info) {
  size_t n = len_of(info, 0);
  return Napi::Number::New(info.Env(), seed::sum_squares(f32(info, 0, n, "x"), int64_t(n)));
}

// Every entry point runs inside `guarded`, so no C++ exception can escape into Node as a crash.
template <Napi::Value (*F)(const CallbackInfo&)>
Napi::Value Guard(const CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value { return F(info); });
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("info", Napi::Function::New(env, Guard<Info>));
  exports.Set("setThreads", Napi::Function::New(env, Guard<SetThreads>));
  exports.Set("matmul", Napi::Function::New(env, Guard<Matmul>));
  exports.Set("matmulBf16Bits", Napi::Function::New(env, Guard<MatmulBf16Bits>));
  exports.Set("rmsnormForward", Napi::Function::New(env, Guard<RmsnormForward>));
  exports.Set("rmsnormBackward", Napi::Function::New(env, Guard<RmsnormBackward>));
  exports.Set("rope", Napi::Function::New(env, Guard<Rope>));
  exports.Set("swigluForward", Napi::Function::New(env, Guard<SwigluForward>));
  exports.Set("swigluBackward", Napi::Function::New(env, Guard<SwigluBackward>));
  exports.Set("attentionForward", Napi::Function::New(env, Guard<AttentionForward>));
  exports.Set("attentionBackward", Napi::Function::New(env, Guard<AttentionBackward>));
  exports.Set("lmHeadForward", Napi::Function::New(env, Guard<LmHeadForward>));
  exports.Set("lmHeadBackward", Napi::Function::New(env, Guard<LmHeadBackward>));
  exports.Set("lmHeadTrain", Napi::Function::New(env, Guard<LmHeadTrain>));
  exports.Set("adamw", Napi::Function::New(env, Guard<Adamw>));
  exports.Set("sumSquares", Napi::Function::New(env, Guard<SumSquares>));
  return exports;
}

}  // namespace

NODE_API_MODULE(seed_native, Init)
