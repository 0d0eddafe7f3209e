/**
 * What one update needs from the trainer (`UpdateContext`) and what its stages hand each other.
 * The trainer owns the cadence and the state across updates (policy, reference, analyzer
 * snapshot, static library); an update owns nothing and returns its metrics.
 */
import type { Trajectory } from "../core/trajectory.ts";
import type { ChatFormat } from "../policy/chat-format.ts";
import type { ScoredSequence } from "../agent/training-views.ts";
import type { TaskSpec } from "../envs/env.ts";
import type { Policy, TrainablePolicy } from "../policy/policy.ts";
import type { SeedConfig } from "../config/config.ts";
import type { MethodPlan } from "../config/method.ts";
import type { TrainingEnv } from "../run/training-env.ts";
import type { StepSample, UpdateSequences } from "./sequences.ts";
import type { StageTimer } from "./timer.ts";

/** Per-term weights of one mini-batch, for tests and diagnostics (`onMiniBatch`). */
export type MiniBatchTrace = {
  readonly update: number;
  readonly epoch: number;
  readonly miniBatch: number;
  /** d(coef·term)/dℓ_θ per token of the mini-batch, by loss name. */
  readonly termWeights: Readonly<Record<string, Float64Array>>;
  /** The summed weights handed to `backward` (flat layout). */
  readonly weights: Float64Array;
  /** Loss mask of the flat layout (1 on sampled tokens). */
  readonly lossMask: ArrayLike<number>;
};

/** Everything one update reads. */
export type UpdateContext = {
  readonly config: SeedConfig;
  /** What the method computes (`planMethod(config)`): the only place the stages learn which terms, estimator and teacher run. */
  readonly plan: MethodPlan;
  /** 1-based index of this update. */
  readonly update: number;
  /** θ, which equals θ_old when the update starts. */
  readonly policy: TrainablePolicy;
  /** Frozen starting weights for the KL term (null when kl.coef is 0). */
  readonly reference: Policy | null;
  /** Weights of the analyzer role (θ_old itself when refreshed every update); null when no self skills. */
  readonly analyzer: Policy | null;
  /** The `static-self` library (task key → skill), when that source is used. */
  readonly staticLibrary: Readonly<Record<string, string>> | null;
  readonly chat: ChatFormat;
  readonly env: TrainingEnv;
  /** This update's tasks (one group each). */
  readonly tasks: readonly TaskSpec[];
  readonly timer: StageTimer;
  /** Called after each mini-batch's weights are computed (before backward). */
  readonly onMiniBatch?: (trace: MiniBatchTrace) => void;
  /** Called after each rollout step (progress). */
  readonly onRolloutStep?: (step: number, running: number) => void;
};

/** What the scoring stage produces, per sequence of the update. */
export type ScoredUpdate = {
  readonly all: UpdateSequences;
  /** Teacher views (undefined where no teacher is needed or the skill is invalid). */
  readonly teacher: readonly (ScoredSequence | undefined)[];
  readonly old: readonly Float32Array[];
  readonly reference: readonly Float32Array[] | null;
  /** Teacher log-probs scored once with θ_old (`frozen` schedule, RLSD), else null. */
  readonly teacherFrozen: readonly Float32Array[] | null;
  /** GRPO advantage per step-sample. */
  readonly advantages: Float64Array;
  /** v_τ per step-sample. */
  readonly skillValid: Float64Array;
};

/** Per-token diagnostics kept for the sample files. */
export type TokenTrace = {
  /** Gate per scored position of each sequence (NaN where not computed), from the first epoch. */
  readonly gates: (Float64Array | undefined)[];
  readonly teacher: (Float32Array | undefined)[];
};

export type { Trajectory, StepSample };
