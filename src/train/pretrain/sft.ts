/**
 * Supervised NLL training through the per-token-weight seam: Stage-0 behaviour cloning (loss on
 * the expert's action tokens only) and Stage-1 hindsight-skill SFT (loss on the skill answer
 * only). Each example is a score request plus a 0/1 mask over its scored positions; a step takes
 * a batch of examples, gets the weights of `math/sft.ts::nllLoss` (token-mean over the batch's
 * trained tokens: −m/Σm), back-propagates them and takes one AdamW step on a warm-up + cosine
 * schedule. Batches are drawn by a seeded shuffle per epoch.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import { Progress } from "../../core/progress.ts";
import type { Segment } from "../../math/batch.ts";
import { nllLoss, weightedNllLoss } from "../../math/sft.ts";
import { lrAt } from "../../model/adamw.ts";
import type { EmbeddedPolicy } from "../../policy/embedded.ts";
import type { ScoreRequest } from "../../policy/policy.ts";

/** One supervised example: a sequence and which of its scored positions are trained. */
export type SftExample = {
  readonly request: ScoreRequest;
  /** 1 on trained positions; length `tokens.length - start`. */
  readonly mask: Uint8Array;
  /** Loss weight of the other scored positions (language modelling of the context). @default 0 */
  readonly contextWeight?: number;
};

/** Options of `trainNll`. */
export type NllTrainOptions = {
  /** Optimizer steps (each one batch). */
  readonly steps: number;
  /** Examples per step. */
  readonly batch: number;
  /** Peak learning rate; 5% linear warm-up, cosine decay to 10%. */
  readonly lr: number;
  readonly seed: number;
  /** Progress bar label. */
  readonly label: string;
  /** @default false */
  readonly quiet?: boolean;
  /** @default 0.01 */
  readonly weightDecay?: number;
};

/** Loss summary of a run. */
export type NllTrainReport = {
  readonly steps: number;
  readonly firstLoss: number;
  readonly lastLoss: number;
  /** Mean loss of the last 10% of steps. */
  readonly finalLoss: number;
  readonly skipped: number;
  readonly tokensPerSecond: number;
};

/** Epoch-wise seeded batches of example indices, `steps` of them. */
export function batchSchedule(count: number, batch: number, steps: number, seed: number): number[][] {
  const out: number[][] = [];
  let epoch = 0;
  let order: number[] = [];
  let at = 0;
  while (out.length < steps && count > 0) {
    if (at >= order.length) {
      order = Rng.from(deriveSeed(seed, "sft-epoch", epoch++)).shuffle(Array.from({ length: count }, (_, i) => i));
      at = 0;
    }
    out.push(order.slice(at, at + batch));
    at += batch;
  }
  return out;
}

/** Steps that make `epochs` passes over `count` examples in batches of `batch`. */
export function stepsForEpochs(count: number, batch: number, epochs: number): number {
  return Math.ceil(count / batch) * epochs;
}

/**
 * The packed batch of `examples`: one segment per example, the 0/1 loss mask (1 on trained
 * positions, and on context positions when the example has a `contextWeight`) and each position's
 * weight (1 on trained positions, the `contextWeight` elsewhere, 0 by default).
 */
export function sftLossMask(examples: readonly SftExample[]): { segments: Segment[]; lossMask: Float64Array; tokenWeights: Float64Array } {
  const segments: Segment[] = [];
  let n = 0;
  for (const e of examples) {
    segments.push({ start: n, length: e.mask.length });
    n += e.mask.length;
  }
  const lossMask = new Float64Array(n), tokenWeights = new Float64Array(n);
  examples.forEach((e, k) => {
    const at = segments[k]!.start, w = e.contextWeight ?? 0;
    for (let i = 0; i < e.mask.length; i++) {
      tokenWeights[at + i] = e.mask[i] === 1 ? 1 : w;
      lossMask[at + i] = tokenWeights[at + i]! > 0 ? 1 : 0;
    }
  });
  return { segments, lossMask, tokenWeights };
}

/** The loss of a packed SFT batch: plain NLL (token mean) unless some position has a fractional weight. */
function sftLoss(batch: { segments: Segment[]; lossMask: Float64Array }, tokenWeights: Float64Array, policyLogprobs: Float64Array) {
  const weighted = tokenWeights.some((w) => w !== 0 && w !== 1);
  return weighted ? weightedNllLoss({ batch, policyLogprobs, tokenWeights }) : nllLoss({ batch, policyLogprobs });
}

/** Trains `policy` with NLL on `examples`. */
export async function trainNll(policy: EmbeddedPolicy, examples: readonly SftExample[], options: NllTrainOptions): Promise<NllTrainReport> {
  const schedule = batchSchedule(examples.length, options.batch, options.steps, options.seed);
  const lrSchedule = { kind: "cosine", lr: options.lr, warmupSteps: Math.ceil(0.05 * schedule.length), totalSteps: schedule.length, finalFraction: 0.1 } as const;
  const bar = new Progress(options.label, schedule.length, { silent: options.quiet ?? false });
  const losses: number[] = [];
  let skipped = 0, tokens = 0;
  const t0 = performance.now();
  for (let s = 0; s < schedule.length; s++) {
    const picked = schedule[s]!.map((i) => examples[i]!);
    const { segments, lossMask, tokenWeights } = sftLossMask(picked);
    const n = lossMask.length;
    const batch = { segments, lossMask };
    // The NLL weights (−c/Σc) do not depend on the log-probs, so they are known before the forward.
    const { dLogprobs } = sftLoss(batch, tokenWeights, new Float64Array(n));
    const weights = segments.map((seg) => Float32Array.from(dLogprobs.subarray(seg.start, seg.start + seg.length)));
    const scored = await policy.backwardScored(picked.map((e) => e.request), weights);
    const flat = new Float64Array(n);
    scored.forEach((lp, k) => flat.set(lp, segments[k]!.start));
    const loss = sftLoss(batch, tokenWeights, flat).value;
    const r = await policy.step({ lr: lrAt(lrSchedule, s), weightDecay: options.weightDecay ?? 0.01, maxGradNorm: 1 });
    if (r.skipped) skipped++;
    losses.push(loss);
    tokens += picked.reduce((a, e) => a + e.request.tokens.length, 0);
    bar.tick(1, `loss ${loss.toFixed(3)}`);
  }
  bar.done();
  const tail = losses.slice(Math.floor(losses.length * 0.9));
  const seconds = (performance.now() - t0) / 1000;
  return {
    steps: schedule.length,
    firstLoss: losses[0] ?? Number.NaN,
    lastLoss: losses.at(-1) ?? Number.NaN,
    finalLoss: tail.length === 0 ? Number.NaN : tail.reduce((a, b) => a + b, 0) / tail.length,
    skipped,
    tokensPerSecond: seconds > 0 ? tokens / seconds : 0,
  };
}
