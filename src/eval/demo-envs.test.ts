// `seed demo --env webshop|search`: the presets it reads exist, train on the environment and evaluate on its test split.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEMO_ENVS, demoPreset } from "./demo.ts";
import { readExperimentSpec } from "./experiment-spec.ts";

test("every demo environment has a full and a quick preset; WebShop's train on webshop and evaluate on the test goals", () => {
  assert.equal(demoPreset("alfworld", false), "demo");
  assert.equal(demoPreset("alfworld", true), "demo-quick");
  for (const env of DEMO_ENVS) for (const quick of [false, true]) assert.equal(readExperimentSpec(demoPreset(env, quick)).name, demoPreset(env, quick));
  for (const quick of [false, true]) {
    const spec = readExperimentSpec(demoPreset("webshop", quick));
    assert.ok(spec.overrides.includes("env.name=webshop"));
    assert.deepEqual(spec.eval.splits, ["test"]);
    assert.deepEqual(spec.arms.slice(0, 2).map((a) => a.preset), ["seed", "grpo"]);
  }
  // The full WebShop demo has the before-training rows and GRPO from SEED's Stage-1 checkpoint, as the others do.
  assert.deepEqual(readExperimentSpec("demo-webshop").arms.map((a) => a.name), ["SEED", "GRPO", "GRPO (from SFT)", "Vanilla", "Vanilla (SFT)"]);
  assert.equal(readExperimentSpec("demo-webshop").eval.count, 128);
  for (const quick of [false, true]) {
    const spec = readExperimentSpec(demoPreset("search", quick));
    assert.ok(spec.overrides.includes("env.name=search"));
    assert.deepEqual(spec.eval.splits, ["test"]);
  }
  assert.equal(readExperimentSpec("demo-search").eval.count, 500, "the fixed 500-question panel");
});
