// Config, overrides and presets: strict validation with every issue reported at once, the shipped
// presets (paper spellings as aliases), and the formulas they declare.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { memoryEstimate, memoryIssues, shapeIssues, validateConfig } from "./check.ts";
import { defaultConfig } from "./config.ts";
import { describeMethod, planMethod } from "./method.ts";
import { overridesToPatch, parseOverrideArgs, splitOverrideArgs } from "./overrides.ts";
import { canonicalName, CONFIG_DIR, findPreset, listPresets, presetFormula, resolveConfig } from "./presets.ts";
import { miniBatchCount } from "./resolve.ts";

/** The presets issue 5 names, by file name. */
const REQUIRED = [
  "vanilla", "skill-prompt", "grpo", "skill-grpo", "skill-grpo-star", "opsd", "grpo-opsd", "skill-sd", "rlsd", "sdar", "seed",
  "seed-no-sft", "seed-no-refresh", "seed-static-library", "grpo-sft",
];

test("the defaults are a valid config with the paper's method settings", () => {
  assert.deepEqual(validateConfig(defaultConfig), []);
  assert.equal(defaultConfig.rollout.groupSize, 8);
  assert.equal(defaultConfig.pg.clipLow, 0.2);
  assert.equal(defaultConfig.pg.dualClip, 3);
  assert.equal(defaultConfig.opd.beta, 5);
  assert.equal(defaultConfig.opd.coef, 0.01);
  assert.equal(defaultConfig.kl.coef, 0.01);
  assert.equal(defaultConfig.kl.estimator, "k3");
  assert.equal(defaultConfig.loss.aggregation, "token-mean");
  assert.equal(defaultConfig.grpo.std, "population");
  assert.equal(defaultConfig.opd.teacherScoring, "live");
  assert.equal(defaultConfig.skills.context, "insert");
  assert.equal(defaultConfig.skills.refreshEvery, 1);
});

test("an unknown key, a wrong type and a bad choice are all reported at once, with paths", () => {
  const issues = shapeIssues({ opd: { beta: "5", gamma: 1 }, grpo: { std: "sample" }, nope: {} });
  const paths = issues.map((i) => i.path).sort();
  assert.deepEqual(paths, ["grpo.std", "nope", "opd.beta", "opd.gamma"]);
  assert.match(issues.find((i) => i.path === "opd.beta")!.message, /expected a number, got string/);
  assert.match(issues.find((i) => i.path === "grpo.std")!.message, /population, bessel/);
});

test("resolveConfig throws one ConfigError listing every bad override", () => {
  try {
    resolveConfig({ preset: "seed", overrides: ["--opd.beta=abc", "--opd.nope=1", "--rollout.groupSize=0", "--kl.estimator=k9", "--run.seed=1.5"] });
    assert.fail("expected a ConfigError");
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    const paths = e.issues.map((i) => i.path).sort();
    assert.deepEqual(paths, ["kl.estimator", "opd.beta", "opd.nope", "rollout.groupSize", "run.seed"]);
    assert.match(e.message, /opd\.nope: unknown key/);
  }
});

test("dotted overrides parse as the default's type; booleans and strings too", () => {
  const c = resolveConfig({ preset: "seed", overrides: ["--opd.beta=0", "--grpo.std=bessel", "--rollout.actionMask=true", "run.seed=7"] });
  assert.equal(c.opd.beta, 0);
  assert.equal(c.grpo.std, "bessel");
  assert.equal(c.rollout.actionMask, true);
  assert.equal(c.run.seed, 7);
  const bad = overridesToPatch(parseOverrideArgs(["--rollout.actionMask=yes", "--opd=1", "--opd.beta=1", "--opd.beta=2"]).overrides);
  assert.deepEqual(bad.issues.map((i) => i.path), ["rollout.actionMask", "opd", "opd.beta"]);
  assert.deepEqual(splitOverrideArgs(["--preset", "grpo", "--opd.beta=0", "--quick"]), { overrides: ["--opd.beta=0"], rest: ["--preset", "grpo", "--quick"] });
});

test("cross-field rules: a teacher term needs a skill source; the entropy bonus is refused with the reason", () => {
  assert.throws(() => resolveConfig({ preset: "seed", overrides: ["--skills.teacher=none"] }), /skills\.teacher: a teacher term is on/);
  assert.throws(() => resolveConfig({ preset: "grpo", overrides: ["--entropy.coef=0.001"] }), /entropy\.coef: an entropy bonus needs the full-vocabulary/);
});

test("every preset the issue names ships, validates, and renders its formula from its plan", () => {
  const names = listPresets().map((p) => p.name);
  for (const n of REQUIRED) assert.ok(names.includes(n), `missing preset ${n}`);
  for (const p of listPresets()) {
    const formula = presetFormula(p);
    assert.ok(formula.length > 10 && !formula.includes("\n"), `${p.name}: a one-line formula`);
    const c = resolveConfig({ preset: p.name });
    assert.equal(c.method.name, p.name);
    assert.equal(describeMethod(planMethod(c)), formula);
    assert.deepEqual(validateConfig(resolveConfig({ preset: p.name, quick: true })), []);
  }
});

test("the paper's spellings are aliases", () => {
  assert.equal(findPreset("Skill-GRPO*").name, "skill-grpo-star");
  assert.equal(findPreset("GRPO+OPSD").name, "grpo-opsd");
  assert.equal(findPreset("SEED").name, "seed");
  assert.equal(findPreset("seed w/o sft").name, "seed-no-sft");
  // The paper's row "w/o self-evolving refresh" is GRPO from SFT; the frozen analyzer has its own name.
  assert.equal(findPreset("w/o self-evolving refresh").name, "grpo-sft");
  assert.equal(findPreset("frozen analyzer").name, "seed-no-refresh");
  assert.equal(canonicalName(" Skill_GRPO* "), "skill-grpo-star");
  assert.throws(() => findPreset("ppo"), /unknown preset 'ppo'; presets: .*seed/);
});

