/**
 * Stage `update`: the PPO mini-batch loop. Per epoch the update's sequences are shuffled (seeded
 * by run seed, update and epoch) and cut into mini-batches; per mini-batch: the teacher is
 * rescored with the live weights (`live` schedule), the student is scored, the plan's estimator
 * gives the token advantages, `combineLosses` sums the plan's terms into per-token weights, their
 * sum is back-propagated, and one AdamW step is taken. Which terms and which estimator run is the
 * plan's (`config/method.ts`), never a branch per method.
 *
 * NaN/Inf guard: a mini-batch whose loss or weights are not finite is skipped before backward,
 * and a step whose gradient norm is not finite is skipped by the policy; both are counted.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { ScoredSequence } from "../../agent/training-views.ts";
import { gate } from "../../math/distill.ts";
import { combineLosses, type LossInput } from "../../math/losses.ts";
import type { UpdateContext } from "../context.ts";
import { backwardAll, scoreAll } from "../../policy/batching.ts";
import { buildMiniBatch, gather, gatherLocal, partition, samplesBySequence, scatter, type UpdateSequences } from "../sequences.ts";
import type { CachedLogprobs } from "./score.ts";
import { scoreTeacher } from "./score.ts";
import { miniBatchCount } from "../../config/resolve.ts";

/** What the mini-batch loop reports. */
export type OptimizeResult = {
  readonly metrics: Record<string, number>;
  /** Gate per scored position of each sequence from the first epoch (undefined where no teacher). */
  readonly gates: (Float64Array | undefined)[];
  /** Mini-batches or steps skipped for non-finite numbers. */
  readonly nonFinite: number;
  /** Optimizer steps taken. */
  readonly steps: number;
};

/** Inputs of the loop. */
export type OptimizeInput = {
  readonly all: UpdateSequences;
  readonly teacher: readonly (ScoredSequence | undefined)[];
  readonly cached: CachedLogprobs;
  /** `[S]` GRPO advantage per step-sample. */
  readonly advantages: Float64Array;
  /** `[S]` v_τ per step-sample. */
  readonly skillValid: Float64Array;
};

/** Runs the mini-batch loop. */
export async function optimize(ctx: UpdateContext, input: OptimizeInput): Promise<OptimizeResult> {
  const c = ctx.config;
  const plan = ctx.plan;
  const { all, teacher, cached } = input;
  const samplesOf = samplesBySequence(all);
  const gates: (Float64Array | undefined)[] = all.sequences.map(() => undefined);
  const sums: Record<string, number> = {};
  const counts: Record<string, number> = {};
  const add = (k: string, v: number) => {
    if (!Number.isFinite(v)) return;
    sums[k] = (sums[k] ?? 0) + v;
    counts[k] = (counts[k] ?? 0) + 1;
  };
  let nonFinite = 0, steps = 0, gradMax = 0;
  const order0 = all.sequences.map((_, i) => i);
  const miniBatches = miniBatchCount(c, all.samples.length, all.sequences.length);
  for (let epoch = 0; epoch < c.update.epochs; epoch++) {
    const order = Rng.from(deriveSeed(c.run.seed, "minibatch", ctx.update, epoch)).shuffle([...order0]);
    const parts = partition(miniBatches === 1 ? order0 : order, miniBatches);
    for (let p = 0; p < parts.length; p++) {
      const mb = buildMiniBatch(all, parts[p]!, samplesOf);
      if (mb.samples.length === 0) continue;
      let teacherLp: Float64Array | undefined;
      if (plan.teacher !== null) {
        const live = plan.teacher.schedule === "live";
        const perSeq = live ? await ctx.timer.time("teacher_live", () => scoreTeacher(ctx, teacher, cached.old, mb.sequences)) : mb.sequences.map((i) => cached.teacherFrozen![i]!);
        teacherLp = gatherLocal(mb, perSeq);
      }
      // Before the first step, a mini-batch holding every sequence in order is scored exactly as
      // ℓ_old was (same requests, same chunks, same weights): reuse it instead of a second pass.
      const untouched = epoch === 0 && p === 0 && parts.length === 1 && steps === 0;
      const student = untouched ? mb.sequences.map((i) => cached.old[i]!) : await scoreAll(ctx.policy, mb.requests);
      const policyLogprobs = gatherLocal(mb, student);
      const oldLp = gather(mb, cached.old);
      const sampleAdv = Float64Array.from(mb.samples, (s) => input.advantages[s]!);
      const skillValid = Float64Array.from(mb.samples, (s) => input.skillValid[s]!);
      const advantages = plan.advantage.estimate(
        { batch: mb.batch, sampleAdvantages: sampleAdv, oldLogprobs: oldLp, update: ctx.update, ...(teacherLp ? { teacherLogprobs: teacherLp } : {}) },
        plan.advantage.settings,
      );
      const lossInput: LossInput = {
        batch: mb.batch,
        policyLogprobs,
        oldLogprobs: oldLp,
        advantages,
        skillValid,
        ...(cached.reference ? { referenceLogprobs: gather(mb, cached.reference) } : {}),
        ...(teacherLp ? { teacherLogprobs: teacherLp } : {}),
      };
      const { value, dLogprobs: weights, termWeights, metrics: lossMetrics } = combineLosses(plan.terms, lossInput, plan.settings);
      for (const [k, v] of Object.entries(lossMetrics)) add(k, v);
      if (epoch === 0 && teacherLp !== undefined) recordGates(gates, mb.sequences, mb.offsets, policyLogprobs, teacherLp, mb.batch.lossMask, plan.settings.opd.beta);
      ctx.onMiniBatch?.({ update: ctx.update, epoch, miniBatch: p, termWeights, weights, lossMask: mb.batch.lossMask });
      if (!Number.isFinite(value) || weights.some((w) => !Number.isFinite(w))) {
        nonFinite++;
        continue;
      }
      await backwardAll(ctx.policy, mb.requests, scatter(mb, weights));
      const r = await ctx.policy.step({ lr: c.optim.lr, beta1: c.optim.beta1, beta2: c.optim.beta2, eps: c.optim.eps, weightDecay: c.optim.weightDecay, maxGradNorm: c.optim.maxGradNorm });
      if (r.skipped) {
        nonFinite++;
        continue;
      }
      steps++;
      add("grad/norm", r.gradNorm);
      gradMax = Math.max(gradMax, r.gradNorm);
    }
  }
  const metrics: Record<string, number> = {};
  for (const k of Object.keys(sums)) metrics[k] = sums[k]! / counts[k]!;
  metrics["grad/norm_max"] = gradMax;
  metrics["update/steps"] = steps;
  metrics["update/mini_batches"] = miniBatches;
  metrics["guard/nonfinite"] = nonFinite;
  Object.assign(metrics, plan.advantage.estimate.updateMetrics(ctx.update, plan.advantage.settings));
  return { metrics, gates, nonFinite, steps };
}

/** Per-sequence gates g = σ(β·(ℓ_T − ℓ_θ)) on trained positions (NaN elsewhere), for the sample files. */
function recordGates(out: (Float64Array | undefined)[], sequences: readonly number[], offsets: readonly number[], student: Float64Array, teacher: Float64Array, mask: ArrayLike<number>, beta: number): void {
  sequences.forEach((i, k) => {
    const start = offsets[k]!;
    const end = k + 1 < offsets.length ? offsets[k + 1]! : student.length;
    const g = new Float64Array(end - start).fill(Number.NaN);
    for (let t = start; t < end; t++) if (mask[t] === 1) g[t - start] = gate(teacher[t]! - student[t]!, beta);
    out[i] = g;
  });
}
