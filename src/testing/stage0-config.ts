/**
 * Smoke-size Stage-0 configs for tests: a tiny model, 4 games x 2 episodes, 3 optimizer steps,
 * 2 held-out tasks. Seconds per run, so a test can build a real base agent end to end.
 */
import { defaultConfig, type SeedConfig } from "../config/config.ts";

/** The action budget each environment's responses need (a WebShop search with its query is the longest). */
const ACTION_TOKENS: Readonly<Record<string, number>> = { webshop: 64, search: 48 };

/** A fresh default config shrunk to smoke size for Stage 0 on `env` (alfworld, webshop, search). */
export function tinyStage0Config(env: SeedConfig["env"]["name"]): SeedConfig {
  const c = structuredClone(defaultConfig);
  c.env.name = env;
  c.rollout.maxActionTokens = ACTION_TOKENS[env] ?? c.rollout.maxActionTokens;
  Object.assign(c.stage0, { model: "tiny", dModel: 0, layers: 0, vocabSize: 400, maxContext: 1024, games: 4, episodesPerGame: 2, steps: 3, batch: 2, evalGames: 2 });
  return c;
}
