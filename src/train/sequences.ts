/**
 * From trajectories to what the losses read: the scored sequences of an update (one per turn in
 * `window` mode, one per trajectory in `full` mode), their step-samples (one per turn in
 * both modes: verl-agent trains one sample per environment step), and mini-batches in the flat
 * `StepBatch` layout
 * of `math/` with helpers that move per-sequence arrays (old, reference, teacher log-probs) in
 * and per-sequence gradient weights out.
 *
 * Mini-batches are cut at sequence boundaries (a full-mode trajectory is one forward pass, so it
 * is never split across mini-batches). Not here: scoring, losses, the optimizer.
 */
import { ShapeError } from "../core/errors.ts";
import type { Trajectory } from "../core/trajectory.ts";
import type { Segment, StepBatch } from "../math/batch.ts";
import type { AdvantageSample } from "../math/advantages.ts";
import { stepScore } from "../math/advantages.ts";
import type { ScoredSequence } from "../agent/training-views.ts";
import { policySequences } from "../agent/training-views.ts";
import { scoredOffsets, splitScored } from "../policy/batching.ts";
import type { ScoreRequest } from "../policy/policy.ts";

/** One scored sequence of the update and the trajectory it belongs to. */
export type TrainSequence = {
  /** Index of the trajectory in the update's list. */
  readonly traj: number;
  /** The policy's own view (student, old and reference log-probs). */
  readonly student: ScoredSequence;
};

/** One step-sample: a turn of a trajectory, located in its sequence's scored positions. */
export type StepSample = {
  readonly traj: number;
  readonly turn: number;
  /** Index of the sequence holding it. */
  readonly sequence: number;
  /** Offset of its sampled ids among the sequence's scored positions. */
  readonly offset: number;
  readonly length: number;
};

/** The sequences and step-samples of an update, in trajectory order. */
export type UpdateSequences = {
  readonly sequences: readonly TrainSequence[];
  readonly samples: readonly StepSample[];
};

/** Every scored sequence and step-sample of a list of trajectories (empty trajectories give none). */
export function buildSequences(trajectories: readonly Trajectory[]): UpdateSequences {
  const sequences: TrainSequence[] = [];
  const samples: StepSample[] = [];
  trajectories.forEach((traj, t) => {
    for (const student of policySequences(traj)) {
      const sequence = sequences.length;
      sequences.push({ traj: t, student });
      for (const seg of student.segments) samples.push({ traj: t, turn: seg.turn, sequence, offset: seg.offset, length: seg.length });
    }
  });
  return { sequences, samples };
}

/**
 * The advantage inputs of every step-sample: group = the task's group index, trajectory = its
 * index, score = R(τ) − c_inv·(1 − valid) (`stepScore`), episode return R(τ).
 */
export function advantageSamples(trajectories: readonly Trajectory[], samples: readonly StepSample[], invalidPenalty: number): AdvantageSample[] {
  return samples.map((s) => {
    const traj = trajectories[s.traj]!;
    const turn = traj.turns[s.turn]!;
    return { groupId: traj.groupIndex, trajId: s.traj, score: stepScore(traj.return, turn.valid, invalidPenalty), episodeReturn: traj.return };
  });
}

/** A mini-batch: some sequences laid out back to back in the flat layout (the policy's packed scored layout). */
export type MiniBatch = {
  /** Indices of its sequences in the update's list, ascending. */
  readonly sequences: readonly number[];
  /** Flat offset of each of its sequences' first scored position (`scoredOffsets` of its requests, without the end). */
  readonly offsets: readonly number[];
  /** Segments = its step-samples; lossMask over every scored position. */
  readonly batch: StepBatch;
  /** Index (in the update's step-sample list) of each of its step-samples, in segment order. */
  readonly samples: readonly number[];
  /** The score requests of its sequences (student view), in order. */
  readonly requests: readonly ScoreRequest[];
};

/**
 * Lays out the sequences `indices` (any order; they are sorted) with their step-samples.
 * @param samplesOf step-sample indices of each sequence, from `samplesBySequence`
 */
export function buildMiniBatch(all: UpdateSequences, indices: readonly number[], samplesOf: readonly (readonly number[])[]): MiniBatch {
  const sequences = [...indices].sort((a, b) => a - b);
  const requests = sequences.map((i) => all.sequences[i]!.student.request);
  const ends = scoredOffsets(requests);
  const offsets = ends.slice(0, -1);
  const segments: Segment[] = [];
  const sampleIds: number[] = [];
  const lossMask = new Float64Array(ends[ends.length - 1]!);
  sequences.forEach((i, k) => {
    const m = all.sequences[i]!.student.lossMask;
    if (m.length !== ends[k + 1]! - offsets[k]!) throw new ShapeError(`sequence ${i}: a loss mask of ${m.length} for ${ends[k + 1]! - offsets[k]!} scored positions`);
    for (const s of samplesOf[i]!) {
      const sample = all.samples[s]!;
      segments.push({ start: offsets[k]! + sample.offset, length: sample.length });
      sampleIds.push(s);
    }
    for (let t = 0; t < m.length; t++) lossMask[offsets[k]! + t] = m[t]!;
  });
  return { sequences, offsets, batch: { segments, lossMask }, samples: sampleIds, requests };
}

/** Step-sample indices per sequence. */
export function samplesBySequence(all: UpdateSequences): number[][] {
  const out: number[][] = all.sequences.map(() => []);
  all.samples.forEach((s, i) => out[s.sequence]!.push(i));
  return out;
}

/** Concatenates one array per sequence of the update (`perSequence[i]` for sequence i) into the mini-batch's flat layout. */
export function gather(mb: MiniBatch, perSequence: readonly ArrayLike<number>[]): Float64Array {
  const n = mb.batch.lossMask.length;
  const out = new Float64Array(n);
  mb.sequences.forEach((i, k) => {
    const src = perSequence[i];
    const expected = (k + 1 < mb.offsets.length ? mb.offsets[k + 1]! : n) - mb.offsets[k]!;
    if (src === undefined || src.length !== expected) throw new ShapeError(`sequence ${i}: ${src?.length ?? "no"} values, expected ${expected}`);
    for (let t = 0; t < src.length; t++) out[mb.offsets[k]! + t] = src[t]!;
  });
  return out;
}

/** Like `gather` for arrays that hold the mini-batch's own sequences only (in its order). */
export function gatherLocal(mb: MiniBatch, perSequence: readonly ArrayLike<number>[]): Float64Array {
  const full: ArrayLike<number>[] = [];
  mb.sequences.forEach((i, k) => (full[i] = perSequence[k]!));
  return gather(mb, full);
}

/** A flat per-token array of the mini-batch as one `Float32Array` per sequence (the `backward` weights: views, same layout). */
export function scatter(mb: MiniBatch, flat: ArrayLike<number>): Float32Array[] {
  return splitScored(flat, [...mb.offsets, mb.batch.lossMask.length]);
}

/**
 * Splits `count` sequences into `parts` mini-batches after a seeded shuffle (`order`), each part
 * sorted ascending. With one part the order is the identity, so scoring an update's sequences in
 * one mini-batch batches them exactly as the once-per-update passes do.
 */
export function partition(order: readonly number[], parts: number): number[][] {
  const out: number[][] = Array.from({ length: parts }, () => []);
  const base = Math.floor(order.length / parts), extra = order.length % parts;
  let at = 0;
  for (let p = 0; p < parts; p++) {
    const size = base + (p < extra ? 1 : 0);
    out[p] = order.slice(at, at + size).sort((a, b) => a - b);
    at += size;
  }
  return out.filter((p) => p.length > 0);
}
