/**
 * The q/k row order of llama.cpp's Llama conversion. Hugging Face Llama weights rotate each head
 * in halves (row j pairs with row j + headDim/2, "rotate-half" RoPE); llama.cpp's RoPE for Llama
 * rotates adjacent pairs (rows 2i, 2i+1), so `convert_hf_to_gguf.py` reorders the rows of
 * attn_q and attn_k per head: GGUF row h*hd + 2i + s holds HF row h*hd + s*hd/2 + i. Our engine
 * uses rotate-half RoPE, so loading undoes that order (`unpermuteRows`); `permuteRows` is the
 * conversion's direction (tests, and writing a GGUF a llama.cpp build reads correctly).
 */
import { ShapeError } from "../../core/errors.ts";

function check(w: Float32Array, heads: number, cols: number): number {
  if (w.length % (heads * cols) !== 0) throw new ShapeError(`q/k permutation: ${w.length} elements are not ${heads} heads of rows of ${cols}`);
  const hd = w.length / (heads * cols);
  if (hd % 2 !== 0) throw new ShapeError(`q/k permutation: head size ${hd} is odd`);
  return hd;
}

/** HF (rotate-half) row order -> GGUF (interleaved pairs) row order, for a [heads*hd, cols] matrix. */
export function permuteRows(w: Float32Array, heads: number, cols: number): Float32Array {
  const hd = check(w, heads, cols), half = hd / 2, out = new Float32Array(w.length);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      for (let s = 0; s < 2; s++) {
        const src = (h * hd + s * half + i) * cols, dst = (h * hd + 2 * i + s) * cols;
        out.set(w.subarray(src, src + cols), dst);
      }
    }
  }
  return out;
}

/** GGUF (interleaved pairs) row order -> HF (rotate-half) row order; inverts `permuteRows`. */
export function unpermuteRows(w: Float32Array, heads: number, cols: number): Float32Array {
  const hd = check(w, heads, cols), half = hd / 2, out = new Float32Array(w.length);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      for (let s = 0; s < 2; s++) {
        const src = (h * hd + 2 * i + s) * cols, dst = (h * hd + s * half + i) * cols;
        out.set(w.subarray(src, src + cols), dst);
      }
    }
  }
  return out;
}
