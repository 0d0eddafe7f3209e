// Teacher skill sources: the external analyzer at every update writes exactly the labels Stage 1
// trains on, and an analyzer that fails masks the trajectory (v = 0) instead of throwing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { alfworldGeneratedTasks, AlfworldEnv, type AlfworldGenOptions } from "../envs/alfworld/index.ts";
import type { Analyzer } from "../skills/analyzer.ts";
import { ruleAnalyzer } from "../skills/rule-analyzer.ts";
import { demoTrajectory, hindsightHint, type DemoWorld } from "../train/pretrain/demos.ts";
import { externalSkills } from "./sources.ts";

const GEN: AlfworldGenOptions = { receptacles: [4, 6] };
const WORLD: DemoWorld = { makeEnv: () => new AlfworldEnv({ maxSteps: 20 }), maxSteps: 20, gen: GEN };

test("external skills are the rule analyzer's hindsight labels, one per trajectory", async () => {
  const tasks = alfworldGeneratedTasks("train", 2, { ...GEN, seed: 0 });
  const played = await Promise.all(tasks.map((t, i) => hindsightHint(WORLD, t, 30 + i)));
  const trajs = played.map((p) => demoTrajectory(p.oracle));
  const out = await externalSkills(ruleAnalyzer(), trajs);
  assert.deepEqual(out.valid, [1, 1]);
  assert.deepEqual(out.skills, played.map((p) => p.hint));
  assert.ok(out.skills.every((s) => s.startsWith("First ")), out.skills.join(" | "));
  assert.equal(out.metrics["skills/valid_frac"], 1);
});

test("an unusable external answer masks that trajectory", async () => {
  const [task] = alfworldGeneratedTasks("train", 1, { ...GEN, seed: 0 });
  const { oracle } = await hindsightHint(WORLD, task!, 7);
  const broken: Analyzer = { name: "broken", analyze: async (xs) => xs.map(() => ({ ok: false as const, issues: [{ kind: "no-json" as const, message: "no JSON object" }], attempts: 1, answers: ["???"] })) };
  const out = await externalSkills(broken, [demoTrajectory(oracle)]);
  assert.deepEqual(out.valid, [0]);
  assert.equal(out.metrics["skills/valid_frac"], 0);
});
