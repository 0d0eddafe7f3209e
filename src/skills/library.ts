/**
 * The static skill library: general skills plus one skill per task type, for the baselines that
 * use retrieved rather than self-written skills (Skill-Prompt, Skill-GRPO, Skill-GRPO*, SDAR,
 * Skill-SD; the static library of `ZJU-REAL/SDAR:verl/trainer/ppo/rlsd_utils.py`). Retrieval is a
 * plain lookup: ALFWorld by task
 * type (from the task sentence, else the game path), the other environments by name. The text is
 * ours. Log the skill every sample saw: one public reproduction lost 8 points because only the
 * general skills were loaded (`ZJU-REAL/SDAR#35`).
 */
import { applySkill, type SkillContextMode } from "./context.ts";
import { parseAlfworldTask, type AlfworldTaskKind } from "./rule-alfworld.ts";

/** Skills that hold in every environment. */
export const generalSkills: readonly string[] = [
  "Read the task carefully and keep its goal in mind at every step.",
  "Choose only actions that are available, copied exactly, and never repeat an action that changed nothing.",
];

/** One skill per task type and environment. */
export const taskTypeSkills = {
  alfworld: {
    pick: "Find the object first, checking likely receptacles and opening closed ones; take it, go to the destination and put it there.",
    look: "Find the object and take it, then go to the lamp and turn it on while holding the object.",
    clean: "Find the object and take it, clean it at the sinkbasin, then go to the destination and put it there.",
    heat: "Find the object and take it, heat it with the microwave, then go to the destination and put it there.",
    cool: "Find the object and take it, cool it with the fridge, then go to the destination and put it there.",
    pick2: "Find one object, take it and put it at the destination; then find a second one of the same kind and put it there too.",
  } satisfies Record<AlfworldTaskKind, string>,
  webshop: "Search with the product type and key attributes, open a result that matches all of them, select every required option, check the price limit, then click buy now.",
  search: "Search for the exact entity in the question, check that the documents state the asked relation, then answer with a short span.",
  sokoban: "Get behind the box, push it in straight lines toward the target, and never push it into a corner or along a wall away from the target.",
  ezpoints: "Use both card numbers once with + or * so the formula equals 12, one token per step, then press =.",
} as const;

/** Content-free skills: what a useless analyzer would write (the degraded analyzer draws from these). */
export const genericSkills: readonly string[] = [
  "Think carefully about the situation and act step by step toward the goal.",
  "Stay focused on the task and make sure every action makes progress.",
  "Consider the available options and choose the most sensible next action.",
];

const ALFWORLD_PATH_TYPES: ReadonlyArray<[string, AlfworldTaskKind]> = [
  ["pick_two_obj_and_place", "pick2"],
  ["look_at_obj_in_light", "look"],
  ["pick_clean_then_place_in_recep", "clean"],
  ["pick_heat_then_place_in_recep", "heat"],
  ["pick_cool_then_place_in_recep", "cool"],
  ["pick_and_place", "pick"],
];

/** The task-type skill of a task, or undefined when the type is unknown. */
export function taskTypeSkill(envId: string, task: string, taskId = ""): string | undefined {
  if (envId === "alfworld") {
    const kind = parseAlfworldTask(task)?.kind ?? ALFWORLD_PATH_TYPES.find(([key]) => taskId.includes(key))?.[1];
    return kind === undefined ? undefined : taskTypeSkills.alfworld[kind];
  }
  if (envId !== "alfworld" && Object.hasOwn(taskTypeSkills, envId)) return taskTypeSkills[envId as Exclude<keyof typeof taskTypeSkills, "alfworld">];
  return undefined;
}

/**
 * The library skill for a task: the general skills followed by its task-type skill.
 * @example librarySkill("alfworld", "put a hot apple in fridge.")
 */
export function librarySkill(envId: string, task: string, taskId = ""): string {
  const specific = taskTypeSkill(envId, task, taskId);
  return [...generalSkills, ...(specific === undefined ? [] : [specific])].join(" ");
}

/**
 * The prompt transform that puts the library skill into the student's context (H with
 * `context`): Skill-GRPO and Skill-Prompt in training, and evaluation of presets with
 * `eval.skill = "library"` (Skill-GRPO*, Skill-Prompt). Pass it as the agent's `promptTransform`.
 * The task type comes from a task line of the prompt or, failing that, from the task id of the
 * group (the ALFWorld game path).
 * @example collectGroups(policy, makeEnv, tasks, { ...opts, promptTransform: studentSkillTransform("alfworld", "prepend", tasks) })
 */
export function studentSkillTransform(envName: string, context: SkillContextMode, tasks: readonly { readonly id: string }[]): (text: string, where: { readonly groupIndex: number }) => string {
  return (text, where) => applySkill(text, librarySkill(envName, taskText(text), tasks[where.groupIndex]?.id ?? ""), context);
}

/** The task sentence of a prompt (the text after the first task-line pattern), for library lookup. */
function taskText(prompt: string): string {
  const m = /Your task is to:\s*(.+)/.exec(prompt) ?? /Your (?:question|goal is(?: to)?):?\s*(.+)/.exec(prompt);
  return m?.[1]?.trim() ?? "";
}
