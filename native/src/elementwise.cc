// Row-wise and elementwise kernels (see elementwise.h). Loops are written to auto-vectorise;
// large inputs are split across max_threads() OpenMP threads, small ones stay on the calling thread.
#include "elementwise.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common.h"

namespace seed {

namespace {
int g_threads = 2;
// Work (in elements) below which a kernel runs on one thread.
constexpr int64_t kParallelElems = int64_t(1) << 18;
inline int nthr_for(int64_t work) { return work >= kParallelElems ? g_threads : 1; }
}  // namespace

int max_threads() { return g_threads; }
void set_max_threads(int n) { g_threads = n < 1 ? 1 : n; }

void convert_bf16(uint16_t* dst, const float* src, size_t n) {
#pragma omp parallel for num_threads(nthr_for(int64_t(n))) schedule(static)
  for (size_t i = 0; i < n; i++) dst[i] = to_bf16(src[i]);
}

void rmsnorm_forward(float* out, float* inv_rms, const float* x, const float* weight, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for num_threads(nthr_for(rows * cols)) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = x + r * cols;
    float* o = out + r * cols;
    float ss = 0.f;
    for (int64_t c = 0; c < cols; c++) ss += xr[c] * xr[c];
    float inv = 1.0f / std::sqrt(ss / float(cols) + eps);
    inv_rms[r] = inv;
    for (int64_t c = 0; c < cols; c++) o[c] = xr[c] * inv * weight[c];
  }
}

void rmsnorm_backward(float* dx, float* dweight, const float* dout, const float* x, const float* weight,
                      const float* inv_rms, int64_t rows, int64_t cols) {
  int nthr = nthr_for(rows * cols);
  // Each thread sums its own dweight partial; partials are added in thread order (deterministic).
  std::vector<float> partial(size_t(nthr) * size_t(cols), 0.f);
#pragma omp parallel num_threads(nthr)
  {
    int t = omp_get_thread_num();
    float* dw = partial.data() + size_t(t) * size_t(cols);
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
      const float* xr = x + r * cols;
      const float* go = dout + r * cols;
      float* d = dx + r * cols;
      float inv = inv_rms[r];
      float dot = 0.f;
      for (int64_t c = 0; c < cols; c++) dot += go[c] * weight[c] * xr[c];
      float k = inv * inv * inv * dot / float(cols);
      for (int64_t c = 0; c < cols; c++) {
        dw[c] += go[c] * xr[c] * inv;
        d[c] = go[c] * weight[c] * inv - xr[c] * k;
      }
    }
  }
  for (int t = 0; t < nthr; t++)
    for (int64_t c = 0; c < cols; c++) dweight[c] += partial[size_t(t) * size_t(cols) + size_t(c)];
}

namespace {
// cos/sin tables per (head_dim, theta), grown to the largest position seen. Angles in f64.
struct RopeTable {
  int64_t positions = 0;
  std::vector<float> cos, sin;  // [positions, head_dim / 2]
};
std::unordered_map<std::string, RopeTable> g_rope;

const RopeTable& rope_table(int64_t head_dim, double theta, int64_t need) {
  std::string key = std::to_string(head_dim) + "/" + std::to_string(theta);
  RopeTable& t = g_rope[key];
  if (t.positions >= need) return t;
  int64_t half = head_dim / 2, n = std::max<int64_t>(need, t.positions * 2);
  t.cos.resize(size_t(n * half));
  t.sin.resize(size_t(n * half));
  for (int64_t p = t.positions; p < n; p++)
    for (int64_t i = 0; i < half; i++) {
      double a = double(p) * (1.0 / std::pow(theta, double(2 * i) / double(head_dim)));
      t.cos[size_t(p * half + i)] = float(std::cos(a));
      t.sin[size_t(p * half + i)] = float(std::sin(a));
    }
  t.positions = n;
  return t;
}
}  // namespace

void rope(float* x, const int32_t* positions, int64_t rows, int64_t n_heads, int64_t head_dim, double theta, bool inverse) {
  int32_t maxp = 0;
  for (int64_t r = 0; r < rows; r++) maxp = std::max(maxp, positions[r]);
  const RopeTable& t = rope_table(head_dim, theta, int64_t(maxp) + 1);
  const int64_t half = head_dim / 2;
  const float sign = inverse ? -1.f : 1.f;
#pragma omp parallel for num_threads(nthr_for(rows * n_heads * head_dim)) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    const float* cs = t.cos.data() + size_t(positions[r]) * size_t(half);
    const float* sn = t.sin.data() + size_t(positions[r]) * size_t(half);
    for (int64_t h = 0; h < n_heads; h++) {
      float* v = x + (r * n_heads + h) * head_dim;
      for (int64_t i = 0; i < half; i++) {
        float x1 = v[i], x2 = v[half + i], s = sign * sn[i];
        v[i] = x1 * cs[i] - x2 * s;
        v[half + i] = x2 * cs[i] + x1 * s;
      }
    }
  }
}

void swiglu_forward(float* h, const float* gate, const float* up, int64_t n) {
#pragma omp parallel for simd num_threads(nthr_for(n)) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    float g = gate[i];
    h[i] = g / (1.f + fast_exp(-g)) * up[i];
  }
}

void swiglu_backward(float* dgate, float* dup, const float* dh, const float* gate, const float* up, int64_t n) {
#pragma omp parallel for simd num_threads(nthr_for(n)) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    float g = gate[i], s = 1.f / (1.f + fast_exp(-g));
    dup[i] = dh[i] * g * s;
    dgate[i] = dh[i] * up[i] * s * (1.f + g * (1.f - s));
  }
}

void adamw(float* p, const float* g, float* m, float* v, int64_t n, double lr, double beta1, double beta2,
           double eps, double weight_decay, double step, double grad_scale) {
  const float b1 = float(beta1), b2 = float(beta2), gs = float(grad_scale);
  const float step_size = float(lr / (1.0 - std::pow(beta1, step)));
  const float sqrt_bc2 = float(std::sqrt(1.0 - std::pow(beta2, step)));
  const float decay = float(1.0 - lr * weight_decay), e = float(eps);
#pragma omp parallel for num_threads(nthr_for(n)) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    float gi = g[i] * gs;
    float mi = b1 * m[i] + (1.f - b1) * gi;
    float vi = b2 * v[i] + (1.f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - step_size * mi / (std::sqrt(vi) / sqrt_bc2 + e);
  }
}

double sum_squares(const float* x, int64_t n) {
  // Per-thread partials summed in thread order, so the result never depends on timing.
  int nthr = nthr_for(n);
  std::vector<double> partial(size_t(nthr), 0.0);
#pragma omp parallel num_threads(nthr)
  {
    double s = 0.0;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++) s += double(x[i]) * double(x[i]);
    partial[size_t(omp_get_thread_num())] = s;
  }
  double total = 0.0;
  for (double s : partial) total += s;
  return total;
}

}  // namespace seed
