import { test } from "node:test";
import assert from "node:assert/strict";
import type { Trajectory } from "../core/trajectory.ts";
import type { TaskSpec } from "../envs/env.ts";
import { alfworldGeneratedTasks } from "../envs/alfworld/index.ts";
import { Rng } from "../core/rng.ts";
import { alfworldTypeOf, breakdown, gammaSample, groupAverageEstimate, groupOf, rateAverageEstimate, rateEstimate, searchDatasetOf, searchAverageNote } from "./breakdown.ts";

/** A trajectory carrying only what the breakdown reads. */
function traj(taskId: string, success: boolean, score = success ? 1 : 0): Trajectory {
  return {
    envId: "x", taskId, groupIndex: 0, memberIndex: 0, seed: 0, historyMode: "full", task: "", turns: [],
    return: success ? 10 : 0, success, score, endedBy: "terminated", timings: { sampleSeconds: 0, envSeconds: 0 },
  };
}

const realTask = (type: string, i: number): TaskSpec => ({
  id: `valid_seen/${type}-Obj-None-Recep-1/trial_${i}/game.tw-pddl`, split: "valid_seen",
  payload: { file: `/data/json_2.1.1/valid_seen/${type}-Obj-None-Recep-1/trial_${i}/game.tw-pddl` },
});

test("alfworld: task types from real game paths and from generated games", () => {
  assert.equal(alfworldTypeOf(realTask("pick_two_obj_and_place", 0)), "pick_two_obj_and_place");
  assert.equal(alfworldTypeOf(realTask("pick_and_place_simple", 0)), "pick_and_place_simple");
  assert.equal(groupOf("alfworld", realTask("pick_cool_then_place_in_recep", 0)), "Cool");
  const generated = alfworldGeneratedTasks("valid_seen", 30, { seed: 0 });
  for (const t of generated) {
    const type = (t.payload as { game: { taskType: string } }).game.taskType;
    assert.equal(alfworldTypeOf(t), type, "a generated game's own type wins over its id");
  }
});

test("alfworld: per-type success, the macro average over types and the micro rate", () => {
  // Pick 2/2, Look 1/4, Clean 0/2; no Heat, Cool or Pick2 games.
  const spec: [string, boolean][] = [
    ["pick_and_place_simple", true], ["pick_and_place_simple", true],
    ["look_at_obj_in_light", true], ["look_at_obj_in_light", false], ["look_at_obj_in_light", false], ["look_at_obj_in_light", false],
    ["pick_clean_then_place_in_recep", false], ["pick_clean_then_place_in_recep", false],
  ];
  const tasks = spec.map(([t], i) => realTask(t, i));
  const b = breakdown("alfworld", "valid_seen", tasks, spec.map(([, s], i) => traj(tasks[i]!.id, s)), 3);
  assert.deepEqual(b.columns, ["Pick", "Look", "Clean", "Heat", "Cool", "Pick2", "All"]);
  assert.equal(b.headline, "All");
  assert.equal(b.metrics["Pick"]!.value, 1);
  assert.equal(b.metrics["Look"]!.value, 0.25);
  assert.equal(b.metrics["Clean"]!.value, 0);
  assert.ok(Number.isNaN(b.metrics["Heat"]!.value) && b.metrics["Heat"]!.n === 0, "a type without games has no value, not 0");
  // Macro: mean of the three present types (1 + 0.25 + 0) / 3; micro: 3 of 8.
  assert.ok(Math.abs(b.metrics["All"]!.value - 1.25 / 3) < 1e-12);
  assert.equal(b.metrics["micro"]!.value, 3 / 8);
  assert.deepEqual(b.counts, { Pick: 2, Look: 4, Clean: 2 });
  for (const k of ["Pick", "Look", "Clean", "All", "micro"]) {
    const e = b.metrics[k]!;
    assert.ok(e.low <= e.value + 1e-12 && e.value <= e.high + 1e-12 && e.low >= 0 && e.high <= 1, `${k}: ${JSON.stringify(e)}`);
  }
  // The bootstrap is seeded: same seed, same interval; another seed, (almost surely) another.
  const again = breakdown("alfworld", "valid_seen", tasks, spec.map(([, s], i) => traj(tasks[i]!.id, s)), 3);
  assert.deepEqual(again.metrics["All"], b.metrics["All"]);
});

test("wilson intervals: 0 and n successes stay inside [0, 1]; known value at 5/10", () => {
  const zero = rateEstimate(0, 20), all = rateEstimate(20, 20), half = rateEstimate(5, 10);
  assert.equal(zero.low, 0);
  assert.ok(zero.high > 0.1 && zero.high < 0.2);
  assert.equal(all.high, 1);
  // Wilson 95% for 5/10: [0.2366, 0.7634].
  assert.ok(Math.abs(half.low - 0.23659) < 1e-4 && Math.abs(half.high - 0.76341) < 1e-4);
});

