/**
 * The analyzer template: the one prompt every analyzer reads (the external Stage-1 labeller, the
 * Stage-1 SFT data, the policy in its Stage-2 analyzer role) and the one answer format it writes.
 * Prompt, SFT target, retry prompt and format limits live in this one file so they cannot drift
 * apart: the paper's Stage-2 analyzer works only if its prompt is byte for byte the Stage-1 SFT
 * prompt it was fine-tuned on. The structure follows the authors' analysis prompt
 * (`zhangdw156/SEED:seed/analysis.py`: instruction, the
 * outcome-specific request, constraints, answer format, then the episode); the wording is ours.
 *
 * Deliberate difference from the reference: one field, `skill`, instead of `episode_summary` +
 * `episode_skill`. The summary is never used downstream and would double what a small embedded
 * model has to generate. The parser still accepts `episode_skill` from external models.
 */
import type { Outcome, SerializedTrajectory } from "./serialize.ts";

/** The JSON key of the skill in an analyzer answer. */
export const SKILL_KEY = "skill";

/** Keys accepted as the skill when reading an answer, in order of preference (the reference's name second). */
export const SKILL_KEYS = [SKILL_KEY, "episode_skill"] as const;

/**
 * What makes a skill valid (the paper keeps format-valid labels only and names no criteria;
 * ours: it parses, one skill, non-empty, within a length bound). Documented criteria, all checked
 * by `validateSkill`:
 * 1. the answer holds a JSON object (after repair) with a `skill` (or `episode_skill`) key;
 * 2. its value is one string (not a list, not an object);
 * 3. after trimming it has at least `minWords` whitespace-separated words and a letter;
 * 4. it has at most `maxChars` characters (a skill is one short instruction, not an essay;
 *    a long skill would also push the teacher prompt over the context limit).
 */
export type SkillLimits = {
  /** @default 3 */
  readonly minWords: number;
  /** @default 400 */
  readonly maxChars: number;
};

/** The default format bounds. */
export const defaultSkillLimits: SkillLimits = { minWords: 3, maxChars: 400 };

const OUTCOME_REQUEST: Record<Outcome, string> = {
  success:
    "The agent succeeded. Turn this episode into a reusable workflow: the order of subgoals that solved the task and the decision rule that made it work, so that the same kind of task can be solved quickly next time.",
  failure:
    "The agent failed. Turn this episode into an avoidance rule: the core mistake that made it fail and the warning sign that should make the agent change course next time.",
};

/** The answer shape, exactly as the prompt shows it. */
export const SKILL_SCHEMA = `{"${SKILL_KEY}": "<one short instruction for the agent>"}`;

/**
 * The analyzer prompt for one serialized trajectory: the same text in Stage 1 (labelling and
 * SFT) and Stage 2 (the policy analysing its own rollouts). Plain text, one user message.
 */
export function analyzerPrompt(trajectory: SerializedTrajectory, limits: SkillLimits = defaultSkillLimits): string {
  return [
    "Read the agent episode below and answer with one JSON object and nothing else.",
    `Write one field, "${SKILL_KEY}":`,
    OUTCOME_REQUEST[trajectory.outcome],
    "Constraints:",
    "- Address the agent directly with one instruction it can follow in a future episode; do not retell this episode.",
    "- Name kinds of objects and places (a drawer, the microwave), not numbered instances, unless the number matters.",
    `- Keep it under ${limits.maxChars} characters. Return only the field "${SKILL_KEY}".`,
    "Answer format:",
    SKILL_SCHEMA,
    "Episode:",
    trajectory.text,
  ].join("\n");
}

/**
 * The SFT target for a skill: the compact one-line JSON answer the analyzer is trained to write
 * (the label an external analyzer produced, re-serialized). `parseSkill(skillTarget(s))` gives s back.
 */
export function skillTarget(skill: string): string {
  return JSON.stringify({ [SKILL_KEY]: skill.trim() });
}

/**
 * One Stage-1 SFT example: the analyzer prompt and the target answer. Train with the NLL on the
 * target tokens only; the prompt is exactly what the policy will see in its Stage-2 analyzer role.
 */
export function sftExample(trajectory: SerializedTrajectory, skill: string, limits: SkillLimits = defaultSkillLimits): { prompt: string; target: string } {
  return { prompt: analyzerPrompt(trajectory, limits), target: skillTarget(skill) };
}

/** How much of a bad answer the retry prompt quotes (the reference's 2,000 characters). */
export const RETRY_QUOTE_CHARS = 2000;

/**
 * The retry prompt after an unusable answer: the original prompt, what was wrong, the end of the
 * bad answer and the exact answer shape (the retry of `jinyangwu/OPID:opid/analysis.py`).
 */
export function retryPrompt(originalPrompt: string, problem: string, badAnswer: string): string {
  return [
    originalPrompt,
    "",
    `Your previous answer could not be used: ${problem}`,
    "The end of that answer was:",
    badAnswer.slice(-RETRY_QUOTE_CHARS),
    "Answer again with exactly one JSON object of this shape and nothing else:",
    SKILL_SCHEMA,
  ].join("\n");
}
