// Row-wise and elementwise kernels with their backward next to them: RMSNorm, RoPE, SwiGLU,
// AdamW and the squared norm. Shapes are those of src/engine/kernels.ts.
#pragma once
#include <cstdint>

namespace seed {

// x, out, dx, dout: [rows, cols]; weight, dweight: [cols]; inv_rms: [rows].
void rmsnorm_forward(float* out, float* inv_rms, const float* x, const float* weight, int64_t rows, int64_t cols, float eps);
void rmsnorm_backward(float* dx, float* dweight, const float* dout, const float* x, const float* weight,
                      const float* inv_rms, int64_t rows, int64_t cols);

// x: [rows, n_heads * head_dim] rotated in place ("rotate half" pairs); positions: [rows].
void rope(float* x, const int32_t* positions, int64_t rows, int64_t n_heads, int64_t head_dim, double theta, bool inverse);

// All [n].
void swiglu_forward(float* h, const float* gate, const float* up, int64_t n);
void swiglu_backward(float* dgate, float* dup, const float* dh, const float* gate, const float* up, int64_t n);

// PyTorch AdamW on one tensor; the gradient is multiplied by grad_scale first.
void adamw(float* p, const float* g, float* m, float* v, int64_t n, double lr, double beta1, double beta2,
           double eps, double weight_decay, double step, double grad_scale);

double sum_squares(const float* x, int64_t n);

}  // namespace seed
