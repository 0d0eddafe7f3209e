// The compact ALFWorld prompt: what it keeps (room, task line, observations), what it drops
// (banner, role, admissible list), where H puts a skill, and how it is selected by style.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Observation } from "../../envs/env.ts";
import { applySkill } from "../../skills/context.ts";
import { alfworldCompactRenderer, compactRoom, COMPACT_TURN_LINE } from "./alfworld-compact.ts";
import { renderers, rendererFor } from "./index.ts";

const RESET: Observation = {
  text: "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a bed 1, and a desk 1.\n\nYour task is to: put some book on desk.",
  admissible: ["go to bed 1", "go to desk 1", "help", "inventory", "look"],
  task: "put some book on desk.",
};
const ROOM = "You are in the middle of a room. Looking quickly around you, you see a bed 1, and a desk 1.";

test("the first turn is the room sentence, the task line and the turn anchor: no banner, no admissible list", () => {
  const text = alfworldCompactRenderer.first({ task: RESET.task, step: 0, observation: RESET, history: [] });
  assert.equal(text, `${ROOM}\nYour task is to: put some book on desk.\n${COMPACT_TURN_LINE}`);
  assert.equal(compactRoom(RESET.text), ROOM);
  assert.equal(compactRoom("  You arrive at desk 1.  "), "You arrive at desk 1.");
});

test("later full-mode turns are the observation alone", () => {
  const obs = { text: "You arrive at desk 1. On the desk 1, you see a book 1.\n", task: RESET.task, admissible: ["take book 1 from desk 1"] };
  assert.equal(alfworldCompactRenderer.next({ task: RESET.task, step: 1, observation: obs, history: [] }), "You arrive at desk 1. On the desk 1, you see a book 1.");
});

test("window prompts show the task line, the last k steps as '> action' / observation, and the anchor", () => {
  const history = [1, 2, 3].map((n) => ({ step: n, observation: `obs ${n}`, action: `act ${n}`, after: `after ${n}` }));
  const text = alfworldCompactRenderer.window({ task: RESET.task, step: 3, observation: { ...RESET, text: "after 3" }, history }, 2);
  assert.equal(text, `Your task is to: put some book on desk.\n> act 2\nafter 2\n> act 3\nafter 3\n${COMPACT_TURN_LINE}`);
  assert.equal(alfworldCompactRenderer.window({ task: RESET.task, step: 0, observation: RESET, history: [] }, 2), alfworldCompactRenderer.first({ task: RESET.task, step: 0, observation: RESET, history: [] }));
});

test("H inserts a skill right after the compact task line, before the anchor", () => {
  for (const step of [0, 2]) {
    const history = Array.from({ length: step }, (_, i) => ({ step: i + 1, observation: "o", action: "a", after: "b" }));
    const text = applySkill(alfworldCompactRenderer.window({ task: RESET.task, step, observation: RESET, history }, 5), "Look on the desk.", "insert");
    assert.match(text, /Your task is to: put some book on desk\.\n\n\*\*Episode-Level Skill\*\*\n[^\n]+\n\[Look on the desk\.\]\n\n/);
    assert.ok(text.indexOf("**Episode-Level Skill**") < text.indexOf(COMPACT_TURN_LINE));
  }
});

test("masking and projection are the standard renderer's; styles select renderers, compact falls back where none exists", () => {
  assert.deepEqual(alfworldCompactRenderer.maskEntries(RESET), renderers.alfworld.maskEntries(RESET));
  assert.deepEqual(alfworldCompactRenderer.project("<think>x</think><action>go to desk 1</action>"), renderers.alfworld.project("<think>x</think><action>go to desk 1</action>"));
  assert.equal(rendererFor("alfworld", "compact"), alfworldCompactRenderer);
  assert.equal(rendererFor("alfworld"), renderers.alfworld);
  assert.equal(rendererFor("webshop", "compact"), renderers.webshop);
  assert.throws(() => rendererFor("nope", "compact"), /no prompt renderer/);
});
