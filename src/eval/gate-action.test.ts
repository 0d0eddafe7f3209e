import { test } from "node:test";
import assert from "node:assert/strict";
import { presetConfig } from "../model/config.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../policy/embedded.ts";
import { resolveConfig } from "../config/presets.ts";
import type { Trajectory, Turn } from "../core/trajectory.ts";
import { AlfworldEngine, alfworldGeneratedTasks, gameOfTask, planDistance } from "../envs/alfworld/index.ts";
import { actionGateAnalysis, clusteredAuc, mixedGroups, replayDistances, type LabelledAction } from "./gate-action.ts";

const act = (traj: number, gate: number, good: boolean): LabelledAction => ({ traj, gate, delta: 0, good, before: 2, after: good ? 1 : 2 });

test("within-trajectory AUC: pairs only inside a trajectory, ties count half, seeded intervals", () => {
  // Trajectory 0: the good step outranks both bad ones; trajectory 1: one tie, one inversion.
  // Across trajectories the gates would rank the other way (0.9 bad in 1 vs 0.3 good in 0): not compared.
  const clusters = [
    [act(0, 0.3, true), act(0, 0.2, false), act(0, 0.1, false)],
    [act(1, 0.5, true), act(1, 0.5, false), act(1, 0.9, false)],
  ];
  const r = clusteredAuc(clusters, 1, 200);
  assert.equal(r.auc.value, (2 + 0.5) / 4);
  assert.equal(r.auc.n, 4);
  assert.equal(r.ties, 1 / 4);
  assert.ok(r.auc.low <= r.auc.value && r.auc.value <= r.auc.high);
  assert.deepEqual(clusteredAuc(clusters, 1, 200), r, "seeded");
  // Perfectly separated within every trajectory: AUC 1 even though gates differ in level.
  const sep = [[act(0, 0.6, true), act(0, 0.5, false)], [act(1, 0.2, true), act(1, 0.1, false)]];
  assert.equal(clusteredAuc(sep, 2, 100).auc.value, 1);
  // No trajectory with both kinds: no AUC, no interval.
  const none = clusteredAuc([[act(0, 0.4, true)], [act(1, 0.2, false)]], 3, 100);
  assert.ok(Number.isNaN(none.auc.value) && none.auc.interval === "none");
});

test("same-state groups: actions of one state pair across episodes; a state without both kinds drops out", () => {
  // Two episodes from the same first state (key "s0"): episode 0's good search outranks episode
  // 1's bad one, although episode 0's later good step has a lower gate than episode 1's bad one.
  const items = [
    { key: "s0", action: act(0, 0.45, true) }, { key: "s0", action: act(1, 0.40, false) },
    { key: "a", action: act(0, 0.49, true) }, { key: "b", action: act(1, 0.52, false) },
  ];
  const groups = mixedGroups(items);
  assert.equal(groups.length, 1);
  assert.deepEqual(groups[0]!.map((x) => x.traj), [0, 1]);
  assert.equal(clusteredAuc(groups, 1, 50).auc.value, 1);
  // Only bad actions: no pair, no AUC.
  assert.ok(Number.isNaN(clusteredAuc([[items[1]!.action, items[3]!.action]], 1, 50).auc.value));
});

function scripted(task: string, actions: readonly string[], success: boolean): Trajectory {
  const turns: Turn[] = actions.map((a) => ({
    promptTokens: [], sampledTokens: [], sampledLogprobs: [], promptText: "", observation: "", responseText: a, actionText: a, valid: true, reward: 0, masked: false,
  }));
  return { envId: "alfworld", taskId: "t", groupIndex: 0, memberIndex: 0, seed: 0, historyMode: "full", task, turns, return: success ? 10 : 0, success, score: success ? 1 : 0, endedBy: "terminated", timings: { sampleSeconds: 0, envSeconds: 0 } };
}

test("replayed distances: the plan's steps are good, a detour and a no-op are not", () => {
  const task = alfworldGeneratedTasks("valid_seen", 1, { seed: 4 })[0]!;
  const game = gameOfTask(task);
  const plan = planDistance(new AlfworldEngine(game))!.plan;
  assert.ok(plan.length >= 2);
  // look (no-op), then the plan: the no-op keeps the distance, each plan step shortens it by one.
  const r = replayDistances(task, scripted(game.task, ["look", ...plan], true))!;
  assert.equal(r.won, true);
  assert.deepEqual(r.before, [plan.length, plan.length, ...plan.slice(0, -1).map((_, i) => plan.length - 1 - i)]);
  assert.ok(r.after.every((d, i) => (i === 0 ? d === r.before[0] : d === r.before[i]! - 1)));
  assert.ok(!(r.after[0]! < r.before[0]!), "look is not a good action");
});

