/**
 * ALFWorld task types: names, the directory-name convention of the game files, per-type
 * buckets for metrics, and the two task sentences of each type
 * (`alfworld/alfworld:alfworld/data/README.md`,
 * `alfworld/gen/goal_library.py`).
 */

/** The six task types, in the order the paper's tables use. */
export const TASK_TYPES = [
  "pick_and_place_simple",
  "look_at_obj_in_light",
  "pick_clean_then_place_in_recep",
  "pick_heat_then_place_in_recep",
  "pick_cool_then_place_in_recep",
  "pick_two_obj_and_place",
] as const;

/** One of the six ALFWorld task types. */
export type TaskType = (typeof TASK_TYPES)[number];

/** Short labels used in tables (Pick, Look, Clean, Heat, Cool, Pick2). */
export const TASK_LABELS: Readonly<Record<TaskType, string>> = {
  pick_and_place_simple: "Pick",
  look_at_obj_in_light: "Look",
  pick_clean_then_place_in_recep: "Clean",
  pick_heat_then_place_in_recep: "Heat",
  pick_cool_then_place_in_recep: "Cool",
  pick_two_obj_and_place: "Pick2",
};

/**
 * The metric bucket of a game path: first substring match in the benchmark's order, so
 * `pick_and_place` matches only Pick games. Undefined when no bucket matches.
 */
export function bucketOfPath(path: string): TaskType | undefined {
  if (path.includes("pick_and_place")) return "pick_and_place_simple";
  if (path.includes("pick_two_obj_and_place")) return "pick_two_obj_and_place";
  if (path.includes("look_at_obj_in_light")) return "look_at_obj_in_light";
  if (path.includes("pick_heat_then_place_in_recep")) return "pick_heat_then_place_in_recep";
  if (path.includes("pick_cool_then_place_in_recep")) return "pick_cool_then_place_in_recep";
  if (path.includes("pick_clean_then_place_in_recep")) return "pick_clean_then_place_in_recep";
  return undefined;
}

/** The fields of a game directory name `<type>-<Object>-<MovableRecep>-<Parent>-<Scene>`. */
export type TaskDirInfo = {
  readonly taskType: TaskType;
  /** Object class as written in the directory (e.g. `Book`). */
  readonly object: string;
  readonly movableRecep: string;
  /** Parent receptacle class, or the lamp class for Look tasks (e.g. `SideTable`, `DeskLamp`). */
  readonly parent: string;
  readonly scene: string;
};

/** Parse a task directory name; undefined when it does not follow the convention. */
export function parseTaskDir(name: string): TaskDirInfo | undefined {
  const parts = name.split("-");
  if (parts.length !== 5) return undefined;
  const [type, object, movableRecep, parent, scene] = parts as [string, string, string, string, string];
  if (!(TASK_TYPES as readonly string[]).includes(type)) return undefined;
  return { taskType: type as TaskType, object, movableRecep, parent, scene };
}

/**
 * The two task sentences of a type, with `{obj}` and `{recep}` filled in (lower-cased class
 * names). Every shipped game uses one of the two; generated games pick one with their RNG.
 */
export function taskSentences(type: TaskType, obj: string, recep: string): readonly [string, string] {
  switch (type) {
    case "pick_and_place_simple":
      return [`put a ${obj} in ${recep}.`, `put some ${obj} on ${recep}.`];
    case "look_at_obj_in_light":
      return [`look at ${obj} under the ${recep}.`, `examine the ${obj} with the ${recep}.`];
    case "pick_clean_then_place_in_recep":
      return [`put a clean ${obj} in ${recep}.`, `clean some ${obj} and put it in ${recep}.`];
    case "pick_heat_then_place_in_recep":
      return [`put a hot ${obj} in ${recep}.`, `heat some ${obj} and put it in ${recep}.`];
    case "pick_cool_then_place_in_recep":
      return [`put a cool ${obj} in ${recep}.`, `cool some ${obj} and put it in ${recep}.`];
    case "pick_two_obj_and_place":
      return [`put two ${obj} in ${recep}.`, `find two ${obj} and put them in ${recep}.`];
  }
}
