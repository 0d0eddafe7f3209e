/**
 * The starting checkpoint of a run. With `policy.init` set it is that directory; otherwise the
 * embedded pipeline builds it: Stage 0 (base agent), then Stage 1 (hindsight-skill SFT) when
 * `policy.sft` is true. Both are cached under `cacheDir` by a hash of every setting that shapes
 * them, so every preset of an experiment starts from the same base, built once. With
 * `policy.base` set, that finished Stage-0 base stands in for Stage 0 (e.g. the shipped real-room
 * base), and Stage 1's cache key hashes the base's files instead of the Stage-0 settings; with
 * `policy.sftBase` set, that finished Stage-1 checkpoint stands in for Stage 1 (runs with SFT).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { seedCacheDir } from "../../core/fs.ts";
import type { SeedConfig } from "../../config/config.ts";
import { isPolicyDir } from "../../policy/load.ts";
import { runStage0 } from "./stage0.ts";
import { runStage1 } from "./stage1.ts";

/** Where bases are cached. */
export type BaseOptions = {
  /** @default `$SEED_CACHE_DIR`, else ~/.cache/seed-rl */
  readonly cacheDir?: string;
  /** @default false */
  readonly quiet?: boolean;
};

/** The default cache directory: `$SEED_CACHE_DIR`, else `~/.cache/seed-rl` (`seedCacheDir`). */
export function defaultCacheDir(): string {
  return seedCacheDir();
}

function hash(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** The settings Stage 0 depends on. */
export function stage0Key(config: SeedConfig): string {
  const { name, data, split, receptacles, maxSteps } = config.env;
  const { maxActionTokens, prompt, actionMask } = config.rollout;
  // The skill-reading options enter the key only when used, so bases built before they existed keep their keys.
  // So does a pretrained init (by its absolute path).
  const { init, ...rest } = config.stage0;
  const { selfHints, trainPlainNoise, selfHintEpsilon: _e, ...classic } = rest;
  const kept = selfHints === 0 && !trainPlainNoise ? classic : rest;
  const stage0 = init === "" ? kept : { ...kept, init: resolve(init) };
  return hash({ v: 2, env: { name, data, split, receptacles, maxSteps }, stage0, rollout: { maxActionTokens, prompt, actionMask } });
}

/**
 * A content hash of a checkpoint directory's top-level files: a base rebuilt in place (same
 * path, new weights) gets a new Stage-1 cache entry, and a copied base keeps its entry.
 */
export function checkpointHash(dir: string): string {
  const h = createHash("sha256");
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    h.update(name).update("\0").update(readFileSync(path)).update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

/** The settings Stage 1 depends on: Stage 0's (or the given base's content), its own, and the env's. */
export function stage1Key(config: SeedConfig): string {
  const fields = { stage1: config.stage1, generatedTasks: config.env.generatedTasks, maxSkillTokens: config.skills.maxSkillTokens };
  if (config.policy.base === "") return hash({ v: 1, stage0: stage0Key(config), ...fields });
  // Stage 1 also replays Stage-0 demonstrations, so the Stage-0 corpus settings (env included) stay in the key.
  return hash({ v: 1, base: checkpointHash(resolveBase(config.policy.base)), corpus: stage0Key(config), ...fields });
}

/** The absolute directory of `policy.base` (or another field's `key`), checked to be a checkpoint (one clear error otherwise). */
export function resolveBase(path: string, key = "policy.base"): string {
  const dir = resolve(path);
  if (!isPolicyDir(dir)) throw new UsageError(`${key} ${dir} is not a checkpoint directory (no config.json or tinker.json)`);
  return dir;
}

/** Directories of a config's cached stages. */
export function baseDirs(config: SeedConfig, cacheDir: string = defaultCacheDir()): { stage0: string; stage1: string } {
  return { stage0: join(cacheDir, `stage0-${stage0Key(config)}`), stage1: join(cacheDir, `stage1-${stage1Key(config)}`) };
}

/** The starting checkpoint directory of a config, building Stage 0 / Stage 1 when not cached. */
export async function ensureBase(config: SeedConfig, options: BaseOptions = {}): Promise<string> {
  if (config.policy.init !== "") {
    const dir = resolve(config.policy.init);
    if (!isPolicyDir(dir)) throw new UsageError(`policy.init ${dir} is not a checkpoint directory (no config.json or tinker.json)`);
    return dir;
  }
  if (config.policy.sft && config.policy.sftBase !== "") return resolveBase(config.policy.sftBase, "policy.sftBase");
  const dirs = baseDirs(config, options.cacheDir ?? defaultCacheDir());
  const quiet = options.quiet ?? false;
  const given = config.policy.base === "" ? null : resolveBase(config.policy.base);
  if (given === null && !existsSync(join(dirs.stage0, "model", "config.json"))) await runStage0(config, { outDir: dirs.stage0, quiet });
  const stage0 = given ?? join(dirs.stage0, "model");
  if (!config.policy.sft) return stage0;
  if (!existsSync(join(dirs.stage1, "model", "config.json"))) await runStage1(config, { baseDir: stage0, outDir: dirs.stage1, quiet });
  return join(dirs.stage1, "model");
}
