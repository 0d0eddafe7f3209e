import { test } from "node:test";
import assert from "node:assert/strict";
import { policyComplete } from "./policy-complete.ts";
import { batchLlmAnalyzer } from "./llm-analyzer.ts";
import { analyzerPrompt } from "./template.ts";
import type { SerializedTrajectory } from "./serialize.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import { ScriptedPolicy } from "../testing/scripted-policy.ts";

const traj = (task: string): SerializedTrajectory => ({
  text: `Task: ${task}\nStep 0\nObservation: o\nAction: look\nAction valid: true\nReward: 0.000000\nReturn: 0.000000\nOutcome: failure`,
  task, outcome: "failure", steps: 1,
});

test("the policy analyses with the Stage-1 template as one greedy user turn, and its answers are parsed", async () => {
  const policy = new ScriptedPolicy(['{"skill": "Look inside the drawers before giving up."}', "not json"]);
  const chat = new ChatFormat(policy.tokenizer);
  const { complete, stats } = policyComplete(policy, chat, { seed: 5 });
  const out = await batchLlmAnalyzer(complete, { attempts: 1 }).analyze([traj("a"), traj("b")]);
  assert.ok(out[0]!.ok && out[0]!.skill === "Look inside the drawers before giving up.");
  assert.ok(!out[1]!.ok);
  const req = policy.calls[0]!.request;
  assert.equal(req.temperature, 0);
  assert.deepEqual(req.stopTokens, chat.stopTokens);
  assert.deepEqual(req.prompt, chat.prompt(analyzerPrompt(traj("a"))));
  assert.equal(stats.overLength, 0);
  policy.assertConsumed();
});

test("a prompt that does not fit the context is not sent; it gets no skill and is counted", async () => {
  const policy = new ScriptedPolicy(['{"skill": "Open the fridge before looking for food."}'], { maxContext: 1200 });
  const chat = new ChatFormat(policy.tokenizer);
  const { complete, stats } = policyComplete(policy, chat, { seed: 1, maxTokens: 64 });
  const long = traj("x ".repeat(400));
  const out = await batchLlmAnalyzer(complete, { attempts: 1 }).analyze([long, traj("short")]);
  assert.deepEqual(out.map((a) => a.ok), [false, true]);
  assert.equal(stats.overLength, 1);
  assert.equal(policy.calls.length, 1);
});
