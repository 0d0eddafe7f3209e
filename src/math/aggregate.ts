/**
 * Loss aggregation (the modes of verl's `agg_loss`): how per-token values x[t] become one number.
 *
 * All four modes are linear in x, so each is represented by its weights w[t] = d(value)/d(x[t]):
 * value = Σ_t w[t]·x[t]. A loss computes its per-token values and their derivatives with respect
 * to the policy log-prob, then multiplies by these weights; nothing else about aggregation
 * leaks into the losses. Departures from the reference code, on purpose:
 * - `seq-mean-*` count only rows with at least one trained token (upstream verl; the SDAR code
 *   counts every row); empty rows are reported, not hidden.
 * - `seq-mean-token-sum-norm` divides by a fixed constant C (`normLength`, the maximum response
 *   length) instead of the padded width, so the value does not change with padding.
 * - Aggregation is over whatever the caller passes (the mini-batch), not per micro-batch.
 * An empty mask gives all-zero weights: value 0 and zero gradient, never NaN.
 */
import { ConfigError } from "../core/errors.ts";
import type { Segment, TokenArray } from "./batch.ts";
import { lookupName } from "./registry.ts";

/** Inputs of one aggregation: the segments, the mask that decides which tokens count, and C. */
export type AggregationArgs = {
  readonly segments: readonly Segment[];
  /** `[N]` 0/1; also the denominator of the mean modes. */
  readonly mask: TokenArray;
  /** C of `seq-mean-token-sum-norm`; ignored by the other modes. */
  readonly normLength: number;
};

/** Computes the weights w[t] = d(value)/d(x[t]) of one aggregation mode. */
export type Aggregation = (args: AggregationArgs) => Float64Array;

function tokenMean({ segments, mask }: AggregationArgs): Float64Array {
  const w = new Float64Array(mask.length);
  let total = 0;
  for (const seg of segments) for (let t = seg.start; t < seg.start + seg.length; t++) total += mask[t]!;
  if (total === 0) return w;
  for (const seg of segments) for (let t = seg.start; t < seg.start + seg.length; t++) w[t] = mask[t]! / total;
  return w;
}

/** Shared by the three `seq-mean-*` modes: `perRow(n_b)` is the weight of a token in a row of n_b. */
function seqMean(args: AggregationArgs, perRow: (rowTokens: number) => number): Float64Array {
  const { segments, mask } = args;
  const w = new Float64Array(mask.length);
  const rowTokens = segments.map((seg) => {
    let n = 0;
    for (let t = seg.start; t < seg.start + seg.length; t++) n += mask[t]!;
    return n;
  });
  const rows = rowTokens.filter((n) => n > 0).length;
  if (rows === 0) return w;
  segments.forEach((seg, s) => {
    const n = rowTokens[s]!;
    if (n === 0) return;
    const weight = perRow(n) / rows;
    for (let t = seg.start; t < seg.start + seg.length; t++) w[t] = mask[t]! * weight;
  });
  return w;
}

/**
 * The four aggregation modes of verl's `agg_loss`, by name. `token-mean` (the default, and the
 * reference's choice) weighs every trained token alike; the `seq-mean-*` modes give short
 * step-samples more weight per token (length bias); `token-mean` and `seq-mean-token-mean` agree
 * when every row has the same number of trained tokens.
 */
export const aggregations = {
  "token-mean": tokenMean,
  "seq-mean-token-sum": (args: AggregationArgs) => seqMean(args, () => 1),
  "seq-mean-token-mean": (args: AggregationArgs) => seqMean(args, (n) => 1 / n),
  "seq-mean-token-sum-norm": ({ segments, mask, normLength }: AggregationArgs) => {
    if (!(normLength > 0)) {
      throw new ConfigError([{ path: "aggregation.normLength", message: `seq-mean-token-sum-norm needs a positive constant C (the maximum response length), got ${normLength}` }]);
    }
    const w = new Float64Array(mask.length);
    for (const seg of segments) for (let t = seg.start; t < seg.start + seg.length; t++) w[t] = mask[t]! / normLength;
    return w;
  },
} as const satisfies Record<string, Aggregation>;

/** Name of an aggregation mode; a misspelt name in TypeScript is a compile error. */
export type AggregationMode = keyof typeof aggregations;

/**
 * How a loss aggregates its per-token values.
 * @example { mode: "token-mean" }
 * @example { mode: "seq-mean-token-sum-norm", normLength: 512 }
 */
export type AggregationSpec = {
  /** @default "token-mean" */
  readonly mode: AggregationMode;
  /** C of `seq-mean-token-sum-norm` (the maximum response length); required by that mode only. */
  readonly normLength?: number;
};

/** The default aggregation: `token-mean`, as in the reference code. */
export const defaultAggregation: AggregationSpec = { mode: "token-mean" };

/** Weights w[t] = d(value)/d(x[t]) of an aggregation over `mask`. */
export function aggregationWeights(segments: readonly Segment[], mask: TokenArray, spec: AggregationSpec = defaultAggregation): Float64Array {
  const fn: Aggregation = aggregations[lookupName(aggregations, spec.mode, "aggregation.mode", "aggregation")];
  return fn({ segments, mask, normLength: spec.normLength ?? Number.NaN });
}

/**
 * Aggregates per-token values: Σ_t w[t]·x[t] over tokens with w[t] ≠ 0 (so a NaN or -Infinity on
 * an untrained padding position never leaks into the value).
 */
export function aggregate(values: TokenArray, segments: readonly Segment[], mask: TokenArray, spec: AggregationSpec = defaultAggregation): number {
  return weightedSum(values, aggregationWeights(segments, mask, spec));
}

/** Σ_t w[t]·x[t] over the tokens where w[t] ≠ 0. */
export function weightedSum(values: TokenArray, weights: Float64Array): number {
  let sum = 0;
  for (let t = 0; t < weights.length; t++) if (weights[t] !== 0) sum += weights[t]! * values[t]!;
  return sum;
}

/** Rows (step-samples) with and without trained tokens under `mask`; `emptyRows` is a metric. */
export function rowCounts(segments: readonly Segment[], mask: TokenArray): { rows: number; emptyRows: number } {
  let rows = 0;
  for (const seg of segments) {
    let n = 0;
    for (let t = seg.start; t < seg.start + seg.length; t++) n += mask[t]!;
    if (n > 0) rows++;
  }
  return { rows, emptyRows: segments.length - rows };
}

/** An aggregation mode from an untyped string (a JSON preset), or a `ConfigError` listing the valid names. */
export function parseAggregationMode(name: string): AggregationMode {
  return lookupName(aggregations, name, "aggregation.mode", "aggregation");
}
