/**
 * The one input layout every loss in `math/` shares, and the `TokenLoss` every loss returns.
 *
 * A mini-batch is a list of step-samples (one environment step = prompt + response; in `full`
 * history mode each action segment of an episode is one step-sample) flattened into per-token
 * arrays of length N. `segments[s]` says where step-sample s lies in those arrays. Per-token
 * arrays use the library's one set of names (`policyLogprobs`, `oldLogprobs`, `referenceLogprobs`,
 * `teacherLogprobs`, `lossMask`); per-sample fields (`skillValid`, the GRPO advantage before it
 * is broadcast) have length S. Nothing here knows about models, text or padding widths: the
 * trainer decides what the flat arrays hold (only the sampled tokens, or whole scored sequences
 * with `lossMask` 0 on the context), and `splitBySegments` turns a flat gradient back into the
 * per-request weight arrays `policy.backward` takes.
 */
import { ShapeError } from "../core/errors.ts";

/** Where one step-sample's tokens lie in the flat per-token arrays: `[start, start + length)`. */
export type Segment = { readonly start: number; readonly length: number };

/** A per-token array `[N]`: `number[]`, a `Float32Array` from `policy.score`, or a `Float64Array`. */
export type TokenArray = ArrayLike<number>;

/**
 * A mini-batch of step-samples in the flat layout.
 * @example
 * // two step-samples with 3 and 2 response tokens, scored back to back
 * const batch: StepBatch = { segments: [{ start: 0, length: 3 }, { start: 3, length: 2 }], lossMask: [1, 1, 1, 1, 1] };
 */
export type StepBatch = {
  /** `[S]` one segment per step-sample; disjoint; tokens outside every segment are never trained. */
  readonly segments: readonly Segment[];
  /** `[N]` 1 where the policy sampled the token (trained), 0 on prompt, observation and padding. */
  readonly lossMask: TokenArray;
};

/**
 * What every loss returns: its value, its gradient with respect to the per-token *policy*
 * log-probs, and diagnostics. The trainer adds the `dLogprobs` of the active terms (times their
 * coefficients) and hands the sum to `policy.backward` as per-token weights; the optimizer
 * descends. The value is what the paper writes; for terms with stop-gradients it is not a
 * potential of the gradient (see each loss's TSDoc).
 */
export type TokenLoss = {
  value: number;
  /** `[N]` d(value)/d(policyLogprobs[t]); exactly 0 wherever the loss mask is 0. */
  dLogprobs: Float64Array;
  /** Slash-namespaced diagnostics (`opd/gate_mean`, `pg/clip_frac`, ...). */
  metrics: Record<string, number>;
};

/**
 * A batch of contiguous step-samples with the given response lengths, every token trained.
 * Handy when the flat arrays hold only sampled tokens.
 */
export function batchFromLengths(lengths: readonly number[]): StepBatch {
  const segments: Segment[] = [];
  let start = 0;
  for (const length of lengths) {
    if (!Number.isInteger(length) || length < 0) throw new ShapeError(`segment length must be a non-negative integer, got ${length}`);
    segments.push({ start, length });
    start += length;
  }
  return { segments, lossMask: new Float64Array(start).fill(1) };
}

/**
 * Checks a batch and the arrays that go with it, and throws a `ShapeError` naming the first
 * problem: segments out of range or overlapping, a mask value other than 0/1, a per-token array
 * whose length is not N, a per-sample array whose length is not S. Values are not checked for
 * finiteness: a NaN log-prob propagates into the value, where the trainer's guard catches it.
 */
export function validateBatch(
  batch: StepBatch,
  tokenArrays: Readonly<Record<string, TokenArray | undefined>> = {},
  sampleArrays: Readonly<Record<string, ArrayLike<number> | undefined>> = {},
): void {
  const n = batch.lossMask.length;
  const covered = new Uint8Array(n);
  batch.segments.forEach((seg, s) => {
    const { start, length } = seg;
    if (!Number.isInteger(start) || !Number.isInteger(length) || start < 0 || length < 0 || start + length > n) {
      throw new ShapeError(`segment ${s} = [${start}, ${start + length}) lies outside the ${n} tokens of the batch`);
    }
    for (let t = start; t < start + length; t++) {
      if (covered[t]) throw new ShapeError(`segment ${s} overlaps an earlier segment at token ${t}`);
      covered[t] = 1;
    }
  });
  for (let t = 0; t < n; t++) {
    const m = batch.lossMask[t];
    if (m !== 0 && m !== 1) throw new ShapeError(`lossMask[${t}] = ${m}; a loss mask holds only 0 and 1`);
  }
  for (const [name, arr] of Object.entries(tokenArrays)) {
    if (arr !== undefined && arr.length !== n) throw new ShapeError(`${name} has ${arr.length} entries; the batch has ${n} tokens`);
  }
  const s = batch.segments.length;
  for (const [name, arr] of Object.entries(sampleArrays)) {
    if (arr !== undefined && arr.length !== s) throw new ShapeError(`${name} has ${arr.length} entries; the batch has ${s} step-samples`);
  }
}

/** Spreads one value per step-sample (`[S]`) over that sample's tokens (`[N]`); 0 outside segments. */
export function broadcastToTokens(batch: StepBatch, perSample: ArrayLike<number>): Float64Array {
  validateBatch(batch, {}, { perSample });
  const out = new Float64Array(batch.lossMask.length);
  batch.segments.forEach((seg, s) => out.fill(perSample[s]!, seg.start, seg.start + seg.length));
  return out;
}

/** `[N]` the step-sample index of every token, -1 for tokens outside every segment. */
export function sampleIndexOfTokens(batch: StepBatch): Int32Array {
  const out = new Int32Array(batch.lossMask.length).fill(-1);
  batch.segments.forEach((seg, s) => out.fill(s, seg.start, seg.start + seg.length));
  return out;
}

/**
 * The trained-token mask restricted to segments: `lossMask[t]` inside a segment, 0 outside.
 * Every loss uses this mask, so a stray 1 outside the segments is never trained.
 */
export function segmentMask(batch: StepBatch): Float64Array {
  const out = new Float64Array(batch.lossMask.length);
  for (const seg of batch.segments) {
    for (let t = seg.start; t < seg.start + seg.length; t++) out[t] = batch.lossMask[t]!;
  }
  return out;
}

/** Cuts a flat per-token array into one `Float32Array` per step-sample (the `policy.backward` shape). */
export function splitBySegments(batch: StepBatch, flat: TokenArray): Float32Array[] {
  validateBatch(batch, { flat });
  return batch.segments.map((seg) => Float32Array.from({ length: seg.length }, (_, i) => flat[seg.start + i]!));
}

/** Masked mean of a per-token quantity (0 when the mask is empty); used for diagnostics. */
export function maskedMean(values: TokenArray, mask: TokenArray): number {
  let sum = 0;
  let count = 0;
  for (let t = 0; t < mask.length; t++) {
    if (mask[t] === 0) continue;
    sum += values[t]!;
    count++;
  }
  return count === 0 ? 0 : sum / count;
}
