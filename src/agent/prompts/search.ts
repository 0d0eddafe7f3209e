/**
 * Search-QA prompts (the field order of verl-agent's `agent_system/environments/prompts/`): role
 * and question, then (after the first step)
 * the step counter and the last k records `Step n:<search>q</search> <information>...</information>`
 * (**exact** record format), then the closing instruction: reason in `<think>`, then exactly one
 * `<search>` query or one short `<answer>`. There is no admissible list and no action mask.
 * Wording is ours.
 */
import { lastRecords, searchHistoryBlock } from "../history.ts";
import { projections } from "../parse-action.ts";
import { stepCounter, type PromptRenderer, type PromptState } from "./renderer.ts";

const ROLE = "You are a careful research assistant. Answer the question step by step, looking facts up with a search engine whenever you are not sure.";

const INSTRUCTION =
  "Now it's your turn to respond.\n" +
  "First think inside <think> </think> tags. If you need more knowledge, write one search query as <search> query </search>; " +
  "the results will come back between <information> and </information>. Once you know the answer, write it as <answer> ... </answer> " +
  "with only the short answer and no explanation, for example <answer> Paris </answer>. " +
  "Give exactly one <search> block or one <answer> block.";

/** The Search-QA renderer. */
export const searchRenderer: PromptRenderer = {
  envId: "search",
  actionTags: false,
  window(state: PromptState, k: number): string {
    const records = lastRecords(state.history, k);
    if (state.step === 0 || records.length === 0) return this.first(state);
    return [
      ROLE,
      `Your question: ${state.task}`,
      stepCounter(state.step, records.length, "search queries and the information each returned"),
      searchHistoryBlock(records),
      INSTRUCTION,
    ].join("\n");
  },
  first(state: PromptState): string {
    return [ROLE, `Your question: ${state.task}`, "", INSTRUCTION].join("\n");
  },
  next: (state) => state.observation.text,
  viewObservation: (observation) => observation.text,
  viewAction: (action) => action,
  project: projections.search,
  maskEntries: () => undefined,
};
