/**
 * The Porter (1980) suffix-stripping stemmer, as in Martin Porter's reference C implementation
 * (which Lucene's `PorterStemFilter`, and so Pyserini's default English analyzer, follows): the
 * published five steps plus the two departures of that implementation (`bli` -> `ble` and
 * `logi` -> `log` in step 2). Input is one lower-case word; non-ASCII-letter words are returned
 * unchanged. This is not Porter2 ("Snowball English"), whose output differs on many words.
 */

function isConsonant(w: string, i: number): boolean {
  switch (w[i]) {
    case "a": case "e": case "i": case "o": case "u":
      return false;
    case "y":
      // y is a consonant at the start or after a vowel, a vowel after a consonant.
      return i === 0 ? true : !isConsonant(w, i - 1);
    default:
      return true;
  }
}

/** m in [C](VC)^m[V] of the first `len` letters. */
function measure(w: string, len: number): number {
  let m = 0;
  let i = 0;
  while (i < len && isConsonant(w, i)) i++;
  while (i < len) {
    while (i < len && !isConsonant(w, i)) i++;
    if (i >= len) break;
    while (i < len && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string, len: number): boolean {
  for (let i = 0; i < len; i++) if (!isConsonant(w, i)) return true;
  return false;
}

/** The first `len` letters end in a double consonant. */
function endsDoubleConsonant(w: string, len: number): boolean {
  return len >= 2 && w[len - 1] === w[len - 2] && isConsonant(w, len - 1);
}

/** *o: the first `len` letters end consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, len: number): boolean {
  if (len < 3) return false;
  if (!isConsonant(w, len - 1) || isConsonant(w, len - 2) || !isConsonant(w, len - 3)) return false;
  const c = w[len - 1];
  return c !== "w" && c !== "x" && c !== "y";
}

type Rule = readonly [suffix: string, replacement: string];

/** Apply the rule with the longest matching suffix if its stem has m > `minMeasure`. */
function replaceLongest(w: string, rules: readonly Rule[], minMeasure: number): string {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (w.endsWith(rule[0]) && (best === undefined || rule[0].length > best[0].length)) best = rule;
  }
  if (best === undefined) return w;
  const stemLen = w.length - best[0].length;
  return measure(w, stemLen) > minMeasure ? w.slice(0, stemLen) + best[1] : w;
}

const STEP2: readonly Rule[] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"],
  ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"],
  ["ization", "ize"], ["ation", "ate"], ["ator", "ate"], ["alism", "al"], ["iveness", "ive"],
  ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"],
  ["logi", "log"],
];

const STEP3: readonly Rule[] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];

const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
  "ism", "ate", "iti", "ous", "ive", "ize",
] as const;

function step1ab(w: string): string {
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (!w.endsWith("ss") && w.endsWith("s")) w = w.slice(0, -1);

  if (w.endsWith("eed")) {
    return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  }
  let stemLen = -1;
  if (w.endsWith("ed") && hasVowel(w, w.length - 2)) stemLen = w.length - 2;
  else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) stemLen = w.length - 3;
  if (stemLen < 0) return w;
  w = w.slice(0, stemLen);
  if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) return w + "e";
  if (endsDoubleConsonant(w, w.length)) {
    const c = w[w.length - 1];
    return c === "l" || c === "s" || c === "z" ? w : w.slice(0, -1);
  }
  if (measure(w, w.length) === 1 && endsCvc(w, w.length)) return w + "e";
  return w;
}

function step1c(w: string): string {
  return w.endsWith("y") && hasVowel(w, w.length - 1) ? w.slice(0, -1) + "i" : w;
}

function step4(w: string): string {
  let best = "";
  for (const s of STEP4) if (w.endsWith(s) && s.length > best.length) best = s;
  if (best === "") return w;
  const stemLen = w.length - best.length;
  if (measure(w, stemLen) <= 1) return w;
  if (best === "ion" && w[stemLen - 1] !== "s" && w[stemLen - 1] !== "t") return w;
  return w.slice(0, stemLen);
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith("ll") && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

/**
 * Stem one lower-case English word with the Porter algorithm.
 * @example porterStem("relational") // "relat"
 */
export function porterStem(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  return porterStemAny(word);
}

/**
 * Lucene's `PorterStemFilter` on any token: words of up to two UTF-16 units are kept, and every
 * character other than a, e, i, o, u (and y after a consonant) counts as a consonant, so digits
 * and non-ASCII letters take part (`1990s` → `1990`, `naïve` → `naïv`).
 */
export function porterStemAny(word: string): string {
  if (word.length <= 2) return word;
  let w = step1ab(word);
  w = step1c(w);
  w = replaceLongest(w, STEP2, 0);
  w = replaceLongest(w, STEP3, 0);
  w = step4(w);
  return step5(w);
}
