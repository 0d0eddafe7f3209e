/**
 * The one resolver of the config's "0 or -1 means the default" settings: `env.maxSteps` (0: the
 * protocol's), `env.invalidPenalty` (< 0: the protocol's), `rollout.window` (< 0: the protocol's)
 * `rollout.maxContext` (0: the policy's) and `update.miniBatches` (0: derived from the update's
 * step-samples, `miniBatchCount`). Every reader calls this instead of its own ternary.
 */
import type { ProtocolSettings } from "../envs/registry.ts";
import type { SeedConfig } from "./config.ts";

/** The sentinel settings of a config, resolved against an environment's protocol row. */
export type RunSettings = {
  /** Step limit of an episode. */
  readonly maxSteps: number;
  /** c_inv, the invalid-action penalty of a step (`stepScore` in `math/advantages.ts`). */
  readonly invalidPenalty: number;
  /** History window k of the `window` mode. */
  readonly window: number;
  /** The configured context limit, or undefined for the policy's own. */
  readonly maxContext: number | undefined;
};

/** Resolves the sentinels; an environment without a protocol row falls back to ALFWorld's numbers (30 steps, 0.1, window 2). */
export function resolveRunSettings(c: SeedConfig, protocol: ProtocolSettings | undefined): RunSettings {
  return {
    maxSteps: c.env.maxSteps > 0 ? c.env.maxSteps : (protocol?.maxSteps ?? 30),
    invalidPenalty: c.env.invalidPenalty >= 0 ? c.env.invalidPenalty : (protocol?.invalidPenalty ?? 0.1),
    window: c.rollout.window >= 0 ? c.rollout.window : (protocol?.window ?? 2),
    maxContext: c.rollout.maxContext > 0 ? c.rollout.maxContext : undefined,
  };
}

/** The context a policy call may use: the configured limit, never more than the policy's own. */
export function contextLimit(c: SeedConfig, policyMaxContext: number): number {
  return c.rollout.maxContext > 0 ? Math.min(c.rollout.maxContext, policyMaxContext) : policyMaxContext;
}

/** The reference's least number of optimizer steps per update when the count is derived. */
export const MIN_DERIVED_MINI_BATCHES = 4;

/**
 * Mini-batches of an update holding `stepSamples` step-samples in `sequences` scored sequences:
 * `update.miniBatches` when set, else max(4, round(stepSamples / update.miniBatchSamples)); never
 * more than the sequences (a sequence is never split) and at least 1.
 */
export function miniBatchCount(c: SeedConfig, stepSamples: number, sequences: number): number {
  const wanted = c.update.miniBatches > 0 ? c.update.miniBatches : Math.max(MIN_DERIVED_MINI_BATCHES, Math.round(stepSamples / c.update.miniBatchSamples));
  return Math.max(1, Math.min(wanted, sequences));
}
