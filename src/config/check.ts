/**
 * Validation of training configs against the shape of `defaultConfig`: unknown keys, wrong types,
 * values outside their choices or ranges, missing keys, and cross-field rules. Every issue is
 * collected with its dotted path; nothing stops at the first one (docs/TRAINING.md §2).
 */
import { totalmem } from "node:os";
import { getHeapStatistics } from "node:v8";
import type { ConfigIssue } from "../core/errors.ts";
import { defaultConfig, OPTION_VALUES, type SeedConfig } from "./config.ts";
import { builtinCatalogue, readsTeacher, type MethodCatalogue } from "./method.ts";
import { envNames } from "../envs/registry.ts";

/** String fields with a closed set of values, by dotted path: `OPTION_VALUES`, which the field types derive from too. */
export const CHOICES: Readonly<Record<string, readonly string[]>> = OPTION_VALUES;

/** Record fields (any key) and the names their keys must be, by dotted path, from a catalogue. */
function recordKeys(catalogue: MethodCatalogue): Readonly<Record<string, readonly string[]>> {
  return { "loss.terms": Object.keys(catalogue.terms).filter((n) => !["policy-gradient", "kl", "opd", "skill-sd"].includes(n)) };
}

/** Integer fields and their least value, by dotted path (every other number is any finite value unless `RANGES` says more). */
const INTEGERS: Readonly<Record<string, number>> = {
  "run.seed": 0, "run.updates": 0, "run.checkpointEvery": 1, "run.keepCheckpoints": 1, "run.samplesEvery": 0, "run.samplesPerUpdate": 0, "run.maxBadUpdates": 1,
  "env.generatedTasks": 1, "env.receptacles": 4, "env.maxSteps": 0,
  "rollout.tasksPerUpdate": 1, "rollout.groupSize": 1, "rollout.window": -1, "rollout.topK": 0, "rollout.maxActionTokens": 1, "rollout.maxContext": 0,
  "update.miniBatches": 0, "update.miniBatchSamples": 1, "update.epochs": 1, "loss.normLength": 1, "rlsd.warmDown": 1,
  "skills.refreshEvery": 0, "skills.analyzerAttempts": 1, "skills.maxSkillTokens": 1, "skills.staticRollouts": 1,
  "stage0.dModel": 0, "stage0.layers": 0, "stage0.vocabSize": 300, "stage0.maxContext": 16, "stage0.games": 1, "stage0.episodesPerGame": 1, "stage0.steps": 0, "stage0.batch": 1, "stage0.evalGames": 0,
  "stage1.tasks": 1, "stage1.rollouts": 1, "stage1.epochs": 0, "stage1.batch": 1,
};

/** Numeric ranges [low, high] (inclusive), by dotted path. */
const RANGES: Readonly<Record<string, readonly [number, number]>> = {
  "rollout.temperature": [0, 10], "rollout.topP": [0, 1], "optim.lr": [0, 1], "optim.beta1": [0, 0.999999], "optim.beta2": [0, 0.999999999],
  "optim.eps": [0, 1], "optim.weightDecay": [0, 10], "optim.maxGradNorm": [0, 1e9], "grpo.eps": [0, 1],
  "pg.coef": [0, 1e6], "pg.clipLow": [0, 1], "pg.clipHigh": [0, 1e3], "kl.coef": [0, 1e6], "entropy.coef": [0, 0], "opd.coef": [0, 1e6], "opd.beta": [0, 1e4],
  "skillSd.coef": [0, 1e6], "rlsd.lambda0": [0, 1], "rlsd.epsW": [0, 1], "eval.temperature": [0, 10], "env.invalidPenalty": [-1, 1e6],
  "stage0.epsilon": [0, 1], "stage0.hintShare": [0, 1], "stage0.hintEpsilon": [0, 1], "stage0.selfHints": [0, 1], "stage0.selfHintEpsilon": [0, 1], "stage0.contextWeight": [0, 1], "stage0.lr": [0, 1], "stage0.evalTemperature": [0, 10],
  "stage1.temperature": [0, 10], "stage1.degradeRate": [0, 1], "stage1.replay": [0, 100], "stage1.lr": [0, 1],
};

/** Why a field has a range, when the bare range would puzzle a user. */
const RANGE_NOTES: Readonly<Record<string, string>> = {
  "entropy.coef": "an entropy bonus needs the full-vocabulary distribution, which the per-token-weight training seam does not carry; keep it 0",
};

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * Issues of a partial config against the shape of `reference` (by default `defaultConfig`):
 * unknown keys, wrong types, values outside their choices or ranges. Every issue is reported,
 * none stops the walk. A partial config is fine: missing keys are not issues here. Record fields
 * (`loss.terms`) take names of the `catalogue` with non-negative numbers.
 */
