import { test } from "node:test";
import assert from "node:assert/strict";
import { demoWork } from "./demo.ts";
import { planExperiment } from "./experiment.ts";
import { readExperimentSpec } from "./experiment-spec.ts";

test("the demo's progress weights reproduce its measured stage times on the idle machine (docs/RESULTS.md §2)", () => {
  const spec = readExperimentSpec("demo");
  const plans = planExperiment(spec, { out: "/tmp/never-written-demo" });
  const w = demoWork(plans, spec.eval.splits.length * spec.eval.count);
  assert.equal(Math.round(w.stage0), 312);
  assert.equal(Math.round(w.stage1), 270);
  const seed = w.runs.filter((_, i) => plans[i]!.arm.preset === "seed"), grpo = w.runs.filter((_, i) => plans[i]!.arm.preset === "grpo");
  assert.equal(seed.length, 3);
  for (const x of seed) assert.equal(Math.round(x), 52);
  for (const x of grpo) assert.equal(Math.round(x), 35);
});

test("the real demo's progress weights: no Stage 0 or Stage 1 work (both shipped), and the measured run times per seed", () => {
  const spec = readExperimentSpec("demo-real");
  const plans = planExperiment(spec, { out: "/tmp/never-written-demo-real" });
  const w = demoWork(plans, spec.eval.splits.length * spec.eval.count);
  assert.equal(w.stage0, 1);
  assert.equal(w.stage1, 1);
  const by = (name: string) => w.runs.filter((_, i) => plans[i]!.arm.name === name).map(Math.round);
  assert.deepEqual(by("SEED"), [118, 118, 118]);
  assert.deepEqual(by("GRPO"), [97, 97, 97]);
  assert.deepEqual(by("Vanilla"), [15, 15, 15]);
});
