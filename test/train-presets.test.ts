// Every preset end to end on the quick sizes (tiny model, tiny generated games, one update): the
// run directory has the resolved config, one metrics line with the flat keys the issue checks, a
// sample file and a checkpoint; training presets move the weights, non-training ones do not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { listPresets } from "../src/config/presets.ts";
import { ensureBase } from "../src/train/pretrain/base.ts";
import { train } from "../src/train/trainer.ts";
import { TEST_CACHE, metricsLines, tempDir, tinyConfig, weightBytes } from "./train-helpers.ts";

const SEED_FAMILY = new Set(["seed", "seed-no-sft", "seed-no-refresh", "seed-static-library", "seed-external-analyzer", "sdar", "opsd", "grpo-opsd"]);
const NO_TRAINING = new Set(["vanilla", "skill-prompt"]);

for (const preset of listPresets()) {
  test(`preset ${preset.name}: one quick update writes config, metrics, samples and a checkpoint`, async () => {
    const config = tinyConfig(preset.name);
    const runDir = tempDir(`preset-${preset.name}`);
    const init = await ensureBase(config, { cacheDir: TEST_CACHE, quiet: true });
    const result = await train(config, { runDir, cacheDir: TEST_CACHE, quiet: true });
    assert.equal(result.updates, 1);
    assert.ok(existsSync(join(runDir, "config.json")));
    const [line, ...more] = metricsLines(runDir);
    assert.equal(more.length, 0);
    assert.equal(line!["update"], 1);
    for (const key of ["success_rate", "tie_rate"]) assert.equal(typeof line![key], "number", key);
    const seconds = line!["seconds"] as Record<string, number>;
    assert.equal(typeof seconds["rollout"], "number");
    if (SEED_FAMILY.has(preset.name)) {
      assert.equal(typeof line!["gate_mean"], "number", "gate_mean");
      assert.equal(typeof line!["skill_valid_rate"], "number", "skill_valid_rate");
    }
    assert.equal(readdirSync(join(runDir, "samples")).length, 1);
    const same = Buffer.compare(weightBytes(init), weightBytes(result.policyDir)) === 0;
    if (NO_TRAINING.has(preset.name)) assert.ok(same, "a preset without loss terms must not move the weights");
  });
}
