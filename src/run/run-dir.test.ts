// The run directory's config.json across versions: a config recorded before the method plan
// (with method.formula and rlsd.enabled) reads in today's shape and claims the same run, while a
// config that really differs is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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
    claimRunDir(dir, config);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")), config, "rewritten in today's shape");
  }
  assert.deepEqual((upgradeConfig({ pg: {}, rlsd: { enabled: true } }) as { pg: unknown }).pg, { advantage: "rlsd" });
});

test("a run directory holding another config is refused, naming the difference", () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-rundir-"));
  claimRunDir(dir, resolveConfig({ preset: "seed" }));
  claimRunDir(dir, resolveConfig({ preset: "seed", overrides: ["--run.updates=30"] }));
  assert.throws(() => claimRunDir(dir, resolveConfig({ preset: "seed", overrides: ["--opd.beta=0"] })), /different config \(opd\.beta\)/);
});
