// policy.base and policy.sftBase: a finished Stage-0 base (the shipped real-room base, or any copy of one) stands in
// for Stage 0. Stage 0 is not rebuilt, Stage 1 runs from that base, and Stage 1's cache entry
// follows the base's content, not its path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, UsageError } from "../src/core/errors.ts";
import { resolveConfig } from "../src/config/presets.ts";
import { baseDirs, ensureBase } from "../src/train/pretrain/base.ts";
import { TEST_CACHE, tempDir, tinyConfig } from "./train-helpers.ts";

test("policy.base skips Stage 0, runs Stage 1 from the given base, and keys Stage 1 by the base's files", async () => {
  const dir = tempDir("policy-base");
  try {
    // A real Stage-0 base, copied away from the cache that built it.
    const built = await ensureBase(tinyConfig("grpo"), { cacheDir: TEST_CACHE, quiet: true });
    const given = join(dir, "given", "model");
    cpSync(built, given, { recursive: true });
    const cache = join(dir, "cache");

    const grpo = tinyConfig("grpo", [`--policy.base=${given}`]);
    assert.equal(await ensureBase(grpo, { cacheDir: cache, quiet: true }), resolve(given), "without SFT the base is the start");
    assert.ok(!existsSync(cache) || readdirSync(cache).length === 0, "nothing was built for a run from the base");

    const seed = tinyConfig("seed", [`--policy.base=${given}`]);
    const start = await ensureBase(seed, { cacheDir: cache, quiet: true });
    assert.equal(start, join(baseDirs(seed, cache).stage1, "model"));
    assert.deepEqual(readdirSync(cache).filter((n) => n.startsWith("stage0-")), [], "Stage 0 was not rebuilt");
    assert.ok(existsSync(join(baseDirs(seed, cache).stage1, "stage1.json")), "Stage 1 ran and reported");
    assert.equal(readFileSync(join(start, "tokenizer.json"), "utf8"), readFileSync(join(given, "tokenizer.json"), "utf8"), "Stage 1 kept the base's tokenizer");

    // The same files elsewhere share the Stage-1 entry; changed weights get a new one.
    const moved = join(dir, "moved", "model");
    cpSync(given, moved, { recursive: true });
    const key = (base: string) => baseDirs(tinyConfig("seed", [`--policy.base=${base}`]), cache).stage1;
    assert.equal(key(moved), key(given));
    const weights = readFileSync(join(moved, "model.safetensors"));
    weights[weights.length - 1] = weights[weights.length - 1]! ^ 1;
    writeFileSync(join(moved, "model.safetensors"), weights);
    assert.notEqual(key(moved), key(given));

    // policy.sftBase: a finished Stage-1 checkpoint stands in for Stage 1; runs without SFT keep the base.
    const sftCache = join(dir, "sft-cache");
    const withSft = [`--policy.base=${given}`, `--policy.sftBase=${start}`];
    assert.equal(await ensureBase(tinyConfig("seed", withSft), { cacheDir: sftCache, quiet: true }), start);
    assert.equal(await ensureBase(tinyConfig("grpo", withSft), { cacheDir: sftCache, quiet: true }), resolve(given));
    assert.ok(!existsSync(sftCache), "nothing was built");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("policy.base that is not a checkpoint is one UsageError naming it; init and base together are a config error", async () => {
  const dir = tempDir("policy-base-bad");
  try {
    const missing = join(dir, "no-such-base");
    await assert.rejects(ensureBase(tinyConfig("grpo", [`--policy.base=${missing}`]), { cacheDir: join(dir, "cache"), quiet: true }), (e: unknown) => e instanceof UsageError && e.message.includes(`policy.base ${missing} is not a checkpoint directory`));
    assert.throws(() => resolveConfig({ preset: "seed", overrides: [`--policy.base=${dir}`, `--policy.init=${dir}`] }), (e: unknown) => e instanceof ConfigError && /policy\.base/.test(e.message));
    assert.throws(() => resolveConfig({ preset: "seed", overrides: [`--policy.sftBase=${dir}`, `--policy.init=${dir}`] }), (e: unknown) => e instanceof ConfigError && /policy\.sftBase/.test(e.message));
    await assert.rejects(ensureBase(tinyConfig("seed", [`--policy.sftBase=${missing}`]), { cacheDir: join(dir, "cache"), quiet: true }), (e: unknown) => e instanceof UsageError && e.message.includes(`policy.sftBase ${missing} is not a checkpoint directory`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
