/**
 * The check that a Stage-0 demonstration is what the agent would have seen: its encoded ids equal
 * the ids of a `full`-history rollout that replays its responses through the same renderer (with
 * its hint inserted by H), and its loss mask is 1 exactly on the sampled ids of expert steps.
 */
import assert from "node:assert/strict";
import { collectGroups } from "../agent/rollout.ts";
import type { PromptRenderer } from "../agent/prompts/index.ts";
import type { TaskSpec } from "../envs/env.ts";
import { trainBpe } from "../model/tokenizer/index.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import { applySkill } from "../skills/context.ts";
import { demoTexts, encodeDemo, type DemoEpisode, type DemoWorld } from "../train/pretrain/demos.ts";
import { ScriptedPolicy } from "./scripted-policy.ts";

/**
 * Asserts that `demo` (played on `task` with environment seed `seed`) encodes exactly as a
 * scripted `full`-mode rollout of its responses, mask on expert responses only. A BPE of 400
 * tokens trained on the demonstration's own text does the tokenizing.
 */
export async function assertEncodesAsRollout(demo: DemoEpisode, task: TaskSpec, seed: number, world: DemoWorld, renderer: PromptRenderer): Promise<void> {
  const chat = new ChatFormat(trainBpe(demoTexts(demo, renderer), { vocabSize: 400 }));
  const example = encodeDemo(demo, chat, 100000, renderer)!;
  const policy = new ScriptedPolicy(demo.steps.map((s) => s.response), { tokenizer: chat.tokenizer, maxContext: 100000 });
  const [traj] = await collectGroups(policy, () => world.makeEnv(), [task], {
    seed, groupSize: 1, history: { mode: "full" }, maxSteps: demo.steps.length, maxActionTokens: 400, chat, envSeeds: [seed], renderer,
    promptTransform: (text) => applySkill(text, demo.hint, "insert"),
  });
  policy.assertConsumed();
  assert.deepEqual(example.request.tokens, traj!.turns.flatMap((t) => [...t.promptTokens, ...t.sampledTokens]));
  assert.deepEqual(traj!.turns.map((t) => t.actionText), demo.steps.map((s) => s.action));
  // Mask: 1 on the sampled ids of expert steps, 0 on random steps and on every prompt id.
  const expected: number[] = [];
  traj!.turns.forEach((t, i) => {
    if (i > 0) expected.push(...t.promptTokens.map(() => 0));
    expected.push(...t.sampledTokens.map(() => (demo.steps[i]!.expert ? 1 : 0)));
  });
  assert.deepEqual(Array.from(example.mask), expected);
  assert.ok(demo.steps.some((s) => s.expert) && expected.includes(1), "the demonstration has trained expert steps");
}
