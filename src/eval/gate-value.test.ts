import { test } from "node:test";
import assert from "node:assert/strict";
import { presetConfig } from "../model/config.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../policy/embedded.ts";
import { resolveConfig } from "../config/presets.ts";
import { clusteredCorrelation, gateValueAnalysis, type ActionPoint } from "./gate-value.ts";

test("clustered correlation: known coefficients, intervals that cover them, NaN when the value is constant", () => {
  // 12 trajectories of 3 actions; the gate rises with the return plus a deterministic wobble.
  const points: ActionPoint[] = [];
  for (let t = 0; t < 12; t++) {
    const ret = t % 2 === 0 ? 10 : 0;
    for (let k = 0; k < 3; k++) points.push({ traj: t, gate: 0.4 + 0.02 * ret + 0.05 * (((t * 3 + k) * 7) % 5) / 5, ret, adv: ret - 5 });
  }
  const c = clusteredCorrelation(points, (p) => p.ret, 12, 1, 500);
  assert.ok(c.pearson.value > 0.9 && c.spearman.value > 0.8, JSON.stringify(c));
  assert.ok(c.pearson.low <= c.pearson.value && c.pearson.value <= c.pearson.high);
  assert.equal(c.pearson.n, 36);
  assert.deepEqual(clusteredCorrelation(points, (p) => p.ret, 12, 1, 500), c, "seeded");
  const flat = clusteredCorrelation(points, () => 0, 12, 1, 100);
  assert.ok(Number.isNaN(flat.pearson.value) && flat.pearson.interval === "none");
});

test("gate-value analysis on a real (tiny, untrained) embedded policy: library-skill gates for every action", async () => {
  const config = resolveConfig({ preset: "sdar", quick: true, overrides: ["--env.maxSteps=2", "--rollout.maxActionTokens=6"] });
  const tokenizer = trainBpe(["You are in the middle of a room. Your task is to: put a mug in desk.", "<think>go</think><action>go to desk 1</action>"], { vocabSize: 300 });
  const policy = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 1024 }), tokenizer, seed: 5 });
  const r = await gateValueAnalysis(policy, config, { tasks: 2, groupSize: 2, resamples: 50 });
  assert.equal(r.skillSource, "library");
  assert.equal(r.trajectories, 4);
  assert.equal(r.skillValidRate, 1);
  assert.ok(r.actions > 0 && r.actions <= 4 * 2, `actions ${r.actions}`);
  assert.ok(r.tokens >= r.actions && r.tokens <= r.actions * 6);
  assert.ok(r.meanGate.all > 0 && r.meanGate.all < 1);
  assert.equal(r.points.length, r.actions);
  for (const [g] of r.points) assert.ok(g >= 0 && g <= 1);
  // An untrained policy wins nothing: the returns are constant, so there is no correlation to report.
  assert.equal(r.successRate, 0);
  assert.ok(Number.isNaN(r.gateVsReturn.pearson.value));
});

test("foreign skills: each episode gets the same member's skill from the next task's group, wrapping; none with one task", async () => {
  const { foreignSkills } = await import("./gate-value.ts");
  const traj = (g: number, m: number) => ({ groupIndex: g, memberIndex: m }) as unknown as import("../core/trajectory.ts").Trajectory;
  const trajectories = [traj(0, 0), traj(0, 1), traj(1, 0), traj(1, 1), traj(2, 0), traj(2, 1)];
  const own = { skills: ["a0", "a1", "b0", "b1", "c0", "c1"], valid: [1, 1, 1, 0, 1, 1], metrics: {} };
  const f = foreignSkills(own, trajectories, 3);
  assert.deepEqual(f.skills, ["b0", "b1", "c0", "c1", "a0", "a1"]);
  assert.deepEqual(f.valid, [1, 0, 1, 1, 1, 1], "validity travels with the skill");
  const one = foreignSkills({ skills: ["a0"], valid: [1], metrics: {} }, [traj(0, 0)], 1);
  assert.deepEqual(one.valid, [0]);
});
