// `seed demo --env webshop`: the presets it reads exist, train on WebShop and evaluate on its test goals.
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
    assert.deepEqual(spec.arms.map((a) => a.preset), ["seed", "grpo"]);
  }
  assert.equal(readExperimentSpec("demo-webshop").eval.count, 128);
});
