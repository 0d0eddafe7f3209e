/**
 * Exact-match scoring of Search-R1 (`PeterGriffinJin/Search-R1:verl/utils/reward_score/qa_em.py`):
 * lower-case, delete ASCII punctuation, replace the articles a/an/the with a space, collapse
 * whitespace; a prediction scores 1 iff it equals some normalised gold answer. Word boundaries
 * and whitespace follow Python's Unicode rules, not JavaScript's ASCII `\b`.
 */

/** Python's `string.punctuation`. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
// Python's \w: letters, digits (all numeric categories) and the underscore.
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
// Python's str.split() whitespace (str.isspace), which differs from JS \s in both directions.
const PY_WHITESPACE = /[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/**
 * Search-R1's answer normalisation.
 * @example normalizeAnswer("The Beatles!") // "beatles"
 */
export function normalizeAnswer(s: string): string {
  let out = "";
  for (const ch of s.toLowerCase()) if (!PUNCTUATION.has(ch)) out += ch;
  out = out.replace(ARTICLES, " ");
  return out.split(PY_WHITESPACE).filter((w) => w !== "").join(" ");
}

/** 1 iff the normalised prediction equals a normalised gold answer, else 0. */
export function exactMatch(prediction: string, golds: string | readonly string[]): 0 | 1 {
  const p = normalizeAnswer(prediction);
  const list = typeof golds === "string" ? [golds] : golds;
  return list.some((g) => normalizeAnswer(g) === p) ? 1 : 0;
}

/** 1 iff a normalised gold answer occurs inside the normalised prediction (`subem`; not the reported metric). */
export function substringMatch(prediction: string, golds: string | readonly string[]): 0 | 1 {
  const p = normalizeAnswer(prediction);
  const list = typeof golds === "string" ? [golds] : golds;
  return list.some((g) => p.includes(normalizeAnswer(g))) ? 1 : 0;
}

/** The text of the last `<answer>…</answer>` block, trimmed, or undefined if there is none. */
export function extractAnswer(text: string): string | undefined {
  let last: string | undefined;
  for (const m of text.matchAll(/<answer>([\s\S]*?)<\/answer>/g)) last = m[1];
  return last?.trim();
}
