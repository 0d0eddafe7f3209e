import { test } from "node:test";
import assert from "node:assert/strict";
import { degradedAnalyzer } from "./degraded-analyzer.ts";
import { ruleAnalyzer } from "./rule-analyzer.ts";
import { analysisMetrics, type Analysis, type Analyzer } from "./analyzer.ts";
import { genericSkills, librarySkill, studentSkillTransform, taskTypeSkill, taskTypeSkills } from "./library.ts";
import type { SerializedTrajectory } from "./serialize.ts";

function traj(i: number): SerializedTrajectory {
  const outcome = i % 2 === 0 ? "success" : "failure";
  const text = [
    "Task: put some book on sidetable.",
    "Step 0", "Observation: You are in the middle of a room.", `Action: go to bed ${i}`, "Action valid: true", "Reward: 0.000000", "Return: 9.500000",
    "Step 1", `Observation: You arrive at bed ${i}. On the bed ${i}, you see a book 1.`, `Action: take book 1 from bed ${i}`, "Action valid: true", "Reward: 0.000000", "Return: 10.000000",
    `Outcome: ${outcome}`,
  ].join("\n");
  return { text, task: "put some book on sidetable.", outcome, steps: 2 };
}
const batch = Array.from({ length: 400 }, (_, i) => traj(i));

test("rate 0 changes nothing; rate 1 corrupts every valid skill", async () => {
  const inner = ruleAnalyzer();
  assert.deepEqual(await degradedAnalyzer(inner, { rate: 0, seed: 1 }).analyze(batch.slice(0, 20)), await inner.analyze(batch.slice(0, 20)));
  const all = await degradedAnalyzer(inner, { rate: 1, seed: 1 }).analyze(batch.slice(0, 20));
  assert.ok(all.every((a) => a.ok && a.degradation !== undefined));
});

test("the realised corruption share matches the documented rate, and each kind does what it says", async () => {
  const inner = ruleAnalyzer();
  const clean = await inner.analyze(batch);
  const out = await degradedAnalyzer(inner, { rate: 0.3, seed: 7 }).analyze(batch);
  const hit = out.filter((a) => a.ok && a.degradation !== undefined);
  assert.ok(Math.abs(hit.length / batch.length - 0.3) < 0.06, `${hit.length}`);
  const m = analysisMetrics(out);
  for (const kind of ["generic", "shuffled", "wrong-outcome"]) assert.ok((m[`skills/degraded/${kind}`] ?? 0) > 15, kind);
  out.forEach((a, i) => {
    if (!a.ok || a.degradation === undefined) return;
    const original = (clean[i] as Extract<Analysis, { ok: true }>).skill;
    if (a.degradation === "generic") assert.ok(genericSkills.includes(a.skill));
    if (a.degradation === "wrong-outcome") {
      // a success now gets an avoidance rule, a failure a workflow
      assert.equal(a.skill.startsWith("Do not"), batch[i]!.outcome === "success", a.skill);
    }
    if (a.degradation === "shuffled") assert.ok(clean.some((c, j) => j !== i && c.ok && c.skill === a.skill) || a.skill === original);
  });
});

test("draws are seeded per trajectory text: independent of batch order, different across seeds", async () => {
  const inner = ruleAnalyzer();
  const sub = batch.slice(0, 60);
  const d = degradedAnalyzer(inner, { rate: 0.5, seed: 3, kinds: ["generic"] });
  const fwd = await d.analyze(sub);
  const rev = (await d.analyze([...sub].reverse())).reverse();
  assert.deepEqual(fwd, rev);
  const other = await degradedAnalyzer(inner, { rate: 0.5, seed: 4, kinds: ["generic"] }).analyze(sub);
  assert.notDeepEqual(fwd.map((a) => a.ok && a.degradation), other.map((a) => a.ok && a.degradation));
  assert.throws(() => degradedAnalyzer(inner, { rate: 1.5, seed: 1 }), RangeError);
});

test("failed analyses stay failed", async () => {
  const failing: Analyzer = { name: "none", analyze: async (ts) => ts.map(() => ({ ok: false, issues: [{ kind: "no-json", message: "x" }], attempts: 1, answers: ["x"] })) };
  const out = await degradedAnalyzer(failing, { rate: 1, seed: 1 }).analyze(batch.slice(0, 5));
  assert.ok(out.every((a) => !a.ok));
});

test("the static library returns general plus task-type skills, by task sentence or by game path", () => {
  assert.equal(taskTypeSkill("alfworld", "put a hot cup in cabinet."), taskTypeSkills.alfworld.heat);
  assert.equal(taskTypeSkill("alfworld", "?", "valid_seen/look_at_obj_in_light-Bowl-None-DeskLamp-301/trial_1"), taskTypeSkills.alfworld.look);
  assert.equal(taskTypeSkill("alfworld", "?", "x/pick_two_obj_and_place-Book-None-Desk-1/t"), taskTypeSkills.alfworld.pick2);
  assert.equal(taskTypeSkill("webshop", "anything"), taskTypeSkills.webshop);
  assert.equal(taskTypeSkill("maze", "anything"), undefined);
  const s = librarySkill("alfworld", "clean some fork and put it in drawer.");
  assert.ok(s.includes(taskTypeSkills.alfworld.clean) && s.startsWith(genericSkills.length > 0 ? "Read the task" : ""));
  assert.ok(!librarySkill("maze", "x").includes("Find the object"));
});

test("the Skill-GRPO transform prepends the library skill chosen by the game path or the task line", () => {
  const t = studentSkillTransform("alfworld", "prepend", [{ id: "valid_seen/x/trial_1" }, { id: "valid_seen/look_at_obj_in_light-Bowl-None-DeskLamp-301/trial_1" }]);
  const heat = t("Role.\nYour task is to: put a hot cup in cabinet.\nAct.", { groupIndex: 0 });
  assert.ok(heat.startsWith(`[Privileged Skill Information]\n${librarySkill("alfworld", "put a hot cup in cabinet.")}\n\nRole.`));
  assert.ok(heat.includes(taskTypeSkills.alfworld.heat));
  const look = t("no task line here", { groupIndex: 1 });
  assert.ok(look.includes(taskTypeSkills.alfworld.look));
  const inserted = studentSkillTransform("webshop", "insert", [{ id: "w1" }])("Role.\nYour task is to: buy socks\nNow it's your turn to act.", { groupIndex: 0 });
  assert.ok(inserted.includes(`Your task is to: buy socks\n\n**Episode-Level Skill**`) && inserted.includes(taskTypeSkills.webshop));
});
