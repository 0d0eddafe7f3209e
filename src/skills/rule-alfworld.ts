/**
 * Rule-based hindsight analysis of ALFWorld episodes, from the serialized text only (task line,
 * observations, actions, validity, outcome): a success becomes a workflow of the subgoals the
 * agent achieved, abstracted to kinds of objects and places; a failure becomes an avoidance rule
 * for the first mistake found in a fixed order of diagnoses (format, inadmissible commands, wrong
 * object, wrong place, missing heat/cool/clean, skipped lamp, object seen but not taken, closed
 * receptacles left unopened, loops, second object missing, then a generic plan). Deterministic.
 * It knows the command grammar and feedback sentences of TextWorld's ALFRED grammar and the task
 * sentences of `alfworld/alfworld:alfworld/gen/goal_library.py`, nothing of
 * the game's hidden state.
 */
import type { ParsedTrajectory, SerializedStep } from "./serialize.ts";

/** The six ALFWorld task types. */
export type AlfworldTaskKind = "pick" | "look" | "clean" | "heat" | "cool" | "pick2";

/** A task sentence read into its type, object and destination (ALFWorld's `goal_library.py`). */
export type AlfworldTask = { readonly kind: AlfworldTaskKind; readonly obj: string; readonly recep: string };

const TASK_PATTERNS: ReadonlyArray<[RegExp, AlfworldTaskKind]> = [
  [/^put two (.+?) in (.+?)\.?$/, "pick2"],
  [/^find two (.+?) and put them in (.+?)\.?$/, "pick2"],
  [/^look at (.+?) under the (.+?)\.?$/, "look"],
  [/^examine the (.+?) with the (.+?)\.?$/, "look"],
  [/^put a clean (.+?) in (.+?)\.?$/, "clean"],
  [/^clean some (.+?) and put it in (.+?)\.?$/, "clean"],
  [/^put a hot (.+?) in (.+?)\.?$/, "heat"],
  [/^heat some (.+?) and put it in (.+?)\.?$/, "heat"],
  [/^put a cool (.+?) in (.+?)\.?$/, "cool"],
  [/^cool some (.+?) and put it in (.+?)\.?$/, "cool"],
  [/^put a (.+?) in (.+?)\.?$/, "pick"],
  [/^put some (.+?) on (.+?)\.?$/, "pick"],
];

/** Reads an ALFWorld task sentence (`put some book on sidetable.`); undefined for any other text. */
export function parseAlfworldTask(task: string): AlfworldTask | undefined {
  const text = task.trim().toLowerCase().replace(/\s+/g, " ");
  for (const [re, kind] of TASK_PATTERNS) {
    const m = re.exec(text);
    if (m) return { kind, obj: m[1]!, recep: m[2]! };
  }
  return undefined;
}

/** `apple 1` → `apple`: the kind of an entity, without its instance number. */
export function kindOf(entity: string): string {
  return entity.trim().replace(/\s+\d+$/, "");
}

const INSIDE = new Set(["drawer", "cabinet", "fridge", "microwave", "safe", "box", "garbagecan", "sinkbasin", "bathtubbasin", "cart", "laundryhamper", "sink", "bathtub"]);
const STATE_VERB: Partial<Record<AlfworldTaskKind, { verb: "heat" | "cool" | "clean"; tool: string }>> = {
  heat: { verb: "heat", tool: "microwave" },
  cool: { verb: "cool", tool: "fridge" },
  clean: { verb: "clean", tool: "sinkbasin" },
};

