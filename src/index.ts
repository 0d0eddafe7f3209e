/**
 * seed-rl: SEED (Self-Evolving On-Policy Distillation) and its baselines for multi-turn LLM
 * agents. The curated public API, grouped by layer (README, Layout). The loss catalogue, the skill
 * layer, training and evaluation are re-exported whole as namespaces to keep names unambiguous;
 * the lower layers export their entry points by name. Test doubles live in `seed-rl/testing`.
 *
 * @example
 * import { train, evaluation } from "seed-rl";
 * const config = train.resolveConfig({ preset: "seed", overrides: ["--run.updates=20"] });
 * const result = await train.train(config, { runDir: "runs/seed" });
 */

// core: seeded randomness, errors, results, trajectories
/** Seeded xoshiro128** generator and seed derivation. */
export { Rng, deriveSeed, type RngState } from "./core/rng.ts";
/** Named error classes (a `SeedError` is a user-facing message). */
export { SeedError, UsageError, ConfigError, CheckpointError, ShapeError, ContextLimitError, DataError, EnvStateError, RemoteError, type ConfigIssue } from "./core/errors.ts";
/** Result values for expected failures. */
export { ok, err, type Result } from "./core/result.ts";
/** Token-in/token-out trajectories. */
export type { Trajectory, Turn, TokenSequence, HistoryMode, EndReason } from "./core/trajectory.ts";
/** Progress bars on stderr. */
export { Progress, type ProgressOptions } from "./core/progress.ts";

// engine and model
/** The compute engine (native oneDNN addon or the TypeScript reference). */
export { getEngine, createEngine, setEngine, referenceEngine, type EngineKind, type EngineInfo } from "./engine/engine.ts";
/** Qwen2-family model configuration and presets. */
export { presetConfig, modelConfig, parameterCount, toHfConfig, fromHfConfig, MODEL_PRESETS, type ModelConfig } from "./model/config.ts";
/** Checkpoints: HF-named safetensors + config.json + tokenizer.json + optimizer + state. */
export { saveCheckpoint, loadCheckpoint, CHECKPOINT_FORMAT_VERSION, type Checkpoint } from "./model/checkpoint.ts";
/** Byte-level BPE tokenizer, HF tokenizer.json I/O, ChatML. */
export { BpeTokenizer, trainBpe, loadTokenizer, tokenizerJsonText } from "./model/tokenizer/index.ts";

// policies
/** The policy interfaces. */
export type { Policy, TrainablePolicy, Tokenizer, SampleRequest, Sample, ScoreRequest, TokenConstraint, OptimizerSettings } from "./policy/policy.ts";
/** The embedded policy (our engine) and its frozen snapshot. */
export { EmbeddedPolicy, FrozenPolicy } from "./policy/embedded.ts";
/** A policy served by any OpenAI-compatible server. */
export { RemotePolicy, type RemotePolicyOptions } from "./policy/remote.ts";

// environments
/** The environment interface. */
export type { Env, TaskSpec, Observation, StepResult } from "./envs/env.ts";
/** Environment registry: environments, task sources and experts by name. */
export { ENV_NAMES, makeEnv, taskSource, makeExpert, envEntry, availableEnvs, type EnvName, type EnvOptions } from "./envs/registry.ts";
/** Experts and the seeded noisy expert. */
export { NoisyExpert, playEpisode, type Expert, type ExpertFactory } from "./envs/expert.ts";

// agent
/** Batched rollouts of B tasks x N group members, in window or full history mode. */
export { collectGroups, type RolloutOptions, type HistoryOption } from "./agent/rollout.ts";
/** Score/teacher views of trajectories for training. */
export { policySequences, teacherSequences, splitByTurn, type ScoredSequence } from "./agent/training-views.ts";
/** Chat formatting on token ids. */
export { ChatFormat, renderChat, encodeChat } from "./policy/chat-format.ts";
/** An OpenAI-compatible HTTP server over any policy. */
export { createOpenAiServer } from "./policy/openai-server.ts";

// the upper layers, as namespaces
/** The loss catalogue, advantages, statistics and the paper's identities. */
export * as losses from "./math/index.ts";
/** Hindsight skills: serialization, analyzer template, parse/validate, H, analyzers, library. */
export * as skills from "./skills/index.ts";
/** Config, presets, Stage 0/1/2 and the trainer. */
export * as train from "./train/index.ts";
/** Evaluation, experiments, tables, plots, reports and the demo. */
export * as evaluation from "./eval/index.ts";
