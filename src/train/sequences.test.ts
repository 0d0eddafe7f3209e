// The flat layout of an update: step-samples located in their sequences, mini-batches that keep
// sequences whole, arrays moved in and weights moved out without mixing sequences; the task
// schedule is a pure function of (seed, pool, update).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Trajectory, Turn } from "../core/trajectory.ts";
import { advantageSamples, buildMiniBatch, buildSequences, gather, partition, samplesBySequence, scatter } from "./sequences.ts";
import { taskIndices } from "../run/schedule.ts";

function turn(prompt: number[], sampled: number[], valid = true): Turn {
  return { promptTokens: prompt, sampledTokens: sampled, sampledLogprobs: sampled.map(() => -1), promptText: "", observation: "", responseText: "", actionText: "", valid, reward: 0, masked: false };
}

function traj(mode: "full" | "window", turns: Turn[], group: number, ret: number): Trajectory {
  return {
    envId: "toy", taskId: `t${group}`, groupIndex: group, memberIndex: 0, seed: 0, historyMode: mode, task: "", turns, return: ret, success: ret > 0,
    score: ret, endedBy: "terminated", timings: { sampleSeconds: 0, envSeconds: 0 },
  };
}

test("full mode: one sequence per trajectory, one step-sample per turn; window mode: one per turn", () => {
  const full = traj("full", [turn([1, 2], [3, 4]), turn([5], [6, 7, 8])], 0, 10);
  const win = traj("window", [turn([1], [2]), turn([3, 4], [5, 6], false)], 1, 0);
  const all = buildSequences([full, win]);
  assert.equal(all.sequences.length, 3);
  assert.deepEqual(all.samples.map((s) => [s.traj, s.turn, s.sequence, s.offset, s.length]), [
    [0, 0, 0, 0, 2], [0, 1, 0, 3, 3], [1, 0, 1, 0, 1], [1, 1, 2, 0, 2],
  ]);
  const adv = advantageSamples([full, win], all.samples, 0.1);
  assert.deepEqual(adv.map((a) => a.score), [10, 10, 0, -0.1]);
  assert.deepEqual(adv.map((a) => a.groupId), [0, 0, 1, 1]);
});

test("a mini-batch lays out whole sequences; gather and scatter are inverse", () => {
  const full = traj("full", [turn([1, 2], [3, 4]), turn([5], [6, 7, 8])], 0, 10);
  const win = traj("window", [turn([1], [2]), turn([3, 4], [5, 6])], 1, 0);
  const all = buildSequences([full, win]);
  const mb = buildMiniBatch(all, [2, 0], samplesBySequence(all));
  assert.deepEqual(mb.sequences, [0, 2]);
  assert.deepEqual(mb.offsets, [0, 6]);
  assert.deepEqual(mb.batch.segments, [{ start: 0, length: 2 }, { start: 3, length: 3 }, { start: 6, length: 2 }]);
  assert.deepEqual(Array.from(mb.batch.lossMask), [1, 1, 0, 1, 1, 1, 1, 1]);
  const perSeq = [Float32Array.of(1, 2, 3, 4, 5, 6), Float32Array.of(9), Float32Array.of(7, 8)];
  const flat = gather(mb, perSeq);
  assert.deepEqual([...flat], [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(scatter(mb, flat).map((a) => [...a]), [[1, 2, 3, 4, 5, 6], [7, 8]]);
  assert.throws(() => gather(mb, [Float32Array.of(1), perSeq[1]!, perSeq[2]!]), /sequence 0/);
});

test("partition keeps every index once, in ascending parts; one part is the identity", () => {
  assert.deepEqual(partition([3, 1, 4, 0, 2], 2), [[1, 3, 4], [0, 2]]);
  assert.deepEqual(partition([3, 1, 2], 1), [[1, 2, 3]]);
  assert.deepEqual(partition([1], 3), [[1]]);
});

test("the task schedule walks seeded epochs of the pool and depends only on (seed, pool, update)", () => {
  const first = [1, 2, 3].flatMap((u) => taskIndices(7, 6, u, 2));
  assert.deepEqual([...first].sort(), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(taskIndices(7, 6, 2, 2), first.slice(2, 4));
  assert.notDeepEqual(taskIndices(8, 6, 1, 6), taskIndices(7, 6, 1, 6));
});
