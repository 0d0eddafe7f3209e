// The policy's analyzer role (what policy-complete.ts duplicated before it was removed): one
// greedy user turn with the Stage-1 template, answers through the shared parse rules, and a
// prompt too long for the context fitted (first third + last two thirds) rather than sent whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatFormat } from "../policy/chat-format.ts";
import { ScriptedPolicy } from "../testing/scripted-policy.ts";
import { analyzerPromptIds, fitPromptIds, policyAnalyzer } from "./analyzer-role.ts";
import type { SerializedTrajectory } from "./serialize.ts";
import { analyzerPrompt } from "./template.ts";

const traj = (task: string): SerializedTrajectory => ({
  text: `Task: ${task}\nStep 0\nObservation: o\nAction: look\nAction valid: true\nReward: 0.000000\nReturn: 0.000000\nOutcome: failure`,
  task, outcome: "failure", steps: 1,
});

test("the policy analyses with the Stage-1 template as one greedy user turn, and its answers are parsed", async () => {
  const policy = new ScriptedPolicy(['{"skill": "Look inside the drawers before giving up."}', "not json"]);
  const chat = new ChatFormat(policy.tokenizer);
  const options = { maxSkillTokens: 64, maxContext: policy.maxContext, seed: 5 };
  const out = await policyAnalyzer(policy, chat, options).analyze([traj("a"), traj("b")]);
  assert.ok(out[0]!.ok && out[0]!.skill === "Look inside the drawers before giving up.");
  assert.ok(!out[1]!.ok);
  const req = policy.calls[0]!.request;
  assert.equal(req.temperature, 0);
  assert.deepEqual(req.stopTokens, chat.stopTokens);
  assert.equal(req.maxTokens, 64);
  assert.deepEqual(req.prompt, chat.prompt(analyzerPrompt(traj("a"))));
  policy.assertConsumed();
});

test("a prompt longer than the context is fitted to it: its head and its tail survive", async () => {
  const policy = new ScriptedPolicy(['{"skill": "Open the fridge before looking for food."}'], { maxContext: 1200 });
  const chat = new ChatFormat(policy.tokenizer);
  const options = { maxSkillTokens: 64, maxContext: 1200 };
  const long = analyzerPrompt(traj("x ".repeat(800)));
  const full = chat.prompt(long);
  assert.ok(full.length > 1200 - 64);
  const ids = analyzerPromptIds(chat, long, options);
  assert.equal(ids.length, 1200 - 64);
  assert.deepEqual(ids, fitPromptIds(full, 1200 - 64));
  assert.deepEqual(ids.slice(0, 10), full.slice(0, 10));
  assert.deepEqual(ids.slice(-10), full.slice(-10));
  const [a] = await policyAnalyzer(policy, chat, options).analyze([traj("x ".repeat(800))]);
  assert.ok(a!.ok);
  assert.equal(policy.calls[0]!.request.prompt.length, 1200 - 64);
});
