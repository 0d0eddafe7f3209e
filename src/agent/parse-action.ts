/**
 * Action extraction ("projection") and the validity flag, per environment, as verl-agent's
 * `env_package/<env>/projection.py` files define them. The environment never sees the
 * model's raw text, only the string returned here; an invalid response still sends a string
 * (the protocol's fallback), which the environment answers as it answers any bad action.
 *
 * Deliberate choice where versions differ: ALFWorld/WebShop send the lower-cased tail of the
 * response (30 / 20 characters) when the action tags are missing.
 */
import type { EnvId } from "./protocol.ts";

/** The action sent to the environment and the agent-layer validity flag. */
export type ProjectedAction = {
  /** String passed to `Env.step`. */
  readonly action: string;
  /** Protocol validity (tags present, a keyword found, ...). */
  readonly valid: boolean;
};

const CJK = /[\u4e00-\u9fff]/;

function hasThinkTags(response: string): boolean {
  return response.includes("<think>") && response.includes("</think>");
}

/** Text between the first `<action>` and the first `</action>` of the lower-cased response. */
function actionTagContent(lower: string): string | undefined {
  const start = lower.indexOf("<action>");
  const end = lower.indexOf("</action>");
  if (start === -1 || end === -1) return undefined;
  // Python slicing semantics: a closing tag before the opening one gives "".
  return end > start + 8 ? lower.slice(start + 8, end).trim() : "";
}

/** ALFWorld and WebShop: `<action>` content; valid iff tags, think tags and no CJK. */
export function projectTagged(response: string, fallbackChars: number): ProjectedAction {
  const lower = response.toLowerCase();
  const content = actionTagContent(lower);
  if (content === undefined) return { action: lower.slice(-fallbackChars), valid: false };
  const valid = hasThinkTags(response) && !CJK.test(response);
  return { action: content, valid };
}

const SOKOBAN_KEYWORDS = ["up", "down", "left", "right", "still"] as const;

/**
 * Sokoban: the first of up/down/left/right/still found as a substring of the `<action>` content.
 * The string sent is the keyword; `still` (action 0, a no-op) when the tags or keywords are missing.
 */
export function projectSokoban(response: string): ProjectedAction {
  const content = actionTagContent(response.toLowerCase());
  if (content === undefined) return { action: "still", valid: false };
  const keyword = SOKOBAN_KEYWORDS.find((k) => content.includes(k));
  if (keyword === undefined) return { action: "still", valid: false };
  return { action: keyword, valid: hasThinkTags(response) };
}

function countMatches(text: string, re: RegExp): number {
  return [...text.matchAll(re)].length;
}

/**
 * Search-QA, as verl-agent's `search_projection`: cut after the first `</search>`, else after the
 * first `</answer>` (a case-sensitive test, as Python's `in`); in what is left take the first
 * `<search>` block, else the first `<answer>` block (tags in any case), re-emitted trimmed in
 * lower-case tags. Valid only when a block was found and the whole response, not just the part
 * before the cut, holds exactly one action tag: `<search>` and `<answer>` together, or either
 * twice (counted in any case), make it invalid, so it pays the invalid-action penalty.
 */
export function projectSearch(response: string): ProjectedAction {
  let cut = response;
  const s = response.indexOf("</search>");
  const a = response.indexOf("</answer>");
  if (s !== -1) cut = response.slice(0, s + "</search>".length);
  else if (a !== -1) cut = response.slice(0, a + "</answer>".length);
  const search = /<search>([\s\S]*?)<\/search>/i.exec(cut);
  const answer = search ? null : /<answer>([\s\S]*?)<\/answer>/i.exec(cut);
  let action = "";
  if (search) action = `<search>${search[1]!.trim()}</search>`;
  else if (answer) action = `<answer>${answer[1]!.trim()}</answer>`;
  const searchTags = countMatches(response, /<search>/gi);
  const answerTags = countMatches(response, /<answer>/gi);
  const valid = action !== "" && !(searchTags > 0 && answerTags > 0) && searchTags <= 1 && answerTags <= 1;
  return { action, valid };
}

const EZ_TOKENS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "+", "*", "="] as const;

/**
 * EZPoints: from `"action":` on (if absent, Python's `s[-1:]` quirk keeps only the last
 * character), `10` first, then which of 1-9, +, *, = occur; exactly one distinct match is the
 * action. Anything else is invalid and sends `""` (the environment's no-op).
 */
export function projectEzpoints(response: string): ProjectedAction {
  const lower = response.toLowerCase();
  const at = lower.indexOf('"action":');
  let rest = at === -1 ? lower.slice(-1) : lower.slice(at);
  const matches: string[] = [];
  if (rest.includes("10")) {
    matches.push("10");
    rest = rest.split("10").join("");
  }
  for (const t of EZ_TOKENS) if (rest.includes(t)) matches.push(t);
  return matches.length === 1 ? { action: matches[0]!, valid: true } : { action: "", valid: false };
}

/** The projection of each environment. */
export const projections = {
  alfworld: (r: string) => projectTagged(r, 30),
  webshop: (r: string) => projectTagged(r, 20),
  search: projectSearch,
  sokoban: projectSokoban,
  ezpoints: projectEzpoints,
} as const satisfies Partial<Record<EnvId, (response: string) => ProjectedAction>>;
