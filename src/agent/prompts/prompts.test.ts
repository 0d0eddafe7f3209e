import { test } from "node:test";
import assert from "node:assert/strict";
import type { Observation } from "../../envs/env.ts";
import type { HistoryRecord } from "../history.ts";
import { alfworldActionList } from "./alfworld.ts";
import { renderers } from "./index.ts";
import { reformatWebshopObservation, webshopActions, WEBSHOP_HISTORY_CHAR_LIMIT } from "./webshop.ts";

const I = "i want a red mug, and price lower than 40.00 dollars";

const observations: Record<keyof typeof renderers, Observation> = {
  alfworld: {
    text: "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a bed 1, and a desk 1.\n\nYour task is to: put some book on desk.",
    admissible: ["go to bed 1", "go to desk 1", "help", "inventory", "look"],
    task: "put some book on desk.",
  },
  webshop: { text: `WebShop [SEP] Instruction: [SEP] ${I} [SEP] Search`, admissible: ["search"], task: I },
  search: { text: "who wrote hamlet?", task: "who wrote hamlet?" },
  sokoban: { text: " # \t # \t\n # \t P \t", task: "push the box onto the target" },
  ezpoints: { text: "Cards: S4 (4) and H3 (3). Formula: ''", task: "make 12" },
};

function history(n: number): HistoryRecord[] {
  return Array.from({ length: n }, (_, i) => ({ step: i + 1, observation: `obs ${i + 1}`, action: `act ${i + 1}`, after: `<information>info ${i + 1}</information>` }));
}

test("ALFWorld admissible list: every command but help, single-quoted, joined by newline-space, in brackets (exact)", () => {
  assert.equal(alfworldActionList(observations.alfworld), "['go to bed 1'\n 'go to desk 1'\n 'inventory'\n 'look']");
});

test("the first step shows ALFWorld's full reset text; later steps add the task line and the window", () => {
  const r = renderers.alfworld;
  const first = r.window({ task: observations.alfworld.task, step: 0, observation: observations.alfworld, history: [] }, 5);
  assert.ok(first.includes(observations.alfworld.text));
  const later = r.window({ task: observations.alfworld.task, step: 3, observation: { ...observations.alfworld, text: "You arrive at desk 1." }, history: history(3) }, 2);
  assert.match(later.split("\n")[0]!, /Your task is to: put some book on desk\.$/);
  assert.ok(later.includes("[Observation 2: 'obs 2', Action 2: 'act 2']\n[Observation 3: 'obs 3', Action 3: 'act 3']"));
  assert.ok(!later.includes("Observation 1:"));
  assert.match(later, /step 4 and your current observation is: You arrive at desk 1\./);
});

test("every prompt carries a task anchor and the turn anchor the skill function H looks for", () => {
  for (const [id, r] of Object.entries(renderers)) {
    const o = observations[id as keyof typeof renderers];
    for (const step of [0, 2]) {
      const text = r.window({ task: o.task, step, observation: o, history: history(step) }, 4);
      assert.match(text, /Your task is to:|Your question:|Your goal is to/, `${id} step ${step}`);
      assert.match(text, /Now it's your turn/, `${id} step ${step}`);
    }
    assert.ok(r.first({ task: o.task, step: 0, observation: o, history: [] }).length > 0);
    assert.ok(r.next({ task: o.task, step: 1, observation: o, history: history(1) }).includes(id === "webshop" ? "'Search'" : o.text));
  }
});

test("WebShop: observations keep the parts after the instruction, single-quoted, as verl-agent reformats them", () => {
  assert.equal(reformatWebshopObservation(observations.webshop.text, I), "'Search'");
  const results = `Instruction: [SEP] ${I} [SEP] Back to Search [SEP] Page 1 (Total results: 50) [SEP] Next > [SEP] B09GKFNQWT`;
  assert.equal(reformatWebshopObservation(results, I), "'Back to Search' [SEP] 'Page 1 (Total results: 50)' [SEP] 'Next >' [SEP] 'B09GKFNQWT'");
  assert.equal(reformatWebshopObservation("no instruction here", I), "no instruction here");
  assert.deepEqual(webshopActions({ text: "", task: I, admissible: ["search", "back to search", "click[next >]"] }), ["search[<your query>]", "click[back to search]", "click[next >]"]);
  const prompt = renderers.webshop.first({ task: I, step: 0, observation: observations.webshop, history: [] });
  assert.ok(prompt.includes("Your available actions are:\n[\n'search[<your query>]',\n]"));
});

test("WebShop: a history prompt over 20,000 characters falls back to the no-history prompt", () => {
  const long = [{ step: 1, observation: "x".repeat(WEBSHOP_HISTORY_CHAR_LIMIT), action: "click[b0]", after: "" }];
  const o = { ...observations.webshop };
  const text = renderers.webshop.window({ task: I, step: 1, observation: o, history: long }, 2);
  assert.equal(text, renderers.webshop.first({ task: I, step: 1, observation: o, history: long }));
});

test("Search: history records are `Step n:<action> <information>` separated by blank lines (exact)", () => {
  const text = renderers.search.window({ task: "q?", step: 2, observation: observations.search, history: history(2) }, 4);
  assert.ok(text.includes("Step 1:act 1 <information>info 1</information>\n\nStep 2:act 2 <information>info 2</information>\n"));
});

test("Sokoban history shows capitalised moves; EZPoints never shows history", () => {
  assert.equal(renderers.sokoban.viewAction("up"), "Up");
  assert.equal(renderers.sokoban.viewAction("still"), "Still");
  const o = observations.ezpoints;
  assert.equal(renderers.ezpoints.window({ task: o.task, step: 3, observation: o, history: history(3) }, 4), renderers.ezpoints.first({ task: o.task, step: 3, observation: o, history: [] }));
});

test("the skill function H puts its block after each prompt's task line, before the instruction", async () => {
  const { applySkill } = await import("../../skills/context.ts");
  for (const [id, r] of Object.entries(renderers)) {
    const o = observations[id as keyof typeof renderers];
    for (const step of [0, 2]) {
      const text = r.window({ task: o.task, step, observation: o, history: history(step) }, 4);
      const withSkill = applySkill(text, "SKILL-TEXT", "insert");
      const block = withSkill.indexOf("**Episode-Level Skill**");
      assert.ok(block > 0, `${id} step ${step}`);
      assert.ok(block < withSkill.indexOf("Now it's your turn"), `${id} step ${step}: block before the instruction`);
      const before = withSkill.slice(0, block);
      assert.match(before, /(Your task is to:|Your question:|Your goal is to)[^\n]*\n\n$/, `${id} step ${step}: right after the task line`);
    }
  }
});