test("action-gate analysis on a real (tiny, untrained) embedded policy: every action scored and labelled", async () => {
  const config = resolveConfig({ preset: "seed", quick: true, overrides: ["--env.maxSteps=3", "--rollout.maxActionTokens=6"] });
  const tokenizer = trainBpe(["You are in the middle of a room. Your task is to: put a mug in desk.", "<think>go</think><action>go to desk 1</action>"], { vocabSize: 300 });
  const policy = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 2048 }), tokenizer, seed: 5 });
  const r = await actionGateAnalysis(policy, config, { tasks: 2, groupSize: 2, resamples: 50, skill: "hint" });
  assert.equal(r.trajectories, 4);
  assert.equal(r.skill, "hint");
  assert.equal(r.unlabelled, 0);
  assert.equal(r.replayMismatch, 0);
  assert.ok(r.actions > 0 && r.actions <= 4 * 3, `actions ${r.actions}`);
  assert.ok(r.tokens >= r.actions);
  assert.ok(r.gateSpread.quantiles["p50"]! > 0 && r.gateSpread.quantiles["p50"]! < 1);
  assert.ok(r.delta.token["p1"]! <= r.delta.token["p99"]!);
  // An untrained policy's random text is never a useful command: no good steps, so no AUC.
  assert.equal(r.goodRate, 0);
  assert.ok(Number.isNaN(r.auc.value));
  // The expert label is selectable on ALFWorld too: the same episodes, replayed for the expert.
  const e = await actionGateAnalysis(policy, config, { tasks: 2, groupSize: 2, resamples: 50, skill: "rule", label: "expert" });
  assert.equal(e.label, "expert");
  assert.equal(e.replayMismatch, 0);
  assert.equal(e.goodRate, 0);
});

test("action-gate analysis on WebShop: the expert label, Stage 0's WebShop hint, every replay reproduced", async () => {
  const config = resolveConfig({ preset: "seed", quick: true, overrides: ["--env.name=webshop", "--env.maxSteps=6", "--rollout.maxActionTokens=8", "--rollout.actionMask=true"] });
  const tokenizer = trainBpe(["WebShop [SEP] Instruction: [SEP] i need a red dress [SEP] Search", "<think>go</think><action>search[red dress]</action><action>click[buy now]</action>"], { vocabSize: 300 });
  const policy = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 4096 }), tokenizer, seed: 5 });
  const r = await actionGateAnalysis(policy, config, { tasks: 2, groupSize: 2, resamples: 50, skill: "hint", split: "test" });
  assert.equal(r.env, "webshop");
  assert.equal(r.label, "expert");
  assert.match(r.labelRule, /score_after > score_before/);
  assert.equal(r.trajectories, 4);
  assert.equal(r.skillValidRate, 1, "the clean expert's episode gives every goal a hint");
  assert.equal(r.replayMismatch, 0);
  assert.equal(r.unlabelled, 0);
  assert.ok(r.actions > 0 && r.actions <= 4 * 6, `actions ${r.actions}`);
  // From the first state the clean expert buys the goal within six steps.
  assert.ok(r.expertStart !== undefined && r.expertStart.score > 0.5 && r.expertStart.finished === 1, JSON.stringify(r.expertStart));
  // Random text is never a WebShop command: it only uses up the expert's steps (once it can no
  // longer buy in time, a failure's length does not count), so no action is good.
  assert.equal(r.goodRate, 0);
  assert.ok(Number.isNaN(r.auc.value));
  await assert.rejects(actionGateAnalysis(policy, config, { tasks: 1, groupSize: 1, label: "plan", split: "test" }), /plan-distance label needs ALFWorld/);
});

test("action-gate analysis on Search-QA: the expert label on generated questions, every replay reproduced", async () => {
  const config = resolveConfig({ preset: "seed", quick: true, overrides: ["--env.name=search", "--env.maxSteps=4", "--rollout.maxActionTokens=8"] });
  const tokenizer = trainBpe(["Who founded Velmora Works?", "<think>go</think><search>Velmora Works</search><answer>x</answer>"], { vocabSize: 300 });
  const policy = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 4096 }), tokenizer, seed: 5 });
  const r = await actionGateAnalysis(policy, config, { tasks: 2, groupSize: 2, resamples: 50, skill: "rule", split: "test" });
  assert.equal(r.env, "search");
  assert.equal(r.label, "expert");
  assert.equal(r.replayMismatch, 0);
  assert.equal(r.unlabelled, 0);
  assert.ok(r.actions > 0 && r.actions <= 4 * 4, `actions ${r.actions}`);
  assert.ok(r.expertStart !== undefined && r.expertStart.score === 1 && r.expertStart.finished === 1, JSON.stringify(r.expertStart));
  await assert.rejects(actionGateAnalysis(policy, config, { tasks: 1, groupSize: 1, skill: "hint", split: "test" }), /'hint' skill is Stage 0's hint/);
});
