/**
 * The rule-based hindsight analyzer: it plays the paper's external analyzer (GLM) in the
 * embedded pipeline. It reads only the serialized trajectory text (task, observations, actions,
 * validity, rewards, outcome), never the environment's internals, and writes a workflow for a
 * success and an avoidance rule for a failure. ALFWorld gets a task-aware analysis
 * (rule-alfworld.ts); WebShop, Search-QA, Sokoban and EZPoints get shorter rules keyed on what the
 * text shows (format errors, loops, buying or answering too early, never finishing); anything
 * else gets a generic rule. Deterministic: the same text always gives the same skill, and every
 * skill it writes passes the format validator (its answer is the same JSON a model must write).
 */
import type { EnvName } from "../envs/registry.ts";
import type { Analysis, Analyzer } from "./analyzer.ts";
import { parseSkill } from "./parse-skill.ts";
import { analyzeAlfworld, looksLikeAlfworld } from "./rule-alfworld.ts";
import { readSerializedTrajectory, type ParsedTrajectory } from "./serialize.ts";
import { defaultSkillLimits, skillTarget, type SkillLimits } from "./template.ts";

/** The environment an episode's text looks like (a registry name), or `generic`. */
export type EpisodeKind = EnvName | "generic";

const SOKOBAN_MOVES = new Set(["up", "down", "left", "right", "still"]);
const EZ_TOKENS = new Set(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "+", "*", "="]);

/** Guesses the environment from the text alone (task sentence, action grammar, observations). */
export function episodeKind(episode: ParsedTrajectory): EpisodeKind {
  if (looksLikeAlfworld(episode)) return "alfworld";
  const acts = episode.steps.map((s) => s.action.trim().toLowerCase()).filter((a) => a !== "");
  const share = (pred: (a: string) => boolean) => acts.length > 0 && acts.filter(pred).length >= acts.length / 2;
  if (share((a) => /^(search|click)\[/.test(a))) return "webshop";
  if (share((a) => /^<(search|answer)>/.test(a))) return "search";
  if (share((a) => SOKOBAN_MOVES.has(a)) || /box onto a target/i.test(episode.task)) return "sokoban";
  if (share((a) => EZ_TOKENS.has(a)) || /formula equal to/i.test(episode.task)) return "ezpoints";
  return "generic";
}

/** Share of invalid steps, the trigger of every format rule. */
function mostlyInvalid(episode: ParsedTrajectory): boolean {
  const n = episode.steps.length;
  return n > 0 && episode.steps.filter((s) => !s.valid).length >= Math.max(2, 0.3 * n);
}

/** The most repeated action and its count. */
function mostRepeated(actions: readonly string[]): [string, number] {
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0] ?? ["", 0];
}