export function shapeIssues(candidate: unknown, reference: unknown = defaultConfig, path = "", catalogue: MethodCatalogue = builtinCatalogue): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (typeof reference === "object" && reference !== null) {
    if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) {
      return [{ path, message: `expected an object, got ${typeName(candidate)}` }];
    }
    const ref = reference as Record<string, unknown>;
    const names = recordKeys(catalogue)[path];
    for (const [key, value] of Object.entries(candidate)) {
      const sub = path === "" ? key : `${path}.${key}`;
      if (names !== undefined) {
        if (!names.includes(key)) issues.push({ path: sub, message: `unknown loss term '${key}' (terms without a section of their own: ${names.join(", ") || "none"})` });
        else if (typeof value !== "number" || !Number.isFinite(value) || value < 0) issues.push({ path: sub, message: `expected a coefficient >= 0, got ${JSON.stringify(value)}` });
        continue;
      }
      if (!Object.hasOwn(ref, key)) {
        issues.push({ path: sub, message: `unknown key (known: ${Object.keys(ref).join(", ")})` });
        continue;
      }
      issues.push(...shapeIssues(value, ref[key], sub, catalogue));
    }
    return issues;
  }
  if (typeName(candidate) !== typeName(reference)) return [{ path, message: `expected a ${typeName(reference)}, got ${typeName(candidate)} (${JSON.stringify(candidate)})` }];
  if (typeof candidate === "number") {
    if (!Number.isFinite(candidate)) return [{ path, message: `expected a finite number, got ${candidate}` }];
    const least = INTEGERS[path];
    if (least !== undefined && (!Number.isInteger(candidate) || candidate < least)) {
      issues.push({ path, message: `expected an integer >= ${least}, got ${candidate}` });
    }
    const range = RANGES[path];
    if (range !== undefined && (candidate < range[0] || candidate > range[1])) {
      issues.push({ path, message: RANGE_NOTES[path] ?? `expected a number in [${range[0]}, ${range[1]}], got ${candidate}` });
    }
  }
  if (typeof candidate === "string") {
    // Registries that grow at run time are read now, not when the module loaded.
    const choices = path === "pg.advantage" ? Object.keys(catalogue.advantages) : path === "env.name" ? envNames() : CHOICES[path];
    if (choices !== undefined && !choices.includes(candidate)) issues.push({ path, message: `expected one of ${choices.join(", ")}; got '${candidate}'` });
  }
  return issues;
}

/** Cross-field rules a complete config must satisfy (beyond each field's own shape). */
export function crossFieldIssues(c: SeedConfig, catalogue: MethodCatalogue = builtinCatalogue): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (c.pg.dualClip !== 0 && !(c.pg.dualClip > 1)) issues.push({ path: "pg.dualClip", message: `the dual-clip constant must be > 1 (or 0 for off), got ${c.pg.dualClip}` });
  if (readsTeacher(c, catalogue) && c.skills.teacher === "none") {
    issues.push({ path: "skills.teacher", message: "a teacher term is on (opd.coef, skillSd.coef, a teacher-reading loss.terms entry or pg.advantage) but the teacher has no skill source; pick self, library, static-self or external" });
  }
  if (c.pg.advantage !== "grpo" && c.pg.coef === 0) issues.push({ path: "pg.advantage", message: `the '${c.pg.advantage}' estimator rescales the policy-gradient advantages; it needs pg.coef > 0` });
  if (c.update.miniBatches > c.rollout.tasksPerUpdate * c.rollout.groupSize) {
    issues.push({ path: "update.miniBatches", message: `cannot exceed the ${c.rollout.tasksPerUpdate * c.rollout.groupSize} trajectories of an update` });
  }
  if (c.policy.init !== "" && c.policy.base !== "") {
    issues.push({ path: "policy.base", message: "set policy.init (a starting checkpoint used as it is) or policy.base (a Stage-0 base Stage 1 starts from), not both" });
  }
  if (c.policy.init !== "" && c.policy.sftBase !== "") {
    issues.push({ path: "policy.sftBase", message: "set policy.init (a starting checkpoint used as it is) or policy.sftBase (a finished Stage-1 checkpoint), not both" });
  }
  if (c.stage1.analyzer === "llm" && (c.stage1.endpoint === "" || c.stage1.model === "")) {
    issues.push({ path: "stage1.endpoint", message: "the llm analyzer needs stage1.endpoint and stage1.model" });
  }
  return issues;
}

