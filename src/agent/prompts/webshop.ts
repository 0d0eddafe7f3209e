/**
 * WebShop prompts (the field order of verl-agent's `agent_system/environments/prompts/`): role and
 * task lines, the step counter and the
 * last k observation/action lines, the current observation reformatted as verl-agent does
 * (the parts after the instruction, each single-quoted, joined by ` [SEP] `), and the available
 * actions one per line as `'<action>',` between a `[` line and a `]` line (**exact**). A history
 * prompt longer than 20,000 characters falls back to the no-history variant. Wording is ours.
 */
import type { Observation } from "../../envs/env.ts";
import { lastRecords, observationActionLines } from "../history.ts";
import { projections } from "../parse-action.ts";
import { stepCounter, tagInstruction, type MaskEntry, type PromptRenderer, type PromptState } from "./renderer.ts";

const ROLE = "You are an autonomous shopping agent browsing the WebShop website to buy what a customer asks for.";

/** Above this many characters the history prompt is replaced by the no-history one (verl-agent). */
export const WEBSHOP_HISTORY_CHAR_LIMIT = 20_000;

/**
 * verl-agent's observation reformatting: keep the ` [SEP] ` parts after the part equal to
 * the task, each wrapped in single quotes; the raw text when the task is not found.
 */
export function reformatWebshopObservation(text: string, task: string): string {
  const parts = text.split(" [SEP] ");
  const at = parts.indexOf(task);
  if (at === -1) return text;
  return parts.slice(at + 1).map((p) => `'${p}'`).join(" [SEP] ");
}

/**
 * The action strings a page offers. Environments may list raw clickables (`search`, `buy now`)
 * or ready actions (`click[buy now]`); both render as actions, the search box first.
 */
export function webshopActions(observation: Observation): string[] {
  const search: string[] = [];
  const clicks: string[] = [];
  for (const a of observation.admissible ?? []) {
    if (a === "search" || a.startsWith("search[")) search.push("search[<your query>]");
    else clicks.push(a.startsWith("click[") ? a : `click[${a}]`);
  }
  return [...search.slice(0, 1), ...clicks];
}

function actionBlock(observation: Observation): string {
  return ["Your available actions are:", "[", ...webshopActions(observation).map((a) => `'${a}',`), "]"].join("\n");
}

function noHistory(state: PromptState): string {
  return [
    ROLE,
    `Your task is to: ${state.task}`,
    `Your current observation is: ${reformatWebshopObservation(state.observation.text, state.task)}`,
    actionBlock(state.observation),
    "",
    tagInstruction("available action"),
  ].join("\n");
}

/** The WebShop renderer. */
export const webshopRenderer: PromptRenderer = {
  envId: "webshop",
  actionTags: true,
  window(state: PromptState, k: number): string {
    const records = lastRecords(state.history, k);
    if (state.step === 0 || records.length === 0) return noHistory(state);
    const text = [
      ROLE,
      `Your task is to: ${state.task}`,
      stepCounter(state.step, records.length, "observations and the actions you took after each"),
      observationActionLines(records),
      `You are now at step ${state.step + 1} and your current observation is: ${reformatWebshopObservation(state.observation.text, state.task)}`,
      actionBlock(state.observation),
      "",
      tagInstruction("available action"),
    ].join("\n");
    return text.length > WEBSHOP_HISTORY_CHAR_LIMIT ? noHistory(state) : text;
  },
  first: noHistory,
  next(state: PromptState): string {
    return [
      `You are now at step ${state.step + 1} and your current observation is: ${reformatWebshopObservation(state.observation.text, state.task)}`,
      actionBlock(state.observation),
    ].join("\n");
  },
  viewObservation: (observation) => reformatWebshopObservation(observation.text, observation.task),
  viewAction: (action) => action,
  project: projections.webshop,
  maskEntries(observation): MaskEntry[] | undefined {
    if (observation.admissible === undefined) return undefined;
    return webshopActions(observation).map((a) => (a === "search[<your query>]" ? { text: "search[", open: true } : { text: a, open: false }));
  },
};
