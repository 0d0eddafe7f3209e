/**
 * Where skills come from in training: the policy's analyzer role writing one hindsight skill per
 * trajectory (SEED), the static library of `skills/` (SDAR, Skill-SD, RLSD, OPSD, Skill-GRPO),
 * and a `static-self` library written once by the starting checkpoint and then frozen (the
 * ablation "w/o on-policy skill"), and an external analyzer at every update (a privileged
 * control, not a method of the paper). Libraries are looked up by task key: the ALFWorld task type,
 * the environment name elsewhere.
 */
import type { Trajectory } from "../core/trajectory.ts";
import type { ChatFormat } from "../policy/chat-format.ts";
import type { Policy } from "../policy/policy.ts";
import { analysisMetrics, skillTexts, skillValidity, type Analysis, type Analyzer } from "./analyzer.ts";
import { serializeTrajectory } from "./serialize.ts";
import { deriveSeed } from "../core/rng.ts";
import { degradedAnalyzer } from "./degraded-analyzer.ts";
import { llmAnalyzer } from "./llm-analyzer.ts";
import { ruleAnalyzer } from "./rule-analyzer.ts";
import type { Stage1Config } from "../config/config.ts";
import { chatCompletion } from "./llm-endpoint.ts";
import { librarySkill } from "./library.ts";
import { parseAlfworldTask } from "./rule-alfworld.ts";
import { policyAnalyzer, serializeForAnalyzer } from "./analyzer-role.ts";

/** Teacher skills of an update's trajectories. */
export type TeacherSkills = {
  /** The skill text each trajectory's teacher context carries ("" for none). */
  readonly skills: readonly string[];
  /** v_τ: 1 when the trajectory has a usable skill. */
  readonly valid: readonly number[];
  readonly metrics: Record<string, number>;
};

/** The library key of a task: ALFWorld's task kind (`heat`, `pick2`, ...), else the environment name. */
export function taskKey(envName: string, task: string): string {
  if (envName === "alfworld") return parseAlfworldTask(task)?.kind ?? "alfworld";
  return envName;
}

/** Skills of the static library for each trajectory (always valid). */
export function librarySkills(envName: string, trajectories: readonly Trajectory[]): TeacherSkills {
  const skills = trajectories.map((t) => librarySkill(envName, t.task, t.taskId));
  return { skills, valid: skills.map(() => 1), metrics: { "skills/valid_frac": 1 } };
}

/** Skills of a `static-self` library for each trajectory ("" and invalid where its key has none). */
export function staticSkills(envName: string, library: Readonly<Record<string, string>>, trajectories: readonly Trajectory[]): TeacherSkills {
  const skills = trajectories.map((t) => library[taskKey(envName, t.task)] ?? "");
  const valid = skills.map((s): number => (s === "" ? 0 : 1));
  return { skills, valid, metrics: { "skills/valid_frac": valid.length === 0 ? 0 : valid.reduce((a, b) => a + b, 0) / valid.length } };
}

/** Options of the analyzer role. */
export type SelfSkillOptions = {
  readonly maxSkillTokens: number;
  readonly maxContext: number;
  readonly attempts: number;
  readonly seed: number;
};

/** The analyzer role's analyses of every trajectory (one greedy answer each by default). */
export async function analyzeWithPolicy(analyzer: Policy, chat: ChatFormat, trajectories: readonly Trajectory[], options: SelfSkillOptions): Promise<Analysis[]> {
  const role = policyAnalyzer(analyzer, chat, { maxSkillTokens: options.maxSkillTokens, maxContext: options.maxContext, attempts: options.attempts, seed: options.seed });
  return role.analyze(trajectories.map((t) => serializeForAnalyzer(t, options)));
}

/** SEED's skills: one per trajectory from the analyzer role; an unusable answer gives v_τ = 0. */
export async function selfSkills(analyzer: Policy, chat: ChatFormat, trajectories: readonly Trajectory[], options: SelfSkillOptions): Promise<TeacherSkills & { analyses: Analysis[] }> {
  const analyses = await analyzeWithPolicy(analyzer, chat, trajectories, options);
  return { skills: skillTexts(analyses), valid: skillValidity(analyses), metrics: analysisMetrics(analyses), analyses };
}

/**
 * The external analyzer of a config (`stage1.analyzer`): the labeller of Stage 1 and the skill
 * source of `skills.teacher = "external"`. The degraded analyzer's seed is Stage 1's stream.
 */
export function externalAnalyzer(config: { readonly stage1: Stage1Config }): Analyzer {
  const s = config.stage1;
  if (s.analyzer === "llm") return llmAnalyzer(chatCompletion({ baseUrl: s.endpoint, model: s.model }), { attempts: 2, name: `llm(${s.model})` });
  if (s.analyzer === "degraded") return degradedAnalyzer(ruleAnalyzer(), { rate: s.degradeRate, seed: deriveSeed(deriveSeed(0, "stage1"), "degrade") });
  return ruleAnalyzer();
}

/**
 * Skills written by an external analyzer (the Stage-1 labeller) for every trajectory, from the
 * same serialization Stage 1 labels; an unusable answer gives v_τ = 0.
 */
export async function externalSkills(analyzer: Analyzer, trajectories: readonly Trajectory[]): Promise<TeacherSkills> {
  const analyses = await analyzer.analyze(trajectories.map((t) => serializeTrajectory(t)));
  return { skills: skillTexts(analyses), valid: skillValidity(analyses), metrics: analysisMetrics(analyses) };
}

/**
 * A `static-self` library from analysed trajectories: per task key, the first valid skill of a
 * successful trajectory (a workflow), else the first valid skill of that key. Deterministic in
 * the order of the trajectories.
 */
export function libraryFromAnalyses(envName: string, trajectories: readonly Trajectory[], analyses: readonly Analysis[]): Record<string, string> {
  const success: Record<string, string> = {};
  const any: Record<string, string> = {};
  trajectories.forEach((t, i) => {
    const a = analyses[i];
    if (a === undefined || !a.ok) return;
    const key = taskKey(envName, t.task);
    any[key] ??= a.skill;
    if (t.success) success[key] ??= a.skill;
  });
  const out: Record<string, string> = {};
  for (const key of Object.keys(any).sort()) out[key] = success[key] ?? any[key]!;
  return out;
}
