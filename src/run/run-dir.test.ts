// The run directory's config.json across versions: a config recorded before the method plan
// (with method.formula and rlsd.enabled) reads in today's shape and claims the same run, while a
// config that really differs is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { UsageError } from "../core/errors.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfig } from "../config/presets.ts";
import { claimRunDir, readRunConfig, upgradeConfig } from "./run-dir.ts";

function oldShape(config: ReturnType<typeof resolveConfig>, rlsd: boolean): Record<string, unknown> {
  const old = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  old["method"]!["formula"] = "L = a formula the preset used to store";
  delete old["pg"]!["advantage"];
  old["rlsd"]!["enabled"] = rlsd;
  delete old["loss"]!["terms"];
  return old;
}

test("an old config.json reads in today's shape and resumes the same run", () => {
  for (const preset of ["seed", "rlsd"]) {
    const config = resolveConfig({ preset });
    const dir = mkdtempSync(join(tmpdir(), "seed-rundir-"));
    writeFileSync(join(dir, "config.json"), JSON.stringify(oldShape(config, preset === "rlsd")));
    assert.deepEqual(readRunConfig(dir), config);
    claimRunDir(dir, config).release();
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")), config, "rewritten in today's shape");
  }
  assert.deepEqual((upgradeConfig({ pg: {}, rlsd: { enabled: true } }) as { pg: unknown }).pg, { advantage: "rlsd" });
});

test("a run directory holding another config is refused, naming the difference, once the run has begun", () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-rundir-"));
  claimRunDir(dir, resolveConfig({ preset: "seed" })).release();
  // Not begun (no checkpoint): e.g. a first start that failed; another config simply takes it.
  claimRunDir(dir, resolveConfig({ preset: "seed", overrides: ["--env.data=/typo"] })).release();
  claimRunDir(dir, resolveConfig({ preset: "seed" })).release();
  mkdirSync(join(dir, "checkpoints", "update-000001"), { recursive: true });
  writeFileSync(join(dir, "checkpoints", "update-000001", "trainer.json"), "{}");
  claimRunDir(dir, resolveConfig({ preset: "seed", overrides: ["--run.updates=30"] })).release();
  assert.throws(() => claimRunDir(dir, resolveConfig({ preset: "seed", overrides: ["--opd.beta=0"] })), /different config \(opd\.beta\)/);
  assert.ok(!existsSync(join(dir, ".lock")), "a refused claim releases its lock");
});

test("a run directory that is a file, inside a file, unwritable, or holding a foreign or garbled config.json is one UsageError", () => {
  const root = mkdtempSync(join(tmpdir(), "seed-rundir-"));
  const config = resolveConfig({ preset: "seed" });
  const file = join(root, "file");
  writeFileSync(file, "keep");
  const oneLine = (re: RegExp) => (e: unknown) => e instanceof UsageError && re.test(e.message) && !e.message.includes("\n");
  assert.throws(() => claimRunDir(file, config), oneLine(/cannot use run directory .*file: it \(or a parent of it\) is a file, not a folder/));
  assert.throws(() => claimRunDir(join(file, "run"), config), oneLine(/cannot use run directory .*: it \(or a parent of it\) is a file/));
  if (existsSync("/sys/kernel")) assert.throws(() => claimRunDir("/sys/seed-run", config), oneLine(/cannot use run directory \/sys\/seed-run: not writable \(EPERM\)/));
  assert.equal(readFileSync(file, "utf8"), "keep");
  const garbled = join(root, "garbled");
  mkdirSync(garbled);
  writeFileSync(join(garbled, "config.json"), "{\"method\": ");
  assert.throws(() => claimRunDir(garbled, config), oneLine(/config\.json is not valid JSON/));
  const foreign = join(root, "foreign");
  mkdirSync(foreign);
  writeFileSync(join(foreign, "config.json"), "{\"name\": \"my-app\"}");
  assert.throws(() => claimRunDir(foreign, config), oneLine(/config\.json is not a run config seed wrote/));
  assert.equal(readFileSync(join(foreign, "config.json"), "utf8"), "{\"name\": \"my-app\"}");
});
