/**
 * The training layer: config and presets, Stage 0 (embedded base agent), Stage 1 (hindsight-skill
 * SFT), the Stage-2 update as named stages, and the trainer with exact resume.
 *
 * @example
 * const config = resolveConfig({ preset: "seed", overrides: ["--run.updates=20"] });
 * const result = await train(config, { runDir: "runs/seed" });
 * const policy = await loadRunPolicy(result.runDir);
 */
export { validateConfig } from "../config/check.ts";
export { planMethod, describeMethod, type MethodPlan, type MethodCatalogue } from "../config/method.ts";
export { defaultConfig, type SeedConfig, type SkillSource, type Stage0Config, type Stage1Config } from "../config/config.ts";
export { resolveConfig, listPresets, findPreset, readPreset, canonicalName, type Preset, type ConfigSources } from "../config/presets.ts";
export { parseOverrideArgs, overridesToPatch, splitOverrideArgs } from "../config/overrides.ts";
export { train, loadRunPolicy, type TrainOptions, type TrainResult } from "./trainer.ts";
export { readRunConfig, metricsWithoutTimings, isTimingKey } from "../run/run-dir.ts";
export { runUpdate, type UpdateResult } from "./update.ts";
export { runStage0, type Stage0Report, type Stage0Options } from "./pretrain/stage0.ts";
export { runStage1, type Stage1Report, type Stage1Options } from "./pretrain/stage1.ts";
export { externalAnalyzer } from "../skills/sources.ts";
export { ensureBase, baseDirs, defaultCacheDir, type BaseOptions } from "./pretrain/base.ts";
export { trainingEnv, type TrainingEnv } from "../run/training-env.ts";
export { studentSkillTransform } from "../skills/library.ts";
export { listCheckpoints, readTrainerState, type TrainerState } from "../run/checkpoint.ts";
