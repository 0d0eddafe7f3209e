import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../core/errors.ts";
import { experimentWork, layerOverrides, planExperiment } from "./experiment.ts";
import { armSlug, listExperimentNames, parseExperimentSpec, readExperimentSpec } from "./experiment-spec.ts";

test("every shipped experiment preset parses, and every arm resolves to a valid config or a stated reason", () => {
  const names = listExperimentNames();
  for (const required of ["demo", "demo-quick", "headline", "headline-real", "ablations", "beta-sweep", "lambda-lr-sweep", "analyzer-ablation", "gate-value", "compute", "tie-rate", "staleness"]) {
    assert.ok(names.includes(required), `configs/experiments/${required}.json is missing`);
  }
  for (const name of names) {
    const spec = readExperimentSpec(name);
    assert.ok(spec.seeds.length >= 1 && spec.arms.length >= 1, name);
    const plans = planExperiment(spec, { out: "/tmp/never-written" });
    assert.equal(plans.length, spec.seeds.length * spec.arms.length);
    for (const p of plans) {
      if (p.config === null) {
        // Only an arm that needs outside resources may be unrunnable, and it must say why.
        assert.match(p.skipped ?? "", /endpoint|model/, `${name}/${p.arm.name}: ${p.skipped}`);
        continue;
      }
      assert.equal(p.config.run.seed, p.seed);
      assert.match(p.runDir, new RegExp(`/runs/${armSlug(p.arm.name)}/s${p.seed}$`));
    }
    if (!name.startsWith("demo")) assert.ok(spec.seeds.length >= 3, `${name}: a claim needs at least 3 seeds`);
  }
});

test("headline-real: the six arms from the shipped real-room checkpoints, 50 updates, every real game", () => {
  const spec = readExperimentSpec("headline-real");
  const plans = planExperiment(spec, { out: "/tmp/x", seeds: [1] });
  assert.deepEqual(plans.map((p) => p.arm.name), ["SEED", "GRPO", "GRPO (from SFT)", "SDAR", "Vanilla", "Vanilla (SFT)"]);
  for (const p of plans) {
    const c = p.config!;
    assert.equal(c.env.data, "../shared/data/alfworld");
    assert.equal(c.env.maxSteps, 30);
    assert.equal(c.optim.lr, 1e-4);
    assert.equal(c.run.updates, p.arm.name.startsWith("Vanilla") ? 0 : 50);
    // SEED and the two SFT arms start from the shipped Stage-1 checkpoint, the rest from the base.
    assert.equal(c.policy.sft, ["SEED", "GRPO (from SFT)", "Vanilla (SFT)"].includes(p.arm.name), p.arm.name);
    assert.equal(c.policy.base, "assets/bases/alfworld-real/model");
  }
  // Every game of both splits (count 0), each run sampled with its own evaluation seed.
  assert.equal(spec.eval.count, 0);
  assert.deepEqual(spec.eval.splits, ["valid_seen", "valid_unseen"]);
});

test("experiment work: runs weighted by what they do, the bases carried by the first runs that build them", () => {
  const real = readExperimentSpec("headline-real");
  const plans = planExperiment(real, { out: "/tmp/x", seeds: [1, 2] });
  const units = experimentWork(real, { out: "/tmp/x" }, plans);
  const of = (arm: string, seed: number) => units[plans.findIndex((p) => p.arm.name === arm && p.seed === seed)]!;
  // Shipped bases: nothing to build, so seed 2 weighs what seed 1 does, arm by arm.
  for (const arm of ["SEED", "GRPO", "Vanilla"]) assert.ok(Math.abs(of(arm, 1) - of(arm, 2)) <= 2, arm);
  assert.ok(of("SEED", 1) > of("GRPO", 1) && of("GRPO", 1) > 20 * of("Vanilla", 1));
  // 50 updates of 4 x 8 episodes of 30 steps against one evaluation of 2 x 137 games.
  assert.equal(Math.round(of("Vanilla", 1)), Math.round(274 * 30 * 0.0038));
  // Generated games with Stage 0 and Stage 1 built by the experiment: the first run carries Stage 0, the first SFT run Stage 1.
  const gen = readExperimentSpec("headline");
  const gp = planExperiment(gen, { out: "/tmp/x", seeds: [1, 2] });
  const gu = experimentWork(gen, { out: "/tmp/x" }, gp);
  const seed1 = gp.findIndex((p) => p.arm.name === "SEED" && p.seed === 1), seed2 = gp.findIndex((p) => p.arm.name === "SEED" && p.seed === 2);
  assert.equal(gp[seed1]!.config!.policy.sft, true);
  // Stage 0: 2,400 steps of 4 sequences (312 s measured), Stage 1: 96 x 4 rollouts (270 s).
  assert.ok(Math.abs(gu[seed1]! - gu[seed2]! - (312 + 270)) < 1, "SEED seed 1 carries both bases");
});

test("the sweeps vary what they say they vary", () => {
  const beta = planExperiment(readExperimentSpec("beta-sweep"), { out: "/tmp/x", seeds: [1] });
  assert.deepEqual(beta.map((p) => p.config!.opd.beta), [1, 5, 10, 20]);
  const stale = planExperiment(readExperimentSpec("staleness"), { out: "/tmp/x", seeds: [1] });
  assert.deepEqual(stale.map((p) => p.config!.skills.refreshEvery), [1, 5, 25, 0]);
  const analyzers = planExperiment(readExperimentSpec("analyzer-ablation"), { out: "/tmp/x", seeds: [1] });
  assert.deepEqual(analyzers.map((p) => p.config?.stage1.analyzer ?? "skipped"), ["rule", "degraded", "skipped"]);
});

test("overrides layer: the command line replaces the preset's value of the same key", () => {
  assert.deepEqual(layerOverrides(["run.updates=8", "opd.beta=5", "--run.updates=2"]), ["--opd.beta=5", "--run.updates=2"]);
  const spec = readExperimentSpec("headline");
  const [plan] = planExperiment(spec, { out: "/tmp/x", seeds: [4], overrides: ["run.updates=2"], only: ["SEED"] });
  assert.equal(plan!.config!.run.updates, 2);
  assert.equal(plan!.config!.run.seed, 4);
  assert.throws(() => planExperiment(spec, { out: "/tmp/x", only: ["nope"] }), /no arm of headline matches nope/);
});

test("a malformed preset reports every problem at once", () => {
  try {
    parseExperimentSpec({ name: "", seeds: [1, -2], arms: [{ name: "a", preset: "", extra: 1 }, { name: "A" , preset: "seed" }], eval: { splits: "x", decoding: "beam" }, analyses: ["magic"], table: "pie", bogus: 1 }, "x.json");
    assert.fail("expected a ConfigError");
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    const paths = e.issues.map((i) => i.path);
    for (const p of ["x.json: bogus", "x.json: name", "x.json: seeds", "x.json: arms[0].extra", "x.json: arms[0].preset", "x.json: arms[1].name", "x.json: eval.splits", "x.json: eval.decoding", "x.json: analyses", "x.json: table"]) {
      assert.ok(paths.includes(p), `missing issue ${p} in ${JSON.stringify(paths)}`);
    }
  }
  assert.throws(() => readExperimentSpec("no-such-experiment"), /unknown experiment 'no-such-experiment'; presets: .*headline/);
});
