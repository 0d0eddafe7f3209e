// Shared by the training tests (not a test file itself): tiny configs on the `quick` overlay, a
// base cache shared by every training test file (Stage 0 + Stage 1 are built once per machine,
// atomically, and reused), and byte-level readers for comparing runs.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfig } from "../src/config/presets.ts";
import type { SeedConfig } from "../src/config/config.ts";

/** Where the training tests cache their quick Stage-0/1 bases. */
export const TEST_CACHE = join(tmpdir(), "seed-rl-test-cache");

/** A quick config of `preset` with one update of 2 tasks × 2 members, plus `overrides`. */
export function tinyConfig(preset: string, overrides: readonly string[] = []): SeedConfig {
  const given = new Set(overrides.map((o) => o.split("=")[0]));
  // One optimizer step per update unless a test asks for more (the default derives 4 or more).
  const defaults = ["--run.updates=1", "--rollout.groupSize=2", "--run.samplesPerUpdate=1", "--update.miniBatches=1"].filter((o) => !given.has(o.split("=")[0]));
  return resolveConfig({ preset, quick: true, overrides: [...defaults, ...overrides] });
}

/** A fresh temporary directory. */
export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `seed-${label}-`));
}

/** The weights file of a policy checkpoint directory, as bytes. */
export function weightBytes(policyDir: string): Buffer {
  return readFileSync(join(policyDir, "model.safetensors"));
}

/** The metrics lines of a run. */
export function metricsLines(runDir: string): Record<string, unknown>[] {
  return readFileSync(join(runDir, "metrics.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
}