test("the presets differ from each other by data only: the terms and skill sources of the method table", () => {
  const c = (n: string) => resolveConfig({ preset: n });
  assert.equal(c("grpo").opd.coef, 0);
  assert.equal(c("opsd").pg.coef, 0);
  assert.equal(c("grpo-opsd").opd.beta, 0);
  assert.equal(c("skill-sd").skillSd.coef, 0.001);
  assert.equal(c("rlsd").pg.advantage, "rlsd");
  assert.equal(c("sdar").opd.teacherScoring, "frozen");
  assert.equal(c("sdar").skills.teacher, "library");
  assert.equal(c("seed").skills.teacher, "self");
  assert.equal(c("seed-no-sft").policy.sft, false);
  assert.equal(c("seed-no-refresh").skills.refreshEvery, 0);
  assert.equal(c("grpo-sft").policy.sft, true);
  assert.equal(c("grpo-sft").opd.coef, 0);
  assert.equal(c("grpo-sft").skills.teacher, "none");
  assert.equal(c("seed-static-library").skills.teacher, "static-self");
  assert.equal(c("seed-external-analyzer").skills.teacher, "external");
  assert.equal(c("skill-grpo").skills.student, "library");
  assert.equal(c("skill-grpo").eval.skill, "none");
  assert.equal(c("skill-grpo-star").eval.skill, "library");
  assert.equal(c("vanilla").pg.coef + c("vanilla").kl.coef + c("vanilla").opd.coef, 0);
});

test("the rendered formula follows overrides (it is never stored, so it cannot go stale)", () => {
  const f = (overrides: string[]) => describeMethod(planMethod(resolveConfig({ preset: "seed", overrides })));
  assert.match(f([]), /0\.01·Agg\(σ\(5Δ\)/);
  assert.match(f(["--opd.beta=0"]), /σ\(0Δ\)/);
  assert.doesNotMatch(f(["--kl.coef=0"]), /L_kl/);
  assert.match(f(["--opd.teacherScoring=frozen"]), /scored frozen$/);
  assert.match(f(["--skills.refreshEvery=0"]), /analyzer\(θ_0, τ\)/);
  assert.equal(planMethod(resolveConfig({ preset: "seed", overrides: ["--opd.coef=0"] })).teacher, null);
});

test("sizes whose memory cannot fit are refused with the key, the estimate and the limit (issue 11 item 7)", () => {
  const big = (o: string) => {
    try {
      resolveConfig({ preset: "seed", quick: true, overrides: [o] });
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.message;
    }
    assert.fail(`${o} was accepted`);
  };
  assert.match(big("--rollout.groupSize=1e8"), /^rollout\.groupSize: \d+ tasks x 100000000 members = \d+ episodes played at once .* need at least [\d.e+]+ GiB, more than the JS heap limit of [\d.]+ GiB \(node --max-old-space-size raises it\); lower it$/);
  assert.match(big("--rollout.tasksPerUpdate=1e9"), /^rollout\.tasksPerUpdate: 1000000000 tasks x/);
  assert.match(big("--env.generatedTasks=1e10"), /^env\.generatedTasks: 10000000000 generated tasks need at least/);
  assert.match(big("--stage0.vocabSize=1e11"), /^stage0\.vocabSize: a model of at least .* parameters .* more than this machine's [\d.]+ GiB of memory/);
  // Every shipped preset, at full and quick size, is far below a small machine's limits.
  const small = { heap: 2 ** 30, total: 4 * 2 ** 30 };
  for (const p of listPresets()) for (const quick of [false, true]) assert.deepEqual(memoryIssues(resolveConfig({ preset: p.name, quick }), small), [], p.name);
  // The estimate scales with the group: double the members, double the rollout term.
  const c = resolveConfig({ preset: "seed" });
  const rollout = (g: number) => memoryEstimate({ ...c, rollout: { ...c.rollout, groupSize: g } })[0]!.bytes;
  assert.equal(rollout(16), 2 * rollout(8));
});

test("the reference schedule: 16 tasks x 8, the protocol's 30 steps, mini-batches derived from 256 step-samples (at least 4)", () => {
  const c = structuredClone(defaultConfig);
  assert.equal(c.rollout.tasksPerUpdate * c.rollout.groupSize, 128);
  assert.equal(c.env.maxSteps, 0, "0: the protocol's limit (ALFWorld 30)");
  // 128 full-history trajectories of ~20 turns: 2,560 step-samples, 10 mini-batches.
  assert.equal(miniBatchCount(c, 2560, 128), 10);
  assert.equal(miniBatchCount(c, 300, 128), 4, "never fewer than 4 when derived");
  assert.equal(miniBatchCount(c, 300, 3), 3, "never more than the sequences (a sequence is not split)");
  assert.equal(miniBatchCount({ ...c, update: { ...c.update, miniBatches: 1 } }, 2560, 128), 1, "an explicit count wins");
});

test("every shipped --config file (configs/bases, configs/scale-out) is a valid partial config", () => {
  const files = ["bases", "scale-out"].flatMap((sub) => readdirSync(join(CONFIG_DIR, sub)).filter((f) => f.endsWith(".json")).map((f) => join(CONFIG_DIR, sub, f)));
  assert.ok(files.some((f) => f.endsWith("alfworld-real.json")), files.join(", "));
  for (const file of files) assert.doesNotThrow(() => resolveConfig({ file }), file);
  assert.equal(resolveConfig({ file: join(CONFIG_DIR, "bases", "alfworld-real.json") }).stage0.games, 3553);
});
