/**
 * EZPoints prompts for the text port (the field order of verl-agent's
 * `agent_system/environments/prompts/`): the cards (the environment's
 * observation text), the goal, the card and formula rules, the reward rule, and the required
 * JSON answer with `thoughts` then `action`. No history (k = 0 in the launchers), no tags, so no
 * action mask. Wording is ours.
 */
import { projections } from "../parse-action.ts";
import type { PromptRenderer, PromptState } from "./renderer.ts";

const RULES = [
  "Your goal is to build a formula whose value is exactly 12 from the numbers of the two cards.",
  "Card values: 2 to 10 count their face value, J, Q and K count 10, and A counts 1. Each card's number may be used at most once.",
  "The formula is built one token per step: each step appends one number from the cards (1 to 10), '+', '*' or '='. Appending '=' evaluates the formula and ends the game.",
  "You receive a reward of 10 if the formula equals 12 with both numbers used, and 0 otherwise.",
].join("\n");

const ANSWER =
  "Now it's your turn to choose the next token.\n" +
  'Answer with one JSON object with the fields "thoughts" (your reasoning) and then "action" (the single token to append), ' +
  'for example {"thoughts": "...", "action": "+"}.';

/** The EZPoints renderer. */
export const ezpointsRenderer: PromptRenderer = {
  envId: "ezpoints",
  actionTags: false,
  window(state: PromptState): string {
    return this.first(state);
  },
  first(state: PromptState): string {
    return ["You are playing EZPoints, a game with two cards.", state.observation.text, RULES, "", ANSWER].join("\n");
  },
  next: (state) => state.observation.text,
  viewObservation: (observation) => observation.text,
  viewAction: (action) => action,
  project: projections.ezpoints,
  maskEntries: () => undefined,
};
