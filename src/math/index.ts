/**
 * The loss catalogue and statistics: pure functions of per-token log-probs of sampled tokens,
 * each returning its value, its gradient per log-prob and metrics. Imports only
 * `core/`.
 */
export * from "./batch.ts";
export * from "./registry.ts";
export * from "./aggregate.ts";
export * from "./advantages.ts";
export * from "./policy-loss.ts";
export * from "./kl.ts";
export * from "./distill.ts";
export * from "./skill-sd.ts";
export * from "./rlsd.ts";
export * from "./sft.ts";
export * from "./gigpo.ts";
export * from "./losses.ts";
export * from "./identities.ts";
export * from "./stats.ts";
export * from "./estimators.ts";