/** All issues of a complete candidate config: shape, missing keys, cross-field rules, memory. */
export function validateConfig(candidate: unknown, catalogue: MethodCatalogue = builtinCatalogue): ConfigIssue[] {
  const issues = shapeIssues(candidate, defaultConfig, "", catalogue);
  issues.push(...missingKeys(candidate, defaultConfig, ""));
  if (issues.length > 0) return issues;
  return [...crossFieldIssues(candidate as SeedConfig, catalogue), ...memoryIssues(candidate as SeedConfig)];
}

/** One size-driven share of memory: the key to lower, what it counts, and a lower bound in bytes. */
export type MemoryTerm = { readonly path: string; readonly what: string; readonly bytes: number; readonly pool: "heap" | "total" };

/**
 * Lower bounds of the memory that a config's sizes imply, per phase (the phases do not overlap).
 * Deliberately low (measured: an ALFWorld episode's environment is about 3.3 KB after reset, a
 * generated game about 8 KB; a turn keeps its texts, ids and log-probs), so only a size that
 * cannot fit is refused: groupSize 1e8 is caught before it runs out of memory, never a real run.
 */
export function memoryEstimate(c: SeedConfig): MemoryTerm[] {
  const steps = c.env.maxSteps > 0 ? c.env.maxSteps : 50;
  const perEpisode = 2048 + steps * (512 + 12 * c.rollout.maxActionTokens);
  const rolloutPath = c.rollout.groupSize >= c.rollout.tasksPerUpdate ? "rollout.groupSize" : "rollout.tasksPerUpdate";
  const episodes = c.rollout.tasksPerUpdate * c.rollout.groupSize;
  const d = Math.max(c.stage0.dModel, 64), layers = Math.max(c.stage0.layers, 1);
  // Weights, gradients and AdamW's two moments, f32 each.
  const params = c.stage0.vocabSize * d + layers * 12 * d * d;
  const terms: MemoryTerm[] = [
    { path: rolloutPath, what: `${c.rollout.tasksPerUpdate} tasks x ${c.rollout.groupSize} members = ${episodes} episodes played at once (${steps} steps of up to ${c.rollout.maxActionTokens} tokens)`, bytes: episodes * perEpisode, pool: "heap" },
    { path: "stage0.games", what: `${c.stage0.games} games x ${c.stage0.episodesPerGame} Stage-0 demonstrations`, bytes: c.stage0.games * c.stage0.episodesPerGame * perEpisode, pool: "heap" },
    { path: "stage1.tasks", what: `${c.stage1.tasks} tasks x ${c.stage1.rollouts} Stage-1 rollouts`, bytes: c.stage1.tasks * c.stage1.rollouts * perEpisode, pool: "heap" },
    { path: c.stage0.vocabSize * d >= layers * 12 * d * d ? "stage0.vocabSize" : c.stage0.layers >= d ? "stage0.layers" : "stage0.dModel", what: `a model of at least ${params.toExponential(2)} parameters (weights, gradients, AdamW moments)`, bytes: 16 * params, pool: "total" },
  ];
  if (c.env.data === "") terms.push({ path: "env.generatedTasks", what: `${c.env.generatedTasks} generated tasks`, bytes: 4096 * c.env.generatedTasks, pool: "heap" });
  return terms;
}

/** The memory a process may use: the JS heap limit (`--max-old-space-size`) and the machine's RAM. */
export type MemoryLimits = { readonly heap: number; readonly total: number };

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toPrecision(3)} GiB`;
}

/** Issues for the sizes whose memory lower bound (`memoryEstimate`) exceeds the limits. */
export function memoryIssues(c: SeedConfig, limits: MemoryLimits = { heap: getHeapStatistics().heap_size_limit, total: totalmem() }): ConfigIssue[] {
  return memoryEstimate(c).flatMap((t) => {
    const limit = t.pool === "heap" ? limits.heap : limits.total;
    if (t.bytes <= limit) return [];
    const where = t.pool === "heap" ? `the JS heap limit of ${gib(limit)} (node --max-old-space-size raises it)` : `this machine's ${gib(limit)} of memory`;
    return [{ path: t.path, message: `${t.what} need at least ${gib(t.bytes)}, more than ${where}; lower it` }];
  });
}

function missingKeys(candidate: unknown, reference: unknown, path: string): ConfigIssue[] {
  if (typeof reference !== "object" || reference === null || typeof candidate !== "object" || candidate === null) return [];
  const out: ConfigIssue[] = [];
  for (const [key, value] of Object.entries(reference)) {
    const sub = path === "" ? key : `${path}.${key}`;
    const c = (candidate as Record<string, unknown>)[key];
    if (c === undefined) out.push({ path: sub, message: "missing" });
    else out.push(...missingKeys(c, value, sub));
  }
  return out;
}

