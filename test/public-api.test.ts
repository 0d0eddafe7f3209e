// The package entry points load and expose the documented names (README, src/index.ts).
import { test } from "node:test";
import assert from "node:assert/strict";

test("seed-rl exports its entry points from every layer", async () => {
  const api = await import("../src/index.ts");
  for (const name of ["Rng", "EmbeddedPolicy", "RemotePolicy", "makeEnv", "collectGroups", "createOpenAiServer", "trainBpe"] as const) {
    assert.equal(typeof api[name], "function", name);
  }
  assert.equal(typeof api.train.train, "function");
  assert.equal(typeof api.train.resolveConfig, "function");
  assert.equal(typeof api.losses.combineLosses, "function");
  assert.equal(typeof api.skills.applySkill, "function");
  assert.equal(typeof api.evaluation.runDemo, "function");
  assert.deepEqual([...api.ENV_NAMES], ["alfworld", "webshop", "search", "sokoban", "ezpoints"]);
});

test("seed-rl/testing exports the test doubles", async () => {
  const testing = await import("../src/testing/index.ts");
  assert.equal(typeof testing.ScriptedPolicy, "function");
});