function where(place: string): string {
  return `${INSIDE.has(place) ? "in" : "on"} the ${place}`;
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** One command with its parsed parts and whether it worked (judged from the next observation). */
type Act = {
  readonly step: number;
  readonly verb: string;
  readonly obj?: string;
  readonly target?: string;
  readonly text: string;
  readonly ok: boolean;
  readonly feedback: string;
};

const GRAMMAR: ReadonlyArray<[RegExp, (m: RegExpExecArray) => { verb: string; obj?: string; target?: string }]> = [
  [/^go to (.+)$/, (m) => ({ verb: "go", target: m[1]! })],
  [/^open (.+)$/, (m) => ({ verb: "open", target: m[1]! })],
  [/^close (.+)$/, (m) => ({ verb: "close", target: m[1]! })],
  [/^take (.+) from (.+)$/, (m) => ({ verb: "take", obj: m[1]!, target: m[2]! })],
  [/^move (.+) to (.+)$/, (m) => ({ verb: "move", obj: m[1]!, target: m[2]! })],
  [/^(heat|cool|clean|slice) (.+) with (.+)$/, (m) => ({ verb: m[1]!, obj: m[2]!, target: m[3]! })],
  [/^use (.+)$/, (m) => ({ verb: "use", target: m[1]! })],
  [/^examine (.+)$/, (m) => ({ verb: "examine", target: m[1]! })],
  [/^(look|inventory|help)$/, (m) => ({ verb: m[1]! })],
];

function readActs(steps: readonly SerializedStep[], success: boolean): Act[] {
  return steps.map((s, i) => {
    const text = s.action.trim().toLowerCase();
    const following = steps[i + 1];
    const next = following !== undefined && following.index === s.index + 1 ? following : undefined;
    const feedback = next?.observation.trim() ?? "";
    // Without a feedback line (the last step, or one before omitted steps) a success proves the
    // last command worked; otherwise trust validity.
    const worked = next === undefined ? (following === undefined && success) || s.valid : s.valid && !feedback.startsWith("Nothing happens");
    for (const [re, read] of GRAMMAR) {
      const m = re.exec(text);
      if (m) return { step: i, text, ok: worked, feedback, ...read(m) };
    }
    return { step: i, verb: "unknown", text, ok: false, feedback };
  });
}

/** Entities `a <kind> <n>` an observation lists. */
function listed(observation: string): string[] {
  return [...observation.matchAll(/\ban? ([a-z]+) (\d+)\b/g)].map((m) => `${m[1]} ${m[2]}`);
}

/** True when the episode's text looks like ALFWorld (task sentence, banner or command grammar). */
export function looksLikeAlfworld(episode: ParsedTrajectory): boolean {
  if (parseAlfworldTask(episode.task) !== undefined) return true;
  if (episode.steps.some((s) => s.observation.includes("-= Welcome to TextWorld"))) return true;
  const acts = episode.steps.map((s) => s.action.trim().toLowerCase());
  return acts.length > 0 && acts.filter((a) => /^(go to|take|move|open) /.test(a)).length >= acts.length / 2;
}

/** The skill for one ALFWorld episode. */
export function analyzeAlfworld(episode: ParsedTrajectory): string {
  const task = parseAlfworldTask(episode.task) ?? parseAlfworldTask(taskFromObservations(episode.steps) ?? "");
  const acts = readActs(episode.steps, episode.outcome === "success");
  return episode.outcome === "success" ? workflow(task, acts) : avoidance(task, acts, episode.steps);
}

function taskFromObservations(steps: readonly SerializedStep[]): string | undefined {
  for (const s of steps) {
    const m = /Your task is to: (.+)/.exec(s.observation);
    if (m) return m[1]!.trim();
  }
  return undefined;
}

// ---------- success: a workflow of achieved subgoals ----------

function workflow(task: AlfworldTask | undefined, acts: readonly Act[]): string {
  const clauses: string[] = [];
  let taken = 0;
  let heldKind = task?.obj ?? "object";
  // Only subgoals on the task's object count: a detour that picked up something else is not part of the workflow.
  const relevant = (entity: string | undefined) => task === undefined || (entity !== undefined && kindOf(entity) === task.obj);
  const add = (clause: string) => {
    if (clauses.at(-1) !== clause) clauses.push(clause);
  };
  acts.forEach((a, i) => {
    if (!a.ok) return;
    if (a.verb === "take" && a.obj && a.target && relevant(a.obj)) {
      heldKind = kindOf(a.obj);
      const place = kindOf(a.target);
      const opened = acts.slice(0, i).some((b) => b.ok && b.verb === "open" && b.target === a.target);
      const which = taken > 0 ? `a second ${heldKind}` : article(heldKind);
      add(`find ${which} (look ${where(place)}${opened ? ", opening it first" : ""}) and take it`);
      taken++;
    } else if ((a.verb === "heat" || a.verb === "cool" || a.verb === "clean" || a.verb === "slice") && a.target && relevant(a.obj)) {
      add(`${a.verb} it with the ${kindOf(a.target)}`);
    } else if (a.verb === "use" && a.target) {
      add(`turn on the ${kindOf(a.target)} while holding it`);
    } else if (a.verb === "move" && a.target && relevant(a.obj)) {
      const place = kindOf(a.target);
      const opened = acts.slice(0, i).some((b) => b.ok && b.verb === "open" && b.target === a.target);
      add(`go to the ${place}${opened ? ", open it" : ""} and put the ${heldKind} there`);
    }
  });
  if (clauses.length === 0) return task ? plan(task) : "Read the task, find the object it names, and carry out each required step in order before placing it.";
  const text = `First ${clauses.join(", then ")}.`;
  // Each subgoal needs about two commands (go there, act); many more means the agent wandered.
  const wasted = acts.filter((a) => !a.ok).length;
  const detours = acts.length - 2 * clauses.length - 2;
  return wasted >= 3 || detours >= 6 ? `${text} Go straight for these subgoals instead of exploring.` : text;
}

/** The generic plan of a task type, used when the episode itself shows too little. */
function plan(task: AlfworldTask): string {
  const obj = task.obj;
  const dest = `go to the ${task.recep} and put it there`;
  const state = STATE_VERB[task.kind];
  switch (task.kind) {
    case "look":
      return `Find ${article(obj)} and take it, then go to the ${task.recep} and turn it on while holding the ${obj}.`;
    case "pick2":
      return `Find ${article(obj)}, take it and ${dest}; then find a second ${obj} and put it there too.`;
    default:
      return state
        ? `Find ${article(obj)} and take it, ${state.verb} it with the ${state.tool}, then ${dest}.`
        : `Find ${article(obj)} and take it, then ${dest}.`;
  }
}

// ---------- failure: one avoidance rule ----------

function avoidance(task: AlfworldTask | undefined, acts: readonly Act[], steps: readonly SerializedStep[]): string {
  const n = acts.length;
  const then = task ? ` ${plan(task)}` : "";
  if (n === 0) return `Do not stop before acting: take the first step toward the task at once.${then}`;
  const invalid = steps.filter((s) => !s.valid).length;
  if (invalid >= Math.max(2, 0.3 * n)) {
    return "Do not write malformed answers: reason inside <think> </think>, then give exactly one admissible action, copied word for word, inside <action> </action>." + then;
  }
  const failed = acts.filter((a) => a.verb === "unknown" || (!a.ok && a.step < n - 1));
  if (failed.length >= Math.max(2, 0.3 * n)) return inadmissible(failed) + then;

  if (task) {
    const diagnosis = taskMistake(task, acts, steps);
    if (diagnosis) return diagnosis;
  }
  const loop = loopOf(acts);
  if (loop) return `Do not keep repeating '${loop}'; once a place is checked, go to a receptacle you have not visited yet.${then}`;
  return `Do not wander without a plan.${then || " Find the object the task names first, then complete each step it asks for."}`;
}

/** The rule for commands that produced "Nothing happens.", by the verb that failed most. */
function inadmissible(failed: readonly Act[]): string {
  const counts = new Map<string, number>();
  for (const a of failed) counts.set(a.verb, (counts.get(a.verb) ?? 0) + 1);
  const verb = [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]![0];
  const rules: Record<string, string> = {
    take: "Do not try to take an object that is not listed where you stand; go to its receptacle, open it if closed, and copy the take command from the admissible list.",
    move: "Do not try to put an object down before you hold it and stand at the destination; check the admissible list for the move command.",
    heat: "Do not try to heat an object unless you hold it and stand at the microwave.",
    cool: "Do not try to cool an object unless you hold it and stand at the fridge.",
    clean: "Do not try to clean an object unless you hold it and stand at the sinkbasin.",
    go: "Do not go to places that are not in the room description; pick a receptacle from the admissible list.",
    open: "Do not open things that are not closed receptacles at your location.",
    use: "Do not use a lamp unless you stand next to it.",
  };
  return rules[verb] ?? "Do not issue commands that are not in the admissible list; they change nothing and waste the step.";
}

function taskMistake(task: AlfworldTask, acts: readonly Act[], steps: readonly SerializedStep[]): string | undefined {
  const ok = acts.filter((a) => a.ok);
  const takes = ok.filter((a) => a.verb === "take" && a.obj);
  const tookTarget = takes.some((a) => kindOf(a.obj!) === task.obj);
  const lampKinds = new Set(["desklamp", "floorlamp"]);
  const wrong = takes.find((a) => kindOf(a.obj!) !== task.obj && !lampKinds.has(kindOf(a.obj!)));
  if (wrong && !tookTarget) {
    return `Do not pick up the ${kindOf(wrong.obj!)}; the task needs ${article(task.obj)}. Check the object's name before taking it.`;
  }
  const moves = ok.filter((a) => a.verb === "move" && a.obj && kindOf(a.obj) === task.obj);
  const misplaced = moves.find((a) => kindOf(a.target!) !== task.recep);
  if (task.kind !== "look" && misplaced) {
    return `Do not put the ${task.obj} ${where(kindOf(misplaced.target!))}; it belongs ${where(task.recep)}.`;
  }
  const state = STATE_VERB[task.kind];
  if (state && tookTarget && !ok.some((a) => a.verb === state.verb)) {
    return moves.length > 0
      ? `Do not put the ${task.obj} ${where(task.recep)} before you ${state.verb} it with the ${state.tool}.`
      : `Do not wander while holding the ${task.obj}: go to the ${state.tool} and ${state.verb} it, then go to the ${task.recep} and put it there.`;
  }
  if (task.kind === "look" && tookTarget && !ok.some((a) => a.verb === "use")) {
    return `Do not stop after taking the ${task.obj}: carry it to the ${task.recep} and turn the ${task.recep} on.`;
  }
  if (task.kind === "pick2" && moves.length === 1) {
    return `Do not stop after placing one ${task.obj}: the task needs two, so find a second ${task.obj} and put it ${where(task.recep)} too.`;
  }
  if (tookTarget && moves.length === 0 && task.kind !== "look") {
    return `Do not wander while holding the ${task.obj}: go straight to the ${task.recep} and put it there.`;
  }
  if (!tookTarget) {
    const seenAt = steps.findIndex((s, i) => i > 0 && listed(s.observation).some((e) => kindOf(e) === task.obj));
    if (seenAt !== -1) return `Do not walk past the ${task.obj}: when you see one, take it at once. ${plan(task)}`;
    const closed = closedNeverOpened(acts);
    if (closed) return `Do not skip closed receptacles: open the ${closed} and look inside before moving on; the ${task.obj} may be hidden there. ${plan(task)}`;
  }
  return undefined;
}

/** A receptacle kind the agent found closed and never opened. */
function closedNeverOpened(acts: readonly Act[]): string | undefined {
  const opened = new Set(acts.filter((a) => a.ok && a.verb === "open").map((a) => a.target));
  const closed = acts.find((a) => a.verb === "go" && a.target && / is closed\./.test(a.feedback) && !opened.has(a.target));
  return closed ? kindOf(closed.target!) : undefined;
}

/** The command repeated most if some command makes up a third of the episode (at least 3 times). */
function loopOf(acts: readonly Act[]): string | undefined {
  const counts = new Map<string, number>();
  for (const a of acts) counts.set(a.text, (counts.get(a.text) ?? 0) + 1);
  const [text, count] = [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0] ?? ["", 0];
  if (count < 3 || count < acts.length / 3) return undefined;
  return text.replace(/\s+\d+$/, "").replace(/ (\d+) /g, " ");
}
