/**
 * Per-environment protocol settings of the SEED launchers (ENVIRONMENTS.md §1.2): step limits,
 * history window, invalid-action penalty, prompt/response budgets and the evaluation temperature.
 * Plain data; the rollout engine and the trainer read defaults from here and callers override.
 * The Sokoban and EZPoints numbers are those of the text port (SEED ran them with a VLM).
 */

/** Names of the environments the agent layer knows how to prompt. */
export const ENV_IDS = ["alfworld", "webshop", "search", "sokoban", "ezpoints"] as const;
/** One of {@link ENV_IDS}. */
export type EnvId = (typeof ENV_IDS)[number];

/** Protocol settings of one environment. */
export type ProtocolSettings = {
  /** Step limit of an episode. */
  readonly maxSteps: number;
  /** History window k of the `window` mode (0: the no-history prompt every step). */
  readonly window: number;
  /** Penalty subtracted from an invalid step's score by the trainer (never seen by the env). */
  readonly invalidPenalty: number;
  /** Prompt budget of the launchers, in tokens. */
  readonly promptTokens: number;
  /** Response budget per action, in tokens. */
  readonly responseTokens: number;
};

/** The SEED launcher settings (ENVIRONMENTS.md §1.2), ALFWorld with the SEED window of 5. */
export const PROTOCOL = {
  alfworld: { maxSteps: 30, window: 5, invalidPenalty: 0.1, promptTokens: 2048, responseTokens: 512 },
  webshop: { maxSteps: 15, window: 2, invalidPenalty: 0.1, promptTokens: 4096, responseTokens: 512 },
  search: { maxSteps: 4, window: 4, invalidPenalty: 0.01, promptTokens: 4096, responseTokens: 512 },
  sokoban: { maxSteps: 15, window: 2, invalidPenalty: 0.1, promptTokens: 1024, responseTokens: 512 },
  ezpoints: { maxSteps: 8, window: 0, invalidPenalty: 0.1, promptTokens: 1024, responseTokens: 512 },
} as const satisfies Record<EnvId, ProtocolSettings>;

/** Sampling temperature of validation rollouts in the SEED launchers (one rollout per task). */
export const EVAL_TEMPERATURE = 0.4;

/** Whether `id` names an environment the agent layer can prompt. */
export function isEnvId(id: string): id is EnvId {
  return (ENV_IDS as readonly string[]).includes(id);
}
