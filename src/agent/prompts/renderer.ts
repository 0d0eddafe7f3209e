/**
 * The interface every environment's prompt renderer implements, and the wording shared by the
 * renderers of environments that answer in `<think>`/`<action>` tags. Renderers are pure text
 * functions: no tokens, no environment calls.
 *
 * Every prompt carries one of the anchors the skill function H looks for (a line containing
 * `Your task is to:`, `Your question:` or `Your goal is to`, and the phrase `Now it's your turn`),
 * so a skill can be inserted after the task line (the patterns of the authors' `seed/prompting.py`).
 */
import type { Observation } from "../../envs/env.ts";
import type { HistoryRecord } from "../history.ts";
import type { ProjectedAction } from "../parse-action.ts";

/** What a renderer sees when it writes the prompt of the next step. */
export type PromptState = {
  /** Task text (`Observation.task` of the reset). */
  readonly task: string;
  /** Steps taken so far (0 before the first action). */
  readonly step: number;
  /** The current observation. */
  readonly observation: Observation;
  /** Every past step, oldest first (renderers pick their window from it). */
  readonly history: readonly HistoryRecord[];
};

/**
 * One entry of an action mask: a literal action, or (`open: true`) a prefix after which any text
 * may follow (WebShop's `search[` with a free-form query).
 */
export type MaskEntry = { readonly text: string; readonly open: boolean };

/** Prompt rendering, history views and action projection for one environment. */
export interface PromptRenderer {
  /** Environment id this renderer serves. */
  readonly envId: string;
  /** Whether responses name the action inside `<action>` tags (a precondition of masking). */
  readonly actionTags: boolean;
  /** The window-mode prompt showing the last `k` history records (k = 0: no-history variant). */
  window(state: PromptState, k: number): string;
  /** The first user message of the full mode (the no-history prompt). */
  first(state: PromptState): string;
  /** The user turn the full mode appends after each step (the new observation). */
  next(state: PromptState): string;
  /** The observation as history and prompts show it (WebShop reformats it). */
  viewObservation(observation: Observation): string;
  /** The action as history shows it (Sokoban capitalises it). */
  viewAction(action: string): string;
  /** Extract the action and the validity flag from a response. */
  project(response: string): ProjectedAction;
  /** Actions an action mask admits at this observation, or undefined where none applies. */
  maskEntries(observation: Observation): readonly MaskEntry[] | undefined;
}

/** Closing instruction of the tag-protocol environments (our wording of verl-agent's). */
export function tagInstruction(what: string): string {
  return (
    "Now it's your turn to act.\n" +
    "First think step by step about the situation and write that reasoning inside <think> </think> tags. " +
    `Then give exactly one ${what} for this step inside <action> </action> tags.`
  );
}

/** The step counter sentence of the history variants. */
export function stepCounter(step: number, shown: number, what: string): string {
  return `You have taken ${step} step(s) so far. Here are your last ${shown} ${what}:`;
}
