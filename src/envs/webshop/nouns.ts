/**
 * The nouns WebShop's type reward compares (upstream `goal.py`: tokens spaCy's en_core_web_sm tags
 * NOUN/PROPN/PNOUN, lower-cased, repeats kept) without running spaCy:
 *   1. a product title of the shipped catalogue gets spaCy's own noun list for it, distilled into
 *      `spacy-nouns.json` by `scripts/interop/spacy-title-nouns.py` (en_core_web_sm 3.6.0; the
 *      3.3 model upstream pinned is not obtainable here, and model versions disagree: 3.6 and 3.8
 *      give identical lists for only 48% of these titles);
 *   2. another title is split into words, each tagged by the same file's lexicon (spaCy's majority
 *      tag for the word over the catalogue's titles) when it has the word,
 *   3. else by a dictionary-and-suffix rule: closed word classes, numbers, frequent shop adjectives
 *      and adjective/adverb/participle endings are not nouns, every other word is.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

type NounData = { readonly titles: Readonly<Record<string, string>>; readonly lexicon: { readonly nouns: string; readonly other: string } };

let data: { titles: Map<string, readonly string[]>; lexicon: Map<string, boolean> } | undefined;

function nounData(): NonNullable<typeof data> {
  if (data === undefined) {
    const raw = JSON.parse(readFileSync(resolve(import.meta.dirname, "spacy-nouns.json"), "utf8")) as NounData;
    const lexicon = new Map<string, boolean>();
    for (const w of raw.lexicon.nouns.split(" ")) lexicon.set(w, true);
    for (const w of raw.lexicon.other.split(" ")) lexicon.set(w, false);
    const titles = new Map(Object.entries(raw.titles).map(([t, n]) => [t, n === "" ? [] : n.split(" ")]));
    data = { titles, lexicon };
  }
  return data;
}

const FUNCTION_WORDS = new Set(
  ("a an the this that these those some any each every no all both either neither another such what which whose " +
    "i me my mine you your yours he him his she her hers it its we us our ours they them their theirs " +
    "in on at by for with without within of to from into onto over under up down out off about above below across " +
    "after before behind beside besides between beyond during except inside near outside since through throughout " +
    "toward towards upon via per than as like plus " +
    "and or but nor so yet if then because while although though whether " +
    "is are was were be been being am do does did done have has had having will would shall should can could may " +
    "might must not very too also just only more most less least much many few").split(" "),
);

const ADJECTIVES = new Set(
  ("new old large small big little tiny mini long short tall high low wide narrow thick thin heavy light soft hard " +
    "extra super ultra best better good great premium professional original natural organic pure fresh free " +
    "comfortable portable durable adjustable washable breathable waterproof wireless cordless compact " +
    "lightweight heavyweight universal multi multipurpose casual formal classic modern vintage cute elegant " +
    "slim loose regular fit sleek smart quick easy simple full half double single triple " +
    "black white red blue green yellow pink purple orange brown grey gray beige navy silver gold golden " +
    "women womens men mens kids girls boys unisex adult baby " +
    "hot cold warm cool dry wet clean clear dark bright deep rich sweet sour salty spicy " +
    "male female real true main other same different several various").split(" "),
);

// Endings of adjectives, adverbs and participles (spaCy tags these ADJ/ADV/VERB in titles).
const NON_NOUN_SUFFIX = /(?:ly|ous|ful|able|ible|ive|less|ish|ic|al|ed|ing)$/;

/** Lower-cased word tokens of a product name (letters and digits; `men's` → `men`). */
export function nameTokens(name: string): string[] {
  const out: string[] = [];
  for (const m of name.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu)) out.push(m[0].replace(/'s$/, ""));
  return out;
}

/** Whether the dictionary-and-suffix rule (step 3) calls a lower-cased token a noun. */
export function isNounByRule(token: string): boolean {
  if (!/\p{L}/u.test(token)) return false;
  if (FUNCTION_WORDS.has(token) || ADJECTIVES.has(token)) return false;
  if (token.length === 1) return false;
  if (token.length > 4 && NON_NOUN_SUFFIX.test(token)) return false;
  return true;
}

/** Whether a lower-cased word is a noun: spaCy's majority tag when the lexicon has the word, else the rule. */
export function isNoun(token: string): boolean {
  return nounData().lexicon.get(token) ?? isNounByRule(token);
}

/**
 * The lower-cased noun tokens of a product name, repeats kept: the type reward divides by the
 * length of this list (upstream counts spaCy tokens, not distinct words).
 */
export function nouns(name: string): string[] {
  const known = nounData().titles.get(name);
  return known !== undefined ? [...known] : nameTokens(name).filter(isNoun);
}
