/**
 * Sokoban prompts for the text port (the field order of verl-agent's
 * `agent_system/environments/prompts/`): role, the legend of the seven
 * grid symbols, the goal, the rules (push only, walls block, corners are traps), the current
 * grid, the four moves and the closing instruction; history variants add the step counter and
 * the last k `[Observation n: '<grid>', Action n: 'Up']` lines. Wording is ours.
 */
import { lastRecords, observationActionLines } from "../history.ts";
import { projections } from "../parse-action.ts";
import { stepCounter, tagInstruction, type MaskEntry, type PromptRenderer, type PromptState } from "./renderer.ts";

const MOVES = ["up", "down", "left", "right"] as const;

const INTRO = [
  "You are an expert Sokoban player.",
  "The grid uses these symbols: # wall, _ floor, O target, √ box on a target, X box, P you (the player), S you standing on a target.",
  "Your goal is to push every box onto a target.",
  "Rules: you can push a box but never pull it; walls block you and block boxes; a box can only be pushed if the cell behind it is free; a box pushed into a corner can never be moved again, so avoid that.",
].join("\n");

const MOVES_LINE = `Your available actions are: ${MOVES.join(", ")}.`;

/** The Sokoban renderer. */
export const sokobanRenderer: PromptRenderer = {
  envId: "sokoban",
  actionTags: true,
  window(state: PromptState, k: number): string {
    const records = lastRecords(state.history, k);
    if (state.step === 0 || records.length === 0) return this.first(state);
    return [
      INTRO,
      stepCounter(state.step, records.length, "grids and the moves you made on each"),
      observationActionLines(records),
      `You are now at step ${state.step + 1} and the current grid is:`,
      state.observation.text,
      MOVES_LINE,
      "",
      tagInstruction("action"),
    ].join("\n");
  },
  first(state: PromptState): string {
    return [INTRO, "The current grid is:", state.observation.text, MOVES_LINE, "", tagInstruction("action")].join("\n");
  },
  next(state: PromptState): string {
    return [`You are now at step ${state.step + 1} and the current grid is:`, state.observation.text].join("\n");
  },
  viewObservation: (observation) => observation.text,
  viewAction: (action) => action.charAt(0).toUpperCase() + action.slice(1),
  project: projections.sokoban,
  maskEntries: (): MaskEntry[] => MOVES.map((text) => ({ text, open: false })),
};
