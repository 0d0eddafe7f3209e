// Stage-0 demonstrations: the ids a demonstration is trained on are exactly the ids a `full`-mode
// rollout of the same responses builds (the agent's own prompt format, hint inserted by H), the
// loss mask covers the expert's responses only, and hints are read and falsified as documented.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatFormat } from "../../policy/chat-format.ts";
import { PROMPT_STYLES, rendererFor } from "../../agent/prompts/index.ts";
import { alfworldGeneratedTasks, AlfworldEnv, generatedPriors, type AlfworldGenOptions } from "../../envs/alfworld/index.ts";
import { trainBpe } from "../../model/tokenizer/index.ts";
import { assertEncodesAsRollout } from "../../testing/demo-rollout.ts";
import { createHash } from "node:crypto";
import { defaultConfig } from "../../config/config.ts";
import { resolve } from "node:path";
import { stage0Key } from "./base.ts";
import { demoTexts, encodeDemo, followHint, hindsightHint, hintPlaces, misleadingHint, playDemo, selfHint, type DemoWorld } from "./demos.ts";

const GEN: AlfworldGenOptions = { receptacles: [4, 6] };
const WORLD: DemoWorld = { makeEnv: () => new AlfworldEnv({ maxSteps: 20 }), maxSteps: 20, gen: GEN };

test("hint places are read from the analyzer's '(look in|on the X' clauses and can be falsified", () => {
  const hint = "First find a mug (look in the fridge, opening it first) and take it, then find a second mug (look on the countertop) and take it.";
  assert.deepEqual(hintPlaces(hint), ["fridge", "countertop"]);
  const initial = { text: "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, a fridge 1, and a sinkbasin 1.\n\nYour task is to: put two mug in cabinet.", task: "put two mug in cabinet." };
  const wrong = misleadingHint(hint, initial, 3)!;
  assert.notEqual(wrong, hint);
  assert.match(wrong, /^First find a mug \(look in the (cabinet|sinkbasin), opening it first\)/);
  assert.equal(misleadingHint(hint, initial, 3), wrong, "deterministic in its seed");
  assert.equal(misleadingHint("Do not repeat actions.", initial, 3), undefined);
  const p = followHint(generatedPriors(GEN), "mug", ["fridge"]);
  assert.deepEqual(p.contain["mug"]!["fridge"], [1000, 1000]);
});

for (const style of PROMPT_STYLES) test(`a hinted demonstration is tokenized exactly as a full-mode rollout of its responses (${style} prompt), mask on expert responses only`, async () => {
  const renderer = rendererFor("alfworld", style);
  const [task] = alfworldGeneratedTasks("train", 1, { ...GEN, seed: 0 });
  const { hint, oracle } = await hindsightHint(WORLD, task!, 11);
  assert.ok(oracle.won && hint.startsWith("First "), hint);
  const demo = playDemo(WORLD, task!, 11, 0.3, followHint(generatedPriors(GEN), "", hintPlaces(hint)), hint);
  await assertEncodesAsRollout(demo, task!, 11, WORLD, renderer);
});

test("self hints are the analyzer's skills of a noisy episode (avoidance rules on failure); trainNoise trains random steps too", async () => {
  const tasks = alfworldGeneratedTasks("train", 12, { ...GEN, seed: 2 });
  const hints = await Promise.all(tasks.map((t, i) => selfHint(WORLD, t, i, 0.9)));
  assert.ok(hints.every((h) => h.hint !== ""), "the rule analyzer always writes a valid skill");
  const failed = hints.filter((h) => !h.oracle.won);
  assert.ok(failed.length > 0, "ε 0.9 fails some games");
  for (const h of failed) assert.match(h.hint, /^Do not /, h.hint);
  assert.deepEqual((await selfHint(WORLD, tasks[0]!, 0, 0.9)).hint, hints[0]!.hint, "deterministic in its seed");
  const demo = playDemo(WORLD, tasks[0]!, 3, 0.5, generatedPriors(GEN), "");
  assert.ok(demo.steps.some((s) => !s.expert), "some random steps");
  const chat = new ChatFormat(trainBpe(demoTexts(demo), { vocabSize: 400 }));
  const masked = encodeDemo(demo, chat, 100000)!, all = encodeDemo(demo, chat, 100000, undefined, { trainNoise: true })!;
  assert.deepEqual(all.request.tokens, masked.request.tokens);
  const ones = (m: Uint8Array) => m.reduce((a, b) => a + b, 0);
  assert.ok(ones(all.mask) > ones(masked.mask));
  const responseIds = demo.steps.reduce((n, s) => n + chat.tokenizer.encode(s.response).length + 1, 0);
  assert.equal(ones(all.mask), responseIds, "every response id, random steps included");
});

test("Stage-0 cache keys of configs without the skill-reading options are what they were before those options existed", () => {
  const c = structuredClone(defaultConfig);
  const { selfHints: _a, selfHintEpsilon: _b, trainPlainNoise: _c, init: _d, ...classic } = c.stage0;
  const { name, data, split, receptacles, maxSteps } = c.env;
  const { maxActionTokens, prompt, actionMask } = c.rollout;
  const before = createHash("sha256").update(JSON.stringify({ v: 2, env: { name, data, split, receptacles, maxSteps }, stage0: classic, rollout: { maxActionTokens, prompt, actionMask } })).digest("hex").slice(0, 16);
  assert.equal(stage0Key(c), before);
  assert.notEqual(stage0Key({ ...c, stage0: { ...c.stage0, selfHints: 0.5 } }), before);
  // A pretrained init is part of the key, by its absolute path.
  assert.notEqual(stage0Key({ ...c, stage0: { ...c.stage0, init: "runs/smollm2" } }), before);
  assert.equal(stage0Key({ ...c, stage0: { ...c.stage0, init: "runs/smollm2" } }), stage0Key({ ...c, stage0: { ...c.stage0, init: resolve("runs/smollm2") } }));
});
