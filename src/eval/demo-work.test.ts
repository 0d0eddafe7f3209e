import { test } from "node:test";
import assert from "node:assert/strict";
import { demoWork } from "./demo-work.ts";
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

// Each row: a demo preset and its idle run on the 2-core AVX-512 machine (docs/RESULTS.md §2).
const MEASURED = [
  { preset: "demo-webshop", total: "13 min 52 s", stage0: 354, stage1: 199, perSeed: { SEED: 52, GRPO: 41 } },
  { preset: "demo-search", total: "7 min 48 s", stage0: 285, stage1: 55, perSeed: { SEED: 16, GRPO: 11, Vanilla: 4.5 } },
] as const;

for (const m of MEASURED) {
  test(`the ${m.preset} progress weights reproduce its idle run (${m.total}): Stage 0 ${m.stage0} s, Stage 1 ${m.stage1} s, ${JSON.stringify(m.perSeed)} s per seed`, () => {
    const spec = readExperimentSpec(m.preset);
    const plans = planExperiment(spec, { out: `/tmp/never-written-${m.preset}` });
    const w = demoWork(plans, spec.eval.splits.length * spec.eval.count);
    assert.equal(Math.round(w.stage0), m.stage0);
    assert.equal(Math.round(w.stage1), m.stage1);
    for (const [name, seconds] of Object.entries(m.perSeed)) {
      const runs = w.runs.filter((_, i) => plans[i]!.arm.name === name);
      assert.equal(runs.length, 3);
      for (const x of runs) assert.ok(Math.abs(x - seconds) < 0.5, `${name}: ${x} vs ${seconds}`);
    }
  });
}