function webshop(episode: ParsedTrajectory): string {
  const acts = episode.steps.map((s) => s.action.trim());
  const lower = acts.map((a) => a.toLowerCase());
  const queries = acts.flatMap((a) => /^search\[(.*)\]$/i.exec(a)?.[1] ?? []).filter((q) => q.trim() !== "");
  const bought = lower.includes("click[buy now]");
  const nav = /^click\[(buy now|back to search|next >|< prev|description|features|reviews|attributes|search)\]$/;
  const options = acts.filter((a, i) => /^click\[/i.test(a) && !nav.test(lower[i]!) && !/^click\[(?=[a-z]*\d)[a-z0-9]{10}\]$/i.test(a)).map((a) => a.slice(6, -1));
  if (episode.outcome === "success") {
    const q = queries[0] !== undefined ? ` (a query like '${queries[0]}')` : "";
    const opts = options.length > 0 ? `, select every required option (${[...new Set(options)].slice(0, 3).join(", ")})` : "";
    return `Search with the key attributes of the request${q}, open the result that matches them all${opts}, then click buy now.`;
  }
  if (mostlyInvalid(episode)) return "Do not answer outside the format: reason inside <think> </think> and give exactly one available action inside <action> </action>, such as search[...] or click[...].";
  const [query, times] = mostRepeated(queries);
  if (times >= 2) return `Do not repeat the same search ('${query}'); rewrite the query around the request's product type and key attributes.`;
  if (bought) return "Do not click buy now before checking every attribute of the request (type, size, color, price limit) on the item page and selecting each required option.";
  return "Do not browse until the steps run out: once a result matches the request, open it, select the required options and click buy now.";
}

function searchQa(episode: ParsedTrajectory): string {
  const acts = episode.steps.map((s) => s.action.trim());
  const searches = acts.flatMap((a) => /^<search>([\s\S]*)<\/search>$/i.exec(a)?.[1]?.trim() ?? []);
  const answered = acts.some((a) => /^<answer>/i.test(a));
  if (episode.outcome === "success") {
    // The queries of a won episode, in order and once each, are its hindsight: on a two-hop
    // question the second names the bridge entity, which the question itself does not.
    const used = [...new Set(searches.filter((q) => q !== ""))].slice(0, 3).map((q) => `'${q.replace(/'/g, "")}'`);
    return used.length > 0
      ? `Search for the exact entity the question names (queries that worked: ${used.join(", then ")}), read the returned documents, and answer with the short span that states the asked relation.`
      : "When the question is simple and certain, answer directly with a short span inside <answer> </answer>.";
  }
  if (mostlyInvalid(episode)) return "Do not mix tags: each turn give exactly one <search> query </search> or one <answer> short answer </answer>, never both.";
  const [query, times] = mostRepeated(searches);
  if (times >= 2) return `Do not repeat the query '${query}'; rephrase it with the other entity or relation in the question.`;
  if (!answered) return "Do not spend every turn searching: once the documents name the answer, give it inside <answer> </answer>.";
  if (searches.length === 0) return "Do not answer from memory: search for the entity first and check the documents before answering.";
  return "Do not answer before verifying that the documents state the exact entity and relation the question asks about.";
}

function sokoban(episode: ParsedTrajectory): string {
  const moves = episode.steps.map((s) => s.action.trim().toLowerCase());
  if (episode.outcome === "success") {
    return "Walk to the side of the box opposite the target, push it in straight lines, and walk around it whenever it must change direction.";
  }
  if (mostlyInvalid(episode)) return "Do not answer outside the format: give exactly one of up, down, left or right inside <action> </action>.";
  const opposite: Record<string, string> = { up: "down", down: "up", left: "right", right: "left" };
  const backAndForth = moves.filter((m, i) => i > 0 && opposite[m] === moves[i - 1]).length;
  if (backAndForth >= Math.max(2, moves.length / 3)) return "Do not step back and forth; plan a path that brings you behind the box before pushing.";
  return "Do not push a box against a wall or into a corner it cannot leave; before each push check that the box can still reach a target.";
}

function ezpoints(episode: ParsedTrajectory): string {
  const tokens = episode.steps.filter((s) => s.valid).map((s) => s.action.trim());
  const formula = tokens.filter((t) => t !== "=").join("");
  if (episode.outcome === "success") {
    return `Combine the two card numbers with + or * so the formula equals 12 (here ${formula}), append one token per step, then press =.`;
  }
  if (mostlyInvalid(episode)) return "Do not write several tokens at once: the action must be exactly one number, + or *, or = to finish.";
  if (tokens.includes("=")) return "Do not press = before the formula uses both card numbers once and equals 12; check both + and * first.";
  return "Do not run out of steps: append one card number, one operator and the other number, then press =.";
}

function generic(episode: ParsedTrajectory): string {
  const acts = episode.steps.map((s) => s.action.trim()).filter((a) => a !== "");
  if (episode.outcome === "success") {
    const shown = acts.slice(0, 6).join("', then '");
    return acts.length > 0 ? `Follow the sequence that reached the goal: '${shown}'${acts.length > 6 ? ", and so on" : ""}.` : "Act directly toward the goal; this task was solved without detours.";
  }
  if (mostlyInvalid(episode)) return "Do not answer outside the required format: give exactly one valid action per step.";
  const [action, times] = mostRepeated(acts);
  if (times >= 3) return `Do not repeat '${action}' when the observation does not change; try a different action.`;
  return "Do not act at random: read the task again, decide on the next subgoal, and check that each action moves toward it.";
}

/** Shortens a skill to `max` characters at a clause or sentence boundary. */
function fit(skill: string, max: number): string {
  if (skill.length <= max) return skill;
  const cut = skill.slice(0, max - 1);
  const at = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf(", "));
  return `${(at > max / 3 ? cut.slice(0, at) : cut.slice(0, cut.lastIndexOf(" "))).trimEnd()}.`;
}

/**
 * The hindsight skill of one serialized trajectory (pure and deterministic). An unreadable text
 * gets a generic rule keyed on the outcome line, so the function is total.
 */
export function hindsightSkill(serialized: string, limits: SkillLimits = defaultSkillLimits): string {
  const read = readSerializedTrajectory(serialized);
  if (!read.ok) {
    return /Outcome: success\s*$/.test(serialized)
      ? "Repeat the approach that reached the goal, acting directly toward each subgoal."
      : "Do not repeat actions that change nothing; check that each step moves toward the task's goal.";
  }
  const episode = read.value;
  // An environment without rules of its own gets the generic rule.
  const byKind: Partial<Record<EpisodeKind, (e: ParsedTrajectory) => string>> = { alfworld: analyzeAlfworld, webshop, search: searchQa, sokoban, ezpoints };
  return fit((byKind[episodeKind(episode)] ?? generic)(episode), limits.maxChars);
}

/** The rule-based analyzer as an `Analyzer`; each answer is the JSON label a model would be trained to write. */
export function ruleAnalyzer(options: { readonly limits?: SkillLimits } = {}): Analyzer {
  const limits = options.limits ?? defaultSkillLimits;
  return {
    name: "rule",
    async analyze(trajectories): Promise<Analysis[]> {
      return trajectories.map((t) => {
        const answer = skillTarget(hindsightSkill(t.text, limits));
        const parsed = parseSkill(answer, limits);
        return parsed.ok
          ? { ok: true, skill: parsed.value.skill, attempts: 1, answers: [answer] }
          : { ok: false, issues: [parsed.error], attempts: 1, answers: [answer] };
      });
    },
  };
}
