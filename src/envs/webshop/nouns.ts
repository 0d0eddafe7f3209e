/**
 * A dictionary-and-suffix noun tagger standing in for spaCy in WebShop's type reward, which
 * compares the nouns (NOUN/PROPN, lower-cased) of the bought product's name with the goal
 * product's name. Deliberately not spaCy: no model, no context. It marks as non-nouns the
 * closed word classes (determiners, pronouns, prepositions, conjunctions, auxiliaries),
 * numbers, a list of frequent shop adjectives, and words with adjective/adverb/participle
 * endings; every other word is a noun. Product titles are mostly noun strings, so this agrees
 * with spaCy on the tokens that decide `title_score` in the common cases; the deviation is
 * recorded in the module index.
 */

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

/** Whether the tagger calls a lower-cased token a noun. */
export function isNoun(token: string): boolean {
  if (!/\p{L}/u.test(token)) return false;
  if (FUNCTION_WORDS.has(token) || ADJECTIVES.has(token)) return false;
  if (token.length === 1) return false;
  if (token.length > 4 && NON_NOUN_SUFFIX.test(token)) return false;
  return true;
}

/**
 * The lower-cased noun tokens of a product name, repeats kept: the type reward divides by the
 * length of this list (upstream counts spaCy tokens, not distinct words).
 */
export function nouns(name: string): string[] {
  return nameTokens(name).filter(isNoun);
}
