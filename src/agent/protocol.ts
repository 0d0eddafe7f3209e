/**
 * The protocol settings the agent layer reads, from each environment's registry entry
 * (`envs/registry.ts` owns the rows: step limits, history window, invalid-action penalty,
 * prompt/response budgets), plus the evaluation temperature shared by every environment.
 */
import { envEntry, isEnvName, type EnvName, type ProtocolSettings } from "../envs/registry.ts";

/** A built-in environment name (the registry's). */
export type EnvId = EnvName;

export type { ProtocolSettings };

/** Sampling temperature of validation rollouts in the SEED launchers (one rollout per task). */
export const EVAL_TEMPERATURE = 0.4;

/** The protocol row of an environment, or undefined for an environment the registry does not know. */
export function protocolOf(envId: string): ProtocolSettings | undefined {
  return isEnvName(envId) ? envEntry(envId).protocol : undefined;
}
