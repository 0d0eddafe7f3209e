/**
 * Text analyzers for Search-QA's passage retriever: a text becomes the list of index terms.
 * (WebShop's product search uses the Lucene-exact `lucene-analyzer.ts`.) `englishAnalyzer`
 * approximates Lucene's `EnglishAnalyzer`, which Pyserini uses by default: split into
 * letter/digit runs, lower-case, drop the English possessive,
 * drop Lucene's 33 English stop words, Porter-stem. It is not Lucene's UAX#29 tokenizer: runs
 * of letters and digits stand in for its word boundaries, so `wi-fi` gives `wi`, `fi` in both,
 * while `3.5` gives `3`, `5` here and one token there.
 */
import { porterStem } from "./porter.ts";

/** Turns a text into index terms (the same function must analyze documents and queries). */
export type Analyzer = (text: string) => string[];

/** Lucene's default English stop set (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
  "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
  "this", "to", "was", "will", "with",
]);

// A word: letters, digits and combining marks, with inner apostrophes kept so the possessive
// rule can see them (Lucene keeps `john's` as one token before its possessive filter).
const WORD = /[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*/gu;

/** Lower-cased letter/digit runs, nothing removed. */
export const simpleAnalyzer: Analyzer = (text) => {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    for (const part of m[0].split(/['\u2019]/)) if (part !== "") out.push(part);
  }
  return out;
};

/** Lower-case, possessive `'s` removed, stop words dropped, Porter-stemmed (see the file header). */
export const englishAnalyzer: Analyzer = (text) => {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    let word = m[0];
    if (word.endsWith("'s") || word.endsWith("\u2019s")) word = word.slice(0, -2);
    for (const part of word.split(/['\u2019]/)) {
      if (part === "" || ENGLISH_STOP_WORDS.has(part)) continue;
      out.push(porterStem(part));
    }
  }
  return out;
};
