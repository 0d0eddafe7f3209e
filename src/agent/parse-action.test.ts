import { test } from "node:test";
import assert from "node:assert/strict";
import { projectEzpoints, projectSearch, projectSokoban, projections } from "./parse-action.ts";

test("ALFWorld: action between the first tags, lower-cased and trimmed; valid with think tags", () => {
  assert.deepEqual(projections.alfworld("<think>find it</think><action> Go To Desk 1 </action>"), { action: "go to desk 1", valid: true });
});

test("ALFWorld: missing think tags, or CJK text, flag the response invalid but still send the action", () => {
  assert.deepEqual(projections.alfworld("<action>go to desk 1</action>"), { action: "go to desk 1", valid: false });
  assert.deepEqual(projections.alfworld("<think>去</think><action>look</action>"), { action: "look", valid: false });
  // Think tags are searched case-sensitively in the original text.
  assert.equal(projections.alfworld("<THINK>x</THINK><action>look</action>").valid, false);
});

test("ALFWorld/WebShop: missing action tags send the lower-cased tail (30 / 20 characters)", () => {
  const r = "<think>hmm</think> I will GO NORTH towards the big kitchen table now";
  assert.deepEqual(projections.alfworld(r), { action: r.toLowerCase().slice(-30), valid: false });
  assert.deepEqual(projections.webshop(r), { action: r.toLowerCase().slice(-20), valid: false });
  assert.deepEqual(projections.alfworld("ok"), { action: "ok", valid: false });
});

test("a closing tag before the opening one gives an empty action (Python slicing)", () => {
  assert.deepEqual(projections.alfworld("<think>a</think></action> x <action>look"), { action: "", valid: true });
});

test("Sokoban: first keyword in up/down/left/right/still order; still when missing", () => {
  assert.deepEqual(projectSokoban("<think>t</think><action>Left</action>"), { action: "left", valid: true });
  assert.deepEqual(projectSokoban("<think>t</think><action>right then up</action>"), { action: "up", valid: true });
  assert.deepEqual(projectSokoban("<think>t</think><action>jump</action>"), { action: "still", valid: false });
  assert.deepEqual(projectSokoban("left"), { action: "still", valid: false });
  assert.deepEqual(projectSokoban("<action>down</action>"), { action: "down", valid: false });
  assert.deepEqual(projectSokoban("<think>t</think><action>still</action>"), { action: "still", valid: true });
});

test("Search: one block, re-emitted trimmed in lower-case tags; a search wins over a later answer", () => {
  assert.deepEqual(projectSearch("<think>x</think><search> who wrote it </search>"), { action: "<search>who wrote it</search>", valid: true });
  assert.deepEqual(projectSearch("<answer> James Madison </answer>"), { action: "<answer>James Madison</answer>", valid: true });
  assert.deepEqual(projectSearch("<SEARCH>Upper</SEARCH>"), { action: "<search>Upper</search>", valid: true });
  // The search is still the action sent, but a response with both tags is invalid (verl-agent counts the whole text).
  assert.deepEqual(projectSearch("<search> who wrote it </search> and <answer>x</answer>"), { action: "<search>who wrote it</search>", valid: false });
});

test("Search: both tags, a repeated tag, or neither block is invalid, wherever the extra tag stands", () => {
  assert.deepEqual(projectSearch("<answer>a</answer><search>q</search>"), { action: "<search>q</search>", valid: false });
  assert.equal(projectSearch("<search>a <search> b</search>").valid, false);
  assert.equal(projectSearch("<answer>a <answer>b</answer>").valid, false);
  // Tags after the first closing tag count too: two searches, or two answers, are invalid.
  assert.deepEqual(projectSearch("<search>a</search> then <search>b</search>"), { action: "<search>a</search>", valid: false });
  assert.deepEqual(projectSearch("<answer>a</answer><answer>b</answer>"), { action: "<answer>a</answer>", valid: false });
  assert.equal(projectSearch("<search>a</search><SEARCH>b</SEARCH>").valid, false);
  assert.deepEqual(projectSearch("I think the answer is Paris"), { action: "", valid: false });
});

test("Search: the cut after the first closing tag is case-sensitive, as Python's `in`", () => {
  // No lower-case "</search>": nothing is cut, and the first block (tags in any case) is taken.
  assert.deepEqual(projectSearch("<SEARCH>a</SEARCH> x"), { action: "<search>a</search>", valid: true });
  // "</SEARCH>" does not cut, "</answer>" does: the answer is the action (invalid: both tags occur).
  assert.deepEqual(projectSearch("<answer>a</answer><search>q</SEARCH>"), { action: "<answer>a</answer>", valid: false });
});

test("EZPoints: exactly one distinct token after \"action\": is valid; 10 counts once", () => {
  assert.deepEqual(projectEzpoints('{"thoughts": "3 times 4", "action": "4"}'), { action: "4", valid: true });
  assert.deepEqual(projectEzpoints('{"thoughts": "x", "action": "10"}'), { action: "10", valid: true });
  assert.deepEqual(projectEzpoints('{"thoughts": "x", "action": "="}'), { action: "=", valid: true });
  assert.deepEqual(projectEzpoints('{"action": "4*"}'), { action: "", valid: false });
  // Without "action": only the last character counts (Python s[-1:]).
  assert.deepEqual(projectEzpoints("I choose +"), { action: "+", valid: true });
  assert.deepEqual(projectEzpoints("I choose plus"), { action: "", valid: false });
});
