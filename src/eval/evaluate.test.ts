import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedPolicy, type ScriptCall } from "../testing/scripted-policy.ts";
import { TOY_TASK, ToyHouse } from "../testing/toy-house.ts";
import { alfworldRenderer } from "../agent/prompts/alfworld.ts";
import { evaluate, summarize } from "./evaluate.ts";

const act = (a: string) => `<think>t</think><action>${a}</action>`;
const tasks = [0, 1, 2, 3].map((i) => ({ ...TOY_TASK, id: `toy/${i}` }));

/** A deterministic "agent" reading the current observation: on an empty table 1 it answers once without tags. */
function agent(call: ScriptCall): string {
  const now = call.promptText.split("current observation is: ").pop()!;
  if (now.startsWith("You pick up the key 1")) return act("go to door 1");
  if (now.startsWith("You arrive at door 1.")) return act("open door 1");
  if (now.startsWith("You arrive at table 1. On the table 1, you see a key 1.")) return act("take key 1 from table 1");
  if (now.startsWith("You arrive at table 2. On the table 2, you see a key 1.")) return act("take key 1 from table 2");
  if (now.startsWith("Nothing happens.")) return act("go to table 2");
  if (now.startsWith("You arrive at table 1. On the table 1, you see nothing.")) return "no tags here";
  return act("go to table 1");
}

test("evaluate: counts, rates and end reasons of a known agent; batching does not change results", async () => {
  const run = async (batchTasks: number) =>
    evaluate(new ScriptedPolicy(Array(100).fill(agent)), () => new ToyHouse({ maxSteps: 5 }), tasks, { renderer: alfworldRenderer, maxActionTokens: 64, batchTasks, seed: 4 });
  const a = await run(32);
  const b = await run(1);
  assert.deepEqual({ ...a.summary, seconds: 0 }, { ...b.summary, seconds: 0 });
  assert.equal(a.summary.episodes, 4);
  // Key on table 1 (4 steps, won) or table 2 (an invalid detour: 6 steps needed, cut at 5).
  assert.equal(a.summary.success_rate, 0.5);
  assert.equal(a.summary.mean_return, 5);
  assert.deepEqual(a.summary.ended_by, { terminated: 2, truncated: 2, "context-limit": 0 });
  // Hand-check from the trajectories themselves.
  const won = a.trajectories.filter((t) => t.success).length;
  assert.equal(a.summary.success_rate, won / 4);
  const turns = a.trajectories.flatMap((t) => t.turns);
  assert.equal(a.summary.valid_action_rate, turns.filter((t) => t.valid).length / turns.length);
  assert.ok(a.summary.valid_action_rate < 1, "the agent's untagged answer counts as invalid");
  assert.equal(a.summary.ended_by.terminated + a.summary.ended_by.truncated, 4);
  assert.deepEqual(a.trajectories.map((t) => t.groupIndex), [0, 1, 2, 3]);
  assert.equal(a.trajectories[0]!.turns[0]!.promptText.length > 0, true);
});

test("evaluate: bad episode counts are usage errors; an empty summary is all zeros", async () => {
  const policy = new ScriptedPolicy([]);
  await assert.rejects(evaluate(policy, () => new ToyHouse(), tasks, { episodes: 9, renderer: alfworldRenderer }), /asked for 9 episodes but the split has 4/);
  await assert.rejects(evaluate(policy, () => new ToyHouse(), tasks, { episodes: 0, renderer: alfworldRenderer }), /positive integer/);
  assert.deepEqual(summarize("x", []), { env: "x", episodes: 0, success_rate: 0, valid_action_rate: 0, mean_return: 0, mean_length: 0, mean_score: 0, ended_by: { terminated: 0, truncated: 0, "context-limit": 0 }, seconds: 0 });
});
