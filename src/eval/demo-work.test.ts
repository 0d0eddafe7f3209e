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

test("the WebShop demo's progress weights reproduce its idle run (13 min 52 s): Stage 0 354 s, Stage 1 199 s, SEED 52 s, GRPO 41 s per seed", () => {
  const spec = readExperimentSpec("demo-webshop");
  const plans = planExperiment(spec, { out: "/tmp/never-written-demo-webshop" });
  const w = demoWork(plans, spec.eval.splits.length * spec.eval.count);
  assert.equal(Math.round(w.stage0), 354);
  assert.equal(Math.round(w.stage1), 199);
  const by = (preset: string) => w.runs.filter((_, i) => plans[i]!.arm.preset === preset).map(Math.round);
  assert.deepEqual(by("seed"), [52, 52, 52]);
  assert.deepEqual(by("grpo"), [41, 41, 41]);
});

test("the Search-QA demo's progress weights reproduce its idle run (7 min 48 s): Stage 0 285 s, Stage 1 55 s, SEED 16 s, GRPO 11 s, Vanilla 4.5 s per seed", () => {
  const spec = readExperimentSpec("demo-search");
  const plans = planExperiment(spec, { out: "/tmp/never-written-demo-search" });
  const w = demoWork(plans, spec.eval.splits.length * spec.eval.count);
  assert.equal(Math.round(w.stage0), 285);
  assert.equal(Math.round(w.stage1), 55);
  const near = (name: string, seconds: number) => {
    const runs = w.runs.filter((_, i) => plans[i]!.arm.name === name);
    assert.equal(runs.length, 3);
    for (const x of runs) assert.ok(Math.abs(x - seconds) < 0.5, `${name}: ${x} vs ${seconds}`);
  };
  near("SEED", 16);
  near("GRPO", 11);
  near("Vanilla", 4.5);
});
