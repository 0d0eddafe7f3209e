// `seed bench update` must time the demo's update (issue 12): the library defaults moved to the
// reference schedule (16 x 8 tasks, 30 steps, mini-batches), and a bench that followed them
// measured about ten times the demo's arithmetic.
import assert from "node:assert/strict";
import { test } from "node:test";
import { demoOverrides } from "../bench/demo-schedule.ts";
import { resolveConfig } from "../src/config/presets.ts";

test("bench update runs SEED and GRPO at the demo experiment's schedule, not the library defaults", () => {
  const overrides = demoOverrides();
  assert.ok(!overrides.some((o) => o.startsWith("run.updates=")), "the bench sets its own update count");
  for (const preset of ["seed", "grpo"]) {
    const defaults = resolveConfig({ preset });
    const bench = resolveConfig({ preset, overrides });
    assert.equal(bench.rollout.tasksPerUpdate, 4, preset);
    assert.equal(bench.env.maxSteps, 20, preset);
    assert.equal(bench.update.miniBatches, 1, preset);
    // The defaults differ, so the test fails if the bench ever drops the demo's schedule again.
    assert.notDeepEqual(
      [defaults.rollout.tasksPerUpdate, defaults.env.maxSteps, defaults.update.miniBatches],
      [bench.rollout.tasksPerUpdate, bench.env.maxSteps, bench.update.miniBatches],
    );
  }
});
