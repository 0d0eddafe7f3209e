/**
 * The data that flows from rollouts to training: token-in/token-out trajectories.
 * The ids the policy sampled are kept exactly as sampled and never re-tokenized (decoding and
 * re-encoding does not give back the same ids, which is harmless for serving and fatal for RL).
 *
 * Two history modes share these types:
 * - `window`: each turn is one policy call whose prompt is rebuilt from the task, the last k
 *   (observation, action) pairs and the current observation; `promptTokens` is that whole prompt.
 * - `full`: the episode is one growing sequence; `promptTokens` holds only the tokens appended
 *   before this call (observation and scaffolding), so the concatenation
 *   `turn0.prompt + turn0.sampled + turn1.prompt + turn1.sampled + ...` is the sequence.
 */

/** Names of the two history modes. */
export type HistoryMode = "window" | "full";

/** One policy call and the environment step it caused. */
export type Turn = {
  /** Tokens placed before this policy call (see the file header for the two modes). lossMask 0. */
  promptTokens: number[];
  /** Tokens the policy sampled this turn, exactly as sampled. lossMask 1. */
  sampledTokens: number[];
  /** log pi_sample of each sampled token, of the distribution actually sampled (temperature, top-p, mask). */
  sampledLogprobs: number[];
  /**
   * The user-message text of this turn before the chat template (window mode: the whole prompt;
   * full mode: the text appended this turn). The skill function H is applied to this text and the
   * result re-templated to build the teacher context; the sampled ids are never re-encoded.
   */
  promptText: string;
  /** The observation text the agent saw before acting (what the history window stores). */
  observation: string;
  /** The model's full response text, decoded from `sampledTokens`. */
  responseText: string;
  /** The action string extracted from the response and sent to the environment. */
  actionText: string;
  /** Agent-layer validity (protocol tags present, etc.; `agent/parse-action.ts`). */
  valid: boolean;
  /** Environment reward of this step (before any invalid-action penalty). */
  reward: number;
  /** Whether an action mask restricted sampling on this turn (then scoring must apply it too). */
  masked: boolean;
  /**
   * When `masked`: the ids the mask allowed at each sampled position (null = unrestricted), the
   * same layout as `sampledTokens`, for `ScoreRequest.allowed`.
   */
  allowedTokens?: (readonly number[] | null)[];
};

/** Why an episode ended. */
export type EndReason = "terminated" | "truncated" | "context-limit";

/** One episode of one group member. */
export type Trajectory = {
  envId: string;
  taskId: string;
  /** Index of the group (task) in the update's batch; members of a group share it. */
  groupIndex: number;
  /** Index of this member inside its group. */
  memberIndex: number;
  /** Seed the environment was reset with (equal across a group). */
  seed: number;
  historyMode: HistoryMode;
  /** Task text as the agent sees it (e.g. `put some book on sidetable.`). */
  task: string;
  turns: Turn[];
  /** Episode return: sum of environment step rewards. */
  return: number;
  /** Benchmark success flag. */
  success: boolean;
  /** Raw task score where the benchmark has one (WebShop in [0, 1]); else equals success. */
  score: number;
  endedBy: EndReason;
  /** Seconds spent sampling and stepping the environment. */
  timings: { sampleSeconds: number; envSeconds: number };
};

/** A token sequence with its loss mask (1 only where the policy sampled the token). */
export type TokenSequence = {
  tokens: number[];
  lossMask: number[];
};