test("stratified bootstrap: a group average of constant groups has a zero-width interval; it covers the estimate", () => {
  const constant = groupAverageEstimate([[1, 1, 1], [0, 0]], 1);
  assert.deepEqual([constant.value, constant.low, constant.high], [0.5, 0.5, 0.5]);
  const mixed = groupAverageEstimate([[1, 0, 1, 0, 1, 1], [0, 0, 1, 0]], 2);
  assert.ok(mixed.low < mixed.value && mixed.value < mixed.high);
  assert.ok(Math.abs(mixed.value - (4 / 6 + 1 / 4) / 2) < 1e-12);
});

test("search: exact match per dataset in the paper's column order and their average; webshop: score and success", () => {
  const qa = (dataset: string, i: number): TaskSpec => ({ id: `${dataset}-${i}`, split: dataset, payload: { question: "q", answers: ["a"], dataset } });
  const tasks = [qa("hotpotqa", 0), qa("nq", 0), qa("nq", 1), qa("bamboogle", 0), qa("hotpotqa", 1)];
  assert.equal(searchDatasetOf(qa("2wikimultihopqa", 0)), "2Wiki");
  const b = breakdown("search", "all", tasks, [traj("h0", true), traj("n0", true), traj("n1", false), traj("b0", false), traj("h1", true)]);
  assert.deepEqual(b.columns, ["NQ", "HotpotQA", "Bamboogle", "Avg"]);
  assert.equal(b.metrics["NQ"]!.value, 0.5);
  assert.equal(b.metrics["HotpotQA"]!.value, 1);
  assert.ok(Math.abs(b.metrics["Avg"]!.value - 0.5) < 1e-12, "the average is over datasets, not questions");
  const shop: TaskSpec[] = [0, 1, 2].map((i) => ({ id: `g${i}`, split: "test", payload: {} }));
  const w = breakdown("webshop", "test", shop, [traj("g0", true, 1), traj("g1", false, 0.5), traj("g2", false, 0.25)]);
  assert.deepEqual(w.columns, ["Score", "Success"]);
  assert.ok(Math.abs(w.metrics["Score"]!.value - 0.5833333333) < 1e-9);
  assert.ok(Math.abs(w.metrics["Success"]!.value - 1 / 3) < 1e-12);
});

test("breakdown refuses trajectories without their tasks", () => {
  assert.throws(() => breakdown("alfworld", "x", [], [traj("a", true)]), /needs the task of every trajectory/);
});

test("macro averages of rates: Jeffreys-posterior intervals stay informative at 0% and 100%", () => {
  const sizes = [35, 13, 27, 16, 25, 24];
  const zero = rateAverageEstimate(sizes.map((n) => Array(n).fill(0)), 4);
  assert.equal(zero.value, 0);
  assert.equal(zero.low, 0);
  // Six Beta(0.5, n + 0.5) posteriors: the mean's 97.5% point is a few percent, not 0.
  assert.ok(zero.high > 0.01 && zero.high < 0.08, `upper ${zero.high}`);
  assert.equal(zero.interval, "jeffreys");
  const full = rateAverageEstimate(sizes.map((n) => Array(n).fill(1)), 4);
  assert.ok(full.value === 1 && full.high === 1 && full.low > 0.9 && full.low < 0.99);
  const mixed = rateAverageEstimate([[1, 0, 1, 0], [1, 1, 1, 0, 0, 0, 0, 0]], 4);
  assert.ok(Math.abs(mixed.value - (0.5 + 3 / 8) / 2) < 1e-12 && mixed.low < mixed.value && mixed.value < mixed.high);
  assert.deepEqual(rateAverageEstimate([[1, 0, 1, 0], [1, 1, 1, 0]], 9), rateAverageEstimate([[1, 0, 1, 0], [1, 1, 1, 0]], 9), "seeded");
});

test("gamma draws have the right mean and variance (shape below and above 1)", () => {
  const rng = Rng.from(11);
  for (const shape of [0.5, 2.5, 40]) {
    const xs = Array.from({ length: 20000 }, () => gammaSample(rng, shape));
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
    assert.ok(Math.abs(m - shape) < 0.05 * shape + 0.02, `shape ${shape}: mean ${m}`);
    assert.ok(Math.abs(v - shape) < 0.1 * shape + 0.03, `shape ${shape}: variance ${v}`);
  }
});

test("search: an average over the present real sets says TriviaQA and PopQA are absent; generated questions need no note", () => {
  const qa = (dataset: string, i: number): TaskSpec => ({ id: `${dataset}-${i}`, split: dataset, payload: { question: "q", answers: ["a"], dataset } });
  const real = ["nq", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle"].map((d) => qa(d, 0));
  const b = breakdown("search", "test", real, real.map((t) => traj(t.id, true)));
  assert.equal(b.note, "Avg is the mean over the 5 present sets (NQ, HotpotQA, 2Wiki, MuSiQue, Bamboogle), not the paper's seven: TriviaQA, PopQA absent (TriviaQA and PopQA are not in ../shared/data)");
  assert.equal(searchAverageNote(["NQ", "TriviaQA", "PopQA", "HotpotQA", "2Wiki", "MuSiQue", "Bamboogle"]), undefined);
  assert.equal(breakdown("search", "test", [qa("synthetic", 0)], [traj("synthetic-0", true)]).note, undefined);
});
