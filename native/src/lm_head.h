// LM head fused with log-softmax and the gather of target tokens (src/engine/kernels.ts
// `lmHeadForward` / `lmHeadBackward`). Rows are processed in chunks so that at most one chunk of
// [rows x vocab] logits exists at a time; the backward recomputes the chunk's logits.
#pragma once
#include <cstdint>

namespace seed {

// h: [rows, D]; w: [V, D]; targets, logp, lse: [rows]. restricted/offsets/ids: optional allowed
// sets (null = every row unrestricted).
void lm_head_forward(float* logp, float* lse, const float* h, const float* w, const int32_t* targets,
                     int64_t rows, int64_t D, int64_t V, const uint8_t* restricted, const int32_t* offsets,
                     const int32_t* ids, bool bf16);
// dh overwritten; dw accumulated.
void lm_head_backward(float* dh, float* dw, const float* h, const float* w, const int32_t* targets,
                      const float* weights, const float* lse, int64_t rows, int64_t D, int64_t V,
                      const uint8_t* restricted, const int32_t* offsets, const int32_t* ids, bool bf16);

// Forward and backward in one pass, for training where the weights are known up front: saves
// the logits recomputation. logp, lse, dh overwritten; dw accumulated.
void lm_head_train(float* logp, float* lse, float* dh, float* dw, const float* h, const float* w,
                   const int32_t* targets, const float* weights, int64_t rows, int64_t D, int64_t V,
                   const uint8_t* restricted, const int32_t* offsets, const int32_t* ids, bool bf16);

}  // namespace seed
