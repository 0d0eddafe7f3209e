/**
 * The pure-TypeScript reference engine: every kernel of `Kernels` as plain loops (ops/*.ts).
 * It is the oracle of the native engine's tests and the fallback where the addon cannot load;
 * it is straightforward code, deliberately not tuned.
 */
import type { Kernels } from "./kernels.ts";
import { matmul } from "./ops/matmul.ts";
import { rmsnormForward, rmsnormBackward } from "./ops/rmsnorm.ts";
import { rope } from "./ops/rope.ts";
import { swigluForward, swigluBackward } from "./ops/swiglu.ts";
import { attentionForward, attentionBackward } from "./ops/attention.ts";
import { attentionDecode, kvWrite } from "./ops/attention-decode.ts";
import { lmHeadForward, lmHeadBackward, lmHeadTrain } from "./ops/lm-head.ts";
import { adamw, sumSquares } from "./ops/adamw.ts";

/** The reference kernels. */
export const referenceKernels: Kernels = {
  matmul,
  rmsnormForward,
  rmsnormBackward,
  rope,
  swigluForward,
  swigluBackward,
  attentionForward,
  attentionBackward,
  kvWrite,
  attentionDecode,
  lmHeadForward,
  lmHeadBackward,
  lmHeadTrain,
  adamw,
  sumSquares,
};
