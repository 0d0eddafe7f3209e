/**
 * Stage `score`: before any optimizer step, the log-probs every term compares against, all with
 * the trainer's own numerics (so the importance ratio is exactly 1 on the first mini-batch):
 * ℓ_old of the sampled ids under θ_old, ℓ_ref under the starting weights (KL), and, for the
 * `frozen` schedule and RLSD, the teacher's ℓ_T under θ_old. A sequence without a teacher view
 * gets ℓ_T := ℓ_old (H(h, "") = h), which only the masked-out distillation positions read.
 */
import type { ScoredSequence } from "../../agent/training-views.ts";
import type { UpdateContext } from "../context.ts";
import { scoreAll } from "../../policy/batching.ts";
import type { UpdateSequences } from "../sequences.ts";

/** The once-per-update log-probs. */
export type CachedLogprobs = {
  readonly old: Float32Array[];
  readonly reference: Float32Array[] | null;
  readonly teacherFrozen: Float32Array[] | null;
};

/** Runs the scoring stage. */
export async function scoreOldRefTeacher(ctx: UpdateContext, all: UpdateSequences, teacher: readonly (ScoredSequence | undefined)[]): Promise<CachedLogprobs> {
  const requests = all.sequences.map((s) => s.student.request);
  const old = await scoreAll(ctx.policy, requests);
  const reference = ctx.reference !== null && ctx.plan.needsReference ? await scoreAll(ctx.reference, requests) : null;
  let teacherFrozen: Float32Array[] | null = null;
  if (ctx.plan.teacher?.schedule === "frozen") {
    teacherFrozen = await scoreTeacher(ctx, teacher, old, all.sequences.map((_, i) => i));
  }
  return { old, reference, teacherFrozen };
}

/**
 * ℓ_T of the sequences `indices` under the current weights (one array per index, in order);
 * sequences without a teacher view get `fallback`.
 */
export async function scoreTeacher(ctx: UpdateContext, teacher: readonly (ScoredSequence | undefined)[], fallback: readonly Float32Array[], indices: readonly number[]): Promise<Float32Array[]> {
  const have = indices.filter((i) => teacher[i] !== undefined);
  const scored = await scoreAll(ctx.policy, have.map((i) => teacher[i]!.request));
  const byIndex = new Map<number, Float32Array>();
  have.forEach((i, k) => byIndex.set(i, scored[k]!));
  return indices.map((i) => byIndex.get(i) ?? fallback[i]!);
}
