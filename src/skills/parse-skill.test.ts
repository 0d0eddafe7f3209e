// Analyzer parse/repair fixtures: fenced JSON, trailing commas, single quotes, two
// objects, garbage, and the validator's criteria.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lenientParse, parseSkill, stripTrailingCommas, validateSkill } from "./parse-skill.ts";
import { skillTarget } from "./template.ts";
import { Rng } from "../core/rng.ts";

const SKILL = "Open the drawer before you search it for the key.";

function skillOf(answer: string) {
  const r = parseSkill(answer);
  assert.ok(r.ok, `expected a skill from ${JSON.stringify(answer)}: ${r.ok ? "" : r.error.message}`);
  return r.value;
}

function issueOf(answer: string) {
  const r = parseSkill(answer);
  assert.ok(!r.ok, `expected no skill from ${JSON.stringify(answer)}`);
  return r.error;
}

test("plain JSON and the SFT target round-trip", () => {
  assert.deepEqual(skillOf(`{"skill": "${SKILL}"}`), { skill: SKILL, route: "json", fenced: false });
  assert.equal(skillOf(skillTarget(`  ${SKILL} `)).skill, SKILL);
  assert.equal(skillTarget(SKILL), `{"skill":"${SKILL}"}`);
});

test("a fenced json block is preferred over the surrounding text", () => {
  const answer = `Here is my analysis {"skill": "ignored because not fenced"}\n\`\`\`json\n{"skill": "${SKILL}"}\n\`\`\`\nDone.`;
  assert.deepEqual(skillOf(answer), { skill: SKILL, route: "json", fenced: true });
  assert.equal(skillOf("```\n{\"skill\": \"" + SKILL + "\"}\n```").fenced, true);
});

test("trailing commas are repaired", () => {
  assert.equal(stripTrailingCommas('{"a": [1, 2,], "b": 3,}'), '{"a": [1, 2], "b": 3}');
  const v = skillOf(`\`\`\`json\n{"skill": "${SKILL}",\n}\n\`\`\``);
  assert.equal(v.skill, SKILL);
  assert.equal(v.route, "trailing-commas");
});

test("single quotes, bare keys and Python literals are read leniently", () => {
  assert.deepEqual(skillOf(`{'skill': '${SKILL}', 'ok': True}`), { skill: SKILL, route: "lenient", fenced: false });
  assert.equal(skillOf(`{skill: "${SKILL}"}`).route, "lenient");
  assert.deepEqual(lenientParse("{'a': None, 'b': [1, 'x',], \"c\": 'it\\'s'}"), { a: null, b: [1, "x"], c: "it's" });
  assert.equal(lenientParse("{'a': }"), undefined);
});

test("with two objects, the one holding the skill key wins; the reference key episode_skill is accepted", () => {
  assert.equal(skillOf(`{"episode_summary": "the agent looped"} {"skill": "${SKILL}"}`).skill, SKILL);
  assert.equal(skillOf(`{"episode_summary": "x", "episode_skill": "${SKILL}"}`).skill, SKILL);
  assert.equal(skillOf(`{"skill": "${SKILL}"}\n{"skill": "Another rule that comes second."}`).skill, SKILL);
});

test("an object is found inside prose, with braces and quotes inside its strings", () => {
  assert.equal(skillOf(`Sure! {"skill": "Use {curly} words and \\"quotes\\" freely here."} hope it helps`).skill, 'Use {curly} words and "quotes" freely here.');
  assert.equal(skillOf(`{"analysis": {"skill": "${SKILL}"}}`).skill, SKILL); // decoded at the inner '{'
});

test("garbage, missing keys and wrong types are rejected with a reason", () => {
  assert.equal(issueOf("I think the agent should have opened the drawer.").kind, "no-json");
  assert.equal(issueOf("").kind, "no-json");
  assert.equal(issueOf("{ not json at all").kind, "no-json");
  assert.equal(issueOf('{"summary": "looped"}').kind, "no-skill-key");
  assert.match(issueOf('{"summary": "looped"}').message, /keys: summary/);
  assert.equal(issueOf('{"skill": ["a rule", "another rule"]}').kind, "not-a-string");
  assert.equal(issueOf('{"skill": "   "}').kind, "empty");
  assert.equal(issueOf('{"skill": "Be careful"}').kind, "too-short");
  assert.equal(issueOf('{"skill": "... ... ..."}').kind, "too-short");
  assert.equal(issueOf(`{"skill": "${"word ".repeat(100)}"}`).kind, "too-long");
});

test("the validator trims and applies the documented bounds", () => {
  assert.deepEqual(validateSkill("  Open the drawer first.  "), { ok: true, value: "Open the drawer first." });
  assert.equal(validateSkill("x y z".padEnd(401, "z"), { minWords: 3, maxChars: 400 }).ok, false);
  assert.equal(validateSkill("two words", { minWords: 2, maxChars: 400 }).ok, true);
  assert.equal(validateSkill(42).ok, false);
});

test("parseSkill never throws on seeded random text", () => {
  const rng = Rng.from(31);
  const alphabet = `{}[]"',:\\ \n\`abcskil_0123456789json`;
  for (let i = 0; i < 800; i++) {
    const n = rng.int(80);
    let s = "";
    for (let k = 0; k < n; k++) s += alphabet[rng.int(alphabet.length)];
    const r = parseSkill(s);
    assert.equal(typeof r.ok, "boolean");
  }
});

test("adversarial answers (issue 11: 16 KB took 8 s) are read in one pass, with the old results", () => {
  // Each shape made the slice-per-brace reader quadratic; at 64 KB that would be minutes.
  const n = 64 * 1024;
  const expected: [string, string, string][] = [
    ["open braces", "{".repeat(n), "no-json"],
    ["balanced braces", "{".repeat(n / 2) + "}".repeat(n / 2), "no-skill-key"],
    ["nested keys, unclosed", '{"a":'.repeat(n / 5), "no-json"],
    ["nested keys, broken inside", '{"a":'.repeat(n / 6) + "x" + "}".repeat(n / 6), "no-json"],
    ["lenient nesting", "{a:".repeat(n / 3), "no-json"],
    ["unclosed fences", "```\n{".repeat(n / 5), "no-json"],
    ["quotes after braces", '{"'.repeat(n / 2), "no-json"],
  ];
  for (const [name, text, kind] of expected) {
    const r = parseSkill(text);
    assert.ok(!r.ok, name);
    assert.equal(r.error.kind, kind, name);
  }
  // A real skill after the junk is still found, at the brace where it starts.
  assert.equal(skillOf('{"a":'.repeat(n / 5) + `{"skill": "${SKILL}"}`).skill, SKILL);
  assert.equal(skillOf("{".repeat(n) + `{'skill': '${SKILL}'}`).route, "lenient");
});

test("a brace inside a string still starts an object when the enclosing one is malformed", () => {
  assert.equal(skillOf(`{"{"skill": "${SKILL}"}`).skill, SKILL);
  assert.equal(skillOf(`"{"{"skill": "${SKILL}"}}`).skill, SKILL);
  assert.deepEqual(lenientParse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}'));
  assert.equal(Object.getPrototypeOf(lenientParse('{"__proto__": {"x": 1}}')), Object.prototype);
  assert.equal(lenientParse("[".repeat(5000)), undefined); // too deep: rejected, not a stack overflow
});
