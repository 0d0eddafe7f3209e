/**
 * The `seed-rl/testing` entry point: test doubles and shared suites for code built on the
 * library. Nothing in `src/` imports this folder.
 */

/** A policy that answers from a script, throws beyond it, and checks action masks. */
export { ScriptedPolicy, ScriptError, type ScriptCall, type ScriptStep, type ScriptedPolicyOptions } from "./scripted-policy.ts";
/** A byte-level tokenizer with ChatML specials and optional greedy pieces. */
export { TinyTokenizer, TINY_SPECIALS, type TinyTokenizerOptions } from "./tiny-tokenizer.ts";
/** A two-table, one-door ALFWorld-like environment for agent-layer tests. */
export { ToyHouse, TOY_TASK } from "./toy-house.ts";
/** The conformance suite every environment runs. */
export { runEnvConformance, envConformanceChecks, fuzzActions, ADVERSARIAL_ACTIONS, type EnvConformanceCase, type EnvConformanceCheck } from "./env-conformance.ts";
/** Finite-difference check of a loss's gradient with respect to the log-probs. */
export { gradCheck, type GradCheckReport } from "./grad-check.ts";
/** The conformance suite every policy runs (scripted, embedded, remote). */
export { runPolicyConformance, type PolicyConformanceCase, type PolicyConformanceCheck } from "./policy-conformance.ts";
/** Smoke-size Stage-0 configs (a real base agent in seconds). */
export { tinyStage0Config } from "./stage0-config.ts";
