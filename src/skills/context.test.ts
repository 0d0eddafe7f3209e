import { test } from "node:test";
import assert from "node:assert/strict";
import { applySkill, episodeSkillBlock, skillContextEnd } from "./context.ts";
import { alfworldRenderer } from "../agent/prompts/alfworld.ts";

const SKILL = "Find the book first, take it, then put it on the sidetable.";
// The block, byte for byte (Variant A, `zhangdw156/SEED:seed/prompting.py`).
const BLOCK =
  "**Episode-Level Skill**\n" +
  "Refer to this episode-level skill when deciding what action to take in the current episode:\n" +
  "[Find the book first, take it, then put it on the sidetable.]";

test("the Variant A block is exact", () => {
  assert.equal(episodeSkillBlock(`  ${SKILL}\n`), BLOCK);
});

test("an empty or whitespace-only skill leaves the text unchanged, byte for byte, in both modes", () => {
  const text = "  Role line.\nYour task is to: x.  \n\n";
  for (const mode of ["insert", "prepend"] as const) {
    assert.equal(applySkill(text, "", mode), text);
    assert.equal(applySkill(text, " \n\t", mode), text);
  }
});

test("the block goes right after the task line, one blank line on each side", () => {
  const text = "You are an agent. Your task is to: put some book on sidetable.\nPrevious steps: none\nNow it's your turn to act.";
  assert.equal(
    applySkill(text, SKILL, "insert"),
    `You are an agent. Your task is to: put some book on sidetable.\n\n${BLOCK}\n\nPrevious steps: none\nNow it's your turn to act.`,
  );
});

test("the text is trimmed, the head right-trimmed and the rest left-trimmed; no trailing blank lines when the task line is last", () => {
  assert.equal(applySkill("\n  Your question: who?   \n\n   Answer now.  \n", SKILL, "insert"), `Your question: who?\n\n${BLOCK}\n\nAnswer now.`);
  assert.equal(applySkill("Role.\nYour task is to: x.", SKILL, "insert"), `Role.\nYour task is to: x.\n\n${BLOCK}`);
});

test("patterns are tried in order: 'Your task is to:' wins over an earlier 'Your goal is'", () => {
  const text = "Your goal is to help.\nYour task is to: buy socks.\nrest";
  assert.equal(applySkill(text, SKILL, "insert"), `Your goal is to help.\nYour task is to: buy socks.\n\n${BLOCK}\n\nrest`);
  const goal = "Rules.\nYour goal is to push every box onto a target.\nGrid";
  assert.equal(applySkill(goal, SKILL, "insert"), `Rules.\nYour goal is to push every box onto a target.\n\n${BLOCK}\n\nGrid`);
  const current = "Your current task is: find x\nmore";
  assert.equal(applySkill(current, SKILL, "insert"), `Your current task is: find x\n\n${BLOCK}\n\nmore`);
});

test("without a task line the block goes before the 'Now it's your turn' anchor", () => {
  const text = "You see a grid.\nMoves: up, down.\n\nNow it's your turn to act.\nThink first.";
  assert.equal(applySkill(text, SKILL, "insert"), `You see a grid.\nMoves: up, down.\n\n${BLOCK}\n\nNow it's your turn to act.\nThink first.`);
  assert.equal(applySkill("Obs.\nNow it's your turn", SKILL, "insert"), `Obs.\n\n${BLOCK}\n\nNow it's your turn`);
});

test("with neither, the block is appended after a blank line", () => {
  assert.equal(applySkill("Just an observation.\n", SKILL, "insert"), `Just an observation.\n\n${BLOCK}`);
});

test("prepend (Variant B) puts the privileged block before the untouched text", () => {
  assert.equal(applySkill("Role.\nYour task is to: x.\n", SKILL, "prepend"), `[Privileged Skill Information]\n${SKILL}\n\nRole.\nYour task is to: x.\n`);
});

test("on a real first-step ALFWorld prompt the block lands after the task line of the reset text, before the admissible actions", () => {
  const observation = {
    text: "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a bed 1, a desk 1, and a sidetable 1.\n\nYour task is to: put some book on sidetable.",
    admissible: ["go to bed 1", "go to desk 1", "go to sidetable 1", "help", "inventory", "look"],
    task: "put some book on sidetable.",
  };
  const prompt = alfworldRenderer.first({ task: observation.task, step: 0, observation, history: [] });
  const out = applySkill(prompt, SKILL, "insert");
  const taskLine = "Your task is to: put some book on sidetable.";
  assert.ok(out.includes(`${taskLine}\n\n${BLOCK}\n\nYour admissible actions`), out);
  assert.equal(out.replace(`\n\n${BLOCK}\n`, ""), prompt.trim()); // nothing else changed
});

test("skillContextEnd: a cut may start only after the skill block and the task line", () => {
  const text = "Role.\nYour task is to: put a mug in the sink.\nStep 1: look.\nNow it's your turn to act.";
  const inserted = applySkill(text, "Take the mug first.", "insert");
  const end = skillContextEnd(inserted, "Take the mug first.", "insert");
  assert.ok(inserted.slice(0, end).endsWith("[Take the mug first.]"));
  assert.ok(inserted.slice(end).includes("Step 1: look."));
  const prepended = applySkill(text, "Take the mug first.", "prepend");
  const pend = skillContextEnd(prepended, "Take the mug first.", "prepend");
  assert.ok(prepended.slice(0, pend).endsWith("Your task is to: put a mug in the sink."), "the task line comes after a prepended skill");
  assert.equal(skillContextEnd("no task here", "", "insert"), 0);
});
