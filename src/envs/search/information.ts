/**
 * The `<information>` text a search returns (**exact**), in both styles:
 * verl-agent (what SEED trains with; `Doc i: contents` per passage inside Python-`json.dumps`ed
 * `{"result": ...}`) and Search-R1 (`Doc i(Title: "t") text` per passage). Both are returned
 * trimmed, as the vectorised wrappers keep them.
 */
import { pyJsonDumps } from "./py-json.ts";
import type { RetrievalHit } from "./retriever.ts";

/** Which benchmark's information text to write. */
export type InformationStyle = "verl-agent" | "search-r1";

/** Search-R1's answer to a turn with neither a search nor an answer (**exact**). */
export const SEARCH_R1_INVALID =
  "\nMy previous action is invalid. If I want to search, I should put the query between <search> and </search>. If I want to give the final answer, I should put the answer between <answer> and </answer>. Let me try again.\n";

/** verl-agent: each result list as `Doc i: contents.trim()\n` lines, lists joined by `\n---\n`. */
export function verlAgentResultText(results: readonly (readonly RetrievalHit[])[]): string {
  return results.map((hits) => hits.map((h, i) => `Doc ${i + 1}: ${h.document.contents.trim()}\n`).join("")).join("\n---\n");
}

/** Search-R1: `Doc i(Title: <first line>) <remaining lines>\n` per passage. */
export function searchR1ResultText(hits: readonly RetrievalHit[]): string {
  return hits.map((h, i) => {
    const [title, ...rest] = h.document.contents.split("\n");
    return `Doc ${i + 1}(Title: ${title}) ${rest.join("\n")}\n`;
  }).join("");
}

/**
 * The observation after a search: `<information>…</information>` in the chosen style.
 * @example
 * informationText([hits], "verl-agent") // '<information>{"result": "Doc 1: \"Evan Morris\"\nEvan ..."}</information>'
 */
export function informationText(results: readonly (readonly RetrievalHit[])[], style: InformationStyle = "verl-agent"): string {
  if (style === "search-r1") return `<information>${searchR1ResultText(results.flat()).trim()}</information>`;
  // No hits give `{"result": ""}`, as upstream's tool does.
  const body = pyJsonDumps({ result: verlAgentResultText(results) });
  return `<information>${body}</information>`;
}
