/**
 * A compact ALFWorld prompt for small models trained from scratch (the embedded pipeline's
 * default, `rollout.prompt = "compact"`). It keeps what an agent needs to act and drops what a
 * from-scratch model pays for on every step without learning from it: no role sentence, no
 * banner, no admissible list, no step counter, no instruction paragraph.
 *
 * - first turn: the room sentence, the task line (`Your task is to: ...`, the anchor H inserts a
 *   skill after) and the short turn anchor `Now it's your turn to act.`
 * - each later turn (full history): the new observation only.
 * - window mode: the task line, the last k steps as `> action` / observation pairs, the current
 *   observation and the turn anchor.
 *
 * Responses use the same `<think>`/`<action>` tags as the standard renderer, so projection,
 * action masking and the analyzer are unchanged. Measured on generated games: about 2.8× fewer
 * tokens per episode than the standard renderer (497 vs ≈ 1,390; docs/TRAINING.md §6, Stage 0).
 * Not verl-agent's wording: LLM runs keep the standard renderer (`rollout.prompt = "verl"`).
 */
import type { Observation } from "../../envs/env.ts";
import { lastRecords } from "../history.ts";
import { projections } from "../parse-action.ts";
import type { MaskEntry, PromptRenderer, PromptState } from "./renderer.ts";

/** The turn anchor of the compact prompt (H's fallback anchor, so every prompt carries it). */
export const COMPACT_TURN_LINE = "Now it's your turn to act.";

/**
 * The room sentence of an ALFWorld reset text: every line but the banner and the task line,
 * joined by a space. Any other observation comes back trimmed.
 * @example compactRoom("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. ... a desk 1.\n\nYour task is to: put ...")
 * // "You are in the middle of a room. ... a desk 1."
 */
export function compactRoom(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("-=") && !l.startsWith("Your task is to:"))
    .join(" ");
}

function offered(observation: Observation): string[] {
  return (observation.admissible ?? []).filter((a) => a !== "help");
}

/** The compact ALFWorld renderer. */
export const alfworldCompactRenderer: PromptRenderer = {
  envId: "alfworld",
  actionTags: true,
  window(state: PromptState, k: number): string {
    const records = lastRecords(state.history, k);
    if (state.step === 0 || records.length === 0) return this.first(state);
    return [
      `Your task is to: ${state.task}`,
      ...records.flatMap((r) => [`> ${r.action}`, r.after]),
      COMPACT_TURN_LINE,
    ].join("\n");
  },
  first(state: PromptState): string {
    return [compactRoom(state.observation.text), `Your task is to: ${state.task}`, COMPACT_TURN_LINE].join("\n");
  },
  next(state: PromptState): string {
    return state.observation.text.trim();
  },
  viewObservation: (observation) => observation.text.trim(),
  viewAction: (action) => action,
  project: projections.alfworld,
  maskEntries: (observation): MaskEntry[] | undefined =>
    observation.admissible === undefined ? undefined : offered(observation).map((text) => ({ text, open: false })),
};
