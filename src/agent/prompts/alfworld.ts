/**
 * ALFWorld prompts (the field order of verl-agent's `agent_system/environments/prompts/`): the
 * first step shows the full reset text (banner and
 * task included) and the admissible commands; later steps add the task line, the step counter,
 * the last k `[Observation n: ..., Action n: ...]` lines and the current observation. The
 * admissible list is rendered as verl-agent renders it (**exact**): every command but `help`,
 * single-quoted, joined by a newline and a space, inside brackets. Wording is ours.
 */
import type { Observation } from "../../envs/env.ts";
import { lastRecords, observationActionLines } from "../history.ts";
import { projections } from "../parse-action.ts";
import { stepCounter, tagInstruction, type MaskEntry, type PromptRenderer, type PromptState } from "./renderer.ts";

const ROLE = "You are an expert household agent acting in the ALFRED embodied environment through text commands.";

/** The commands a prompt offers: the admissible list without `help`. */
function offered(observation: Observation): string[] {
  return (observation.admissible ?? []).filter((a) => a !== "help");
}

/** `['a'\n 'b']` (verl-agent's rendering, exact). */
export function alfworldActionList(observation: Observation): string {
  return `[${offered(observation).map((a) => `'${a}'`).join("\n ")}]`;
}

function admissibleLine(observation: Observation): string {
  return `Your admissible actions in the current situation are: ${alfworldActionList(observation)}.`;
}

/** The ALFWorld renderer. */
export const alfworldRenderer: PromptRenderer = {
  envId: "alfworld",
  actionTags: true,
  window(state: PromptState, k: number): string {
    const records = lastRecords(state.history, k);
    if (state.step === 0 || records.length === 0) return this.first(state);
    return [
      `${ROLE} Your task is to: ${state.task}`,
      stepCounter(state.step, records.length, "observations and the actions you took after each"),
      observationActionLines(records),
      `You are now at step ${state.step + 1} and your current observation is: ${state.observation.text}`,
      admissibleLine(state.observation),
      "",
      tagInstruction("admissible action"),
    ].join("\n");
  },
  first(state: PromptState): string {
    return [ROLE, `Your current observation is: ${state.observation.text}`, admissibleLine(state.observation), "", tagInstruction("admissible action")].join("\n");
  },
  next(state: PromptState): string {
    return [`You are now at step ${state.step + 1} and your current observation is: ${state.observation.text}`, admissibleLine(state.observation)].join("\n");
  },
  viewObservation: (observation) => observation.text,
  viewAction: (action) => action,
  project: projections.alfworld,
  maskEntries: (observation): MaskEntry[] | undefined =>
    observation.admissible === undefined ? undefined : offered(observation).map((text) => ({ text, open: false })),
};
