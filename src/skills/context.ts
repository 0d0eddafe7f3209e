/**
 * The skill-context function H (the authors' `build_augmented_observation_text` in
 * `zhangdw156/SEED:seed/prompting.py`, and SDAR's prepended block): a pure,
 * deterministic text transform applied to the prompt *text* before the chat template. It changes
 * the context only: the teacher sequence is the re-templated result followed by the student's
 * sampled ids, never re-encoded. H(x, "") = x. The block text and the task-line patterns are
 * protocol strings, carried over byte for byte.
 *
 * - `insert` (Variant A, SEED's default): the block goes after the first line holding a task
 *   pattern; without one, before the "Now it's your turn" anchor; without either, appended.
 * - `prepend` (Variant B, the SDAR family and Skill-GRPO; `build_teacher_batch` in
 *   `ZJU-REAL/SDAR:verl/trainer/ppo/rlsd_ray_trainer.py`): a privileged block before the text.
 *
 * In `full` history mode apply H to the first turn's text only (it holds the task line); later
 * turns append text without one, and `insert` would fall back to the anchor or the end.
 */

/** Where H puts the skill. */
export type SkillContextMode = "insert" | "prepend";

/** Header and instruction of the inserted block (Variant A), exact. */
export const EPISODE_SKILL_HEADER = "**Episode-Level Skill**";
/** The instruction line under the header (Variant A), exact. */
export const EPISODE_SKILL_INSTRUCTION = "Refer to this episode-level skill when deciding what action to take in the current episode:";
/** Header of the prepended block (Variant B), exact. */
export const PRIVILEGED_SKILL_HEADER = "[Privileged Skill Information]";

/** Task-line patterns, tried in this order; the block goes after the first line holding the first that occurs. */
export const TASK_LINE_PATTERNS = ["Your task is to:", "Your current task is:", "Your task is:", "Your question:", "Your goal is"] as const;

/** Fallback anchors, tried in this order; the block goes before the anchor. */
export const TURN_ANCHORS = ["Now it's your turn to", "Now it's your turn"] as const;

/** The three-line block of Variant A for a (non-empty, trimmed) skill. */
export function episodeSkillBlock(skill: string): string {
  return `${EPISODE_SKILL_HEADER}\n${EPISODE_SKILL_INSTRUCTION}\n[${skill.trim()}]`;
}

/**
 * H(text, skill): the skill-augmented context h̃ = H(h, s) of Algorithm 1, step 5. An empty (or whitespace-only) skill returns the
 * text unchanged, byte for byte.
 * @example
 * applySkill("Role.\nYour task is to: put a mug in the sink.\nNow it's your turn to act.", "Take the mug first.", "insert")
 * // "Role.\nYour task is to: put a mug in the sink.\n\n**Episode-Level Skill**\n...\n[Take the mug first.]\n\nNow it's your turn to act."
 */
export function applySkill(text: string, skill: string, mode: SkillContextMode): string {
  if (skill.trim() === "") return text;
  if (mode === "prepend") return `${PRIVILEGED_SKILL_HEADER}\n${skill}\n\n${text}`;
  const block = episodeSkillBlock(skill);
  const body = text.trim();
  for (const pattern of TASK_LINE_PATTERNS) {
    const at = body.indexOf(pattern);
    if (at === -1) continue;
    const lineEnd = body.indexOf("\n", at);
    const head = (lineEnd === -1 ? body : body.slice(0, lineEnd)).trimEnd();
    const rest = (lineEnd === -1 ? "" : body.slice(lineEnd)).trimStart();
    return rest === "" ? `${head}\n\n${block}` : `${head}\n\n${block}\n\n${rest}`;
  }
  for (const anchor of TURN_ANCHORS) {
    const at = body.indexOf(anchor);
    if (at === -1) continue;
    return `${body.slice(0, at).trimEnd()}\n\n${block}\n\n${body.slice(at).trimStart()}`;
  }
  return `${body}\n\n${block}`;
}

/**
 * Where the part of H(text, skill) that a context cut must never remove ends: after the skill
 * block and after the task line, whichever comes later (a character index into `augmented`; 0
 * when neither is found). Everything after it is history, which a cut may shorten.
 */
export function skillContextEnd(augmented: string, skill: string, mode: SkillContextMode): number {
  let end = 0;
  if (skill.trim() !== "") {
    const block = mode === "prepend" ? `${PRIVILEGED_SKILL_HEADER}\n${skill}` : episodeSkillBlock(skill);
    const at = augmented.indexOf(block);
    if (at >= 0) end = at + block.length;
  }
  for (const pattern of TASK_LINE_PATTERNS) {
    const at = augmented.indexOf(pattern);
    if (at === -1) continue;
    const lineEnd = augmented.indexOf("\n", at);
    end = Math.max(end, lineEnd === -1 ? augmented.length : lineEnd);
    break;
  }
  return end;
}
