// Rollouts with the real embedded policy (tiny random model): the log-probs recorded while
// sampling must equal the policy's own scoring of the training views, in both history modes and
// under the action mask. This is the invariant every ratio, gate and KL of training relies on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { presetConfig } from "../model/config.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../policy/embedded.ts";
import { SokobanEnv, sokobanTasks } from "../envs/sokoban/index.ts";
import { TOY_TASK, ToyHouse } from "../testing/toy-house.ts";
import { alfworldRenderer } from "./prompts/alfworld.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import { sokobanRenderer } from "./prompts/sokoban.ts";
import { collectGroups } from "./rollout.ts";
import { policySequences } from "./training-views.ts";

const tokenizer = trainBpe(
  [
    sokobanRenderer.first({ task: "", step: 0, observation: { text: " # \t _ \t P \t X \t O \t", task: "" }, history: [] }),
    alfworldRenderer.first({ task: "", step: 0, observation: { text: "You arrive at table 1. On the table 1, you see a key 1.", task: "", admissible: ["go to door 1", "open door 1"] }, history: [] }),
    "<think>push the box</think><action>up</action><action>left</action><action>go to table 2</action>",
  ],
  { vocabSize: 400 },
);
const policy = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 1536 }), tokenizer, seed: 3 });

async function assertScoresMatchSampling(trajs: Awaited<ReturnType<typeof collectGroups>>, scorer: EmbeddedPolicy = policy): Promise<number> {
  let checked = 0;
  for (const t of trajs) {
    const seqs = policySequences(t);
    const scored = await scorer.score(seqs.map((s) => s.request));
    seqs.forEach((s, i) => {
      for (const seg of s.segments) {
        const recorded = t.turns[seg.turn]!.sampledLogprobs;
        for (let j = 0; j < seg.length; j++) {
          const diff = Math.abs(scored[i]![seg.offset + j]! - recorded[j]!);
          assert.ok(diff < 2e-3, `${t.historyMode} turn ${seg.turn} token ${j}: score ${scored[i]![seg.offset + j]} vs sampled ${recorded[j]}`);
          checked++;
        }
      }
    });
  }
  return checked;
}

for (const mode of ["window", "full"] as const) {
  test(`embedded policy, ${mode} mode: sampled log-probs equal the scored training view (temperature 1)`, { timeout: 60_000 }, async () => {
    const trajs = await collectGroups(policy, () => new SokobanEnv(), sokobanTasks("validation", 2, 1), {
      seed: 5, groupSize: 2, history: { mode }, maxSteps: 3, maxActionTokens: 12, temperature: 1,
    });
    assert.equal(trajs.length, 4);
    assert.ok((await assertScoresMatchSampling(trajs)) > 20);
    for (const t of trajs) for (const turn of t.turns) assert.ok(turn.sampledTokens.length <= 12);
  });
}

test("embedded policy with the action mask: a model that opens <action> only ever completes admissible actions; scoring applies the mask", { timeout: 60_000 }, async () => {
  // Teach a fresh tiny model to open the action tag right away (a few SFT steps), so that the
  // mask, not chance, decides what follows it.
  const student = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 1536 }), tokenizer, seed: 4 });
  const chat = new ChatFormat(tokenizer);
  const prompt = chat.prompt(alfworldRenderer.first({ task: "", step: 0, observation: new ToyHouse().reset(TOY_TASK, 0), history: [] }));
  const target = tokenizer.encode("<think>go</think><action>");
  const request = { tokens: [...prompt, ...target], start: prompt.length };
  for (let i = 0; i < 40; i++) {
    await student.backward([request], [new Float32Array(target.length).fill(-1 / target.length)]);
    await student.step({ lr: 3e-2 });
  }
  const trajs = await collectGroups(student, () => new ToyHouse(), [TOY_TASK], {
    seed: 2, groupSize: 4, renderer: alfworldRenderer, history: { mode: "full" }, maxSteps: 3, maxActionTokens: 40, temperature: 1, actionMask: true,
  });
  let completed = 0;
  for (const t of trajs) {
    for (const turn of t.turns) {
      assert.equal(turn.masked, true);
      const open = turn.responseText.indexOf("<action>");
      if (open === -1) continue;
      const close = turn.responseText.indexOf("</action>", open);
      const admissible = ["go to door 1", "go to table 1", "go to table 2", "inventory", "look", "take key 1 from table 1", "take key 1 from table 2", "open door 1"];
      if (close === -1) {
        // Cut by the token limit inside the action: still a prefix of an admissible one.
        const partial = turn.responseText.slice(open + 8);
        assert.ok(admissible.some((a) => (a + "</action>").startsWith(partial)), JSON.stringify(partial));
      } else {
        assert.ok(admissible.includes(turn.responseText.slice(open + 8, close)), turn.responseText);
        completed++;
      }
    }
  }
  assert.ok(completed > 0, "the trained model opened and completed at least one action");
  assert.ok((await assertScoresMatchSampling(trajs, student)) > 0);
});
