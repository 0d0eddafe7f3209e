/**
 * The analyzer Pyserini indexes and searches with by default (Anserini's `DefaultEnglishAnalyzer`
 * on Lucene 8.11, as WebShop's `pyserini==0.17.0` bundles it): Lucene's `StandardTokenizer`
 * (Unicode UAX#29 word boundaries, as its JFlex grammar applies them), `EnglishPossessiveFilter`
 * (before lower-casing), `LowerCaseFilter` (per code point), the 33-word English stop set and
 * `PorterStemFilter`. Character classes come from JavaScript's Unicode property escapes, so
 * characters whose Word_Break value changed between Lucene's Unicode version and Node's may
 * split differently; the interop test measures the analyzer against real Lucene on the WebShop
 * catalogue and its human queries.
 */
import { ENGLISH_STOP_WORDS, type Analyzer } from "./analyzer.ts";
import { porterStemAny } from "./porter.ts";

/** Word_Break classes the tokenizer distinguishes (UAX#29 names; Emoji and SEA as Lucene's grammar adds them). */
const C = {
  Other: 0, Letter: 1, Hebrew: 2, Numeric: 3, Katakana: 4, ExtendNumLet: 5, MidLetter: 6, MidNum: 7, MidNumLet: 8,
  SingleQuote: 9, DoubleQuote: 10, Extend: 11, Newline: 12, Han: 13, Hiragana: 14, SouthEastAsian: 15, Emoji: 16,
  RegionalIndicator: 17, EmojiModifier: 18,
} as const;
type C = (typeof C)[keyof typeof C];

// Scripts whose letters have Line_Break = Complex_Context (UAX#29 leaves them to dictionaries; Lucene bundles runs).
const SEA = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Le}\p{Script=New_Tai_Lue}\p{Script=Tai_Tham}\p{Script=Tai_Viet}\p{Script=Ahom}]/u;
const EXTEND = /[\p{Grapheme_Extend}\p{Mc}\p{Cf}\u200d]/u;
const LETTER = /[\p{Alphabetic}\u05f3]/u;
const KATAKANA = /[\p{Script=Katakana}\u3031-\u3035\u309b\u309c\u30a0\u30fc\uff70]/u;
// Lucene's emoji data predates Unicode 16, which took many reserved symbols out of
// Extended_Pictographic (★ U+2605, ☞ U+261E, the mahjong and domino tiles...): those ranges
// are added back as the interop test found them.
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Presentation}\u2388\u2605\u2607-\u260d\u260f-\u2610\u2612\u2616-\u2617\u2619-\u261c\u261e-\u261f\u2621\u2624-\u2625\u2627-\u2629\u262b-\u262d\u2630-\u2637\u263b-\u263f\u2641\u2643-\u2647\u2654-\u265e\u2661-\u2662\u2664\u2667\u2669-\u267a\u267c-\u267d\u2680-\u2685\u2690-\u2691\u2698\u269a\u269d-\u269f\u26a2-\u26a6\u26a8-\u26a9\u26ac-\u26af\u26b2-\u26bc\u26bf-\u26c3\u26c6-\u26c7\u26c9-\u26cd\u26d0\u26d2\u26d5-\u26e8\u26eb-\u26ef\u26f6\u26fb-\u26fc\u26fe-\u2701\u2703-\u2704\u270e\u2710-\u2711\u2765-\u2767\u{1f000}-\u{1f003}\u{1f005}-\u{1f02b}\u{1f030}-\u{1f093}\u{1f0a0}-\u{1f0ae}\u{1f0b1}-\u{1f0bf}\u{1f0c1}-\u{1f0ce}\u{1f0d1}-\u{1f0f5}\u{1f10d}-\u{1f10f}\u{1f12f}\u{1f16c}-\u{1f16f}\u{1f1ad}\u{1f260}-\u{1f265}\u{1f322}-\u{1f323}\u{1f394}-\u{1f395}\u{1f398}\u{1f39c}-\u{1f39d}\u{1f3f1}-\u{1f3f2}\u{1f3f6}\u{1f4fe}\u{1f546}-\u{1f548}\u{1f54f}\u{1f568}-\u{1f56e}\u{1f571}-\u{1f572}\u{1f57b}-\u{1f586}\u{1f588}-\u{1f589}\u{1f58e}-\u{1f58f}\u{1f591}-\u{1f594}\u{1f597}-\u{1f5a3}\u{1f5a6}-\u{1f5a7}\u{1f5a9}-\u{1f5b0}\u{1f5b3}-\u{1f5bb}\u{1f5bd}-\u{1f5c1}\u{1f5c5}-\u{1f5d0}\u{1f5d4}-\u{1f5db}\u{1f5df}-\u{1f5e0}\u{1f5e2}\u{1f5e4}-\u{1f5e7}\u{1f5e9}-\u{1f5ee}\u{1f5f0}-\u{1f5f2}\u{1f5f4}-\u{1f5f9}\u{1f6c6}-\u{1f6ca}\u{1f6d3}-\u{1f6d4}\u{1f6e6}-\u{1f6e8}\u{1f6ea}\u{1f6f1}-\u{1f6f2}\u{1f7d5}-\u{1f7d8}\u{1f8b0}-\u{1f8b1}\u{1fa00}-\u{1fa53}\u{1fa60}-\u{1fa6d}\u{1fb00}-\u{1fb92}\u{1fb94}-\u{1fbca}]/u;

const FIXED = new Map<number, C>([
  [0x0a, C.Newline], [0x0b, C.Newline], [0x0c, C.Newline], [0x0d, C.Newline], [0x85, C.Newline], [0x2028, C.Newline], [0x2029, C.Newline],
  [0x27, C.SingleQuote], [0x22, C.DoubleQuote],
  ...[0x3a, 0xb7, 0x387, 0x55f, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a].map((c) => [c, C.MidLetter] as [number, C]),
  ...[0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e].map((c) => [c, C.MidNumLet] as [number, C]),
  ...[0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b].map((c) => [c, C.MidNum] as [number, C]),
  [0x200b, C.Other], [0x202f, C.ExtendNumLet], [0x200c, C.Extend], [0x200d, C.Extend],
]);

const cache = new Map<number, C>();

function classify(cp: number): C {
  if (cp < 0x80) {
    if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) return C.Letter;
    if (cp >= 0x30 && cp <= 0x39) return C.Numeric;
    if (cp === 0x5f) return C.ExtendNumLet;
    return FIXED.get(cp) ?? C.Other;
  }
  let c = cache.get(cp);
  if (c === undefined) {
    c = classifyUnicode(String.fromCodePoint(cp), cp);
    cache.set(cp, c);
  }
  return c;
}

function classifyUnicode(ch: string, cp: number): C {
  const fixed = FIXED.get(cp);
  if (fixed !== undefined) return fixed;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return C.RegionalIndicator;
  // Emoji modifiers (skin tones) are no Extend in Lucene's Unicode: they join only an emoji before them.
  if (cp >= 0x1f3fb && cp <= 0x1f3ff) return C.EmojiModifier;
  if (SEA.test(ch) && /[\p{L}\p{M}]/u.test(ch)) return C.SouthEastAsian;
  if (EXTEND.test(ch)) return C.Extend;
  if (/\p{Nd}/u.test(ch)) return C.Numeric;
  if (/\p{Pc}/u.test(ch)) return C.ExtendNumLet;
  if (/\p{Script=Han}/u.test(ch)) return C.Han;
  if (/\p{Script=Hiragana}/u.test(ch)) return C.Hiragana;
  if (KATAKANA.test(ch)) return C.Katakana;
  if (/\p{Script=Hebrew}/u.test(ch) && /\p{L}/u.test(ch)) return C.Hebrew;
  if (LETTER.test(ch) && !/\p{Ideographic}/u.test(ch)) return C.Letter;
  if (EMOJI.test(ch)) return C.Emoji;
  return C.Other;
}

/** One base character with the Extend/Format/ZWJ characters that attach to it (UAX#29 WB4). */
type Unit = { readonly start: number; readonly end: number; readonly cls: C; readonly endsZwj: boolean };

function units(text: string): Unit[] {
  const out: Unit[] = [];
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const start = i;
    i += cp > 0xffff ? 2 : 1;
    let cls: C = classify(cp);
    let endsZwj = cp === 0x200d;
    if (cls !== C.Newline) {
      while (i < text.length) {
        const next = text.codePointAt(i)!;
        if (classify(next) !== C.Extend) break;
        endsZwj = next === 0x200d;
        i += next > 0xffff ? 2 : 1;
      }
    }
    // A lone Extend run (after a newline or at the start) is nothing to attach to: Lucene skips it.
    if (cls === C.Extend) cls = C.Other;
    out.push({ start, end: i, cls, endsZwj });
  }
  return out;
}

const isCore = (c: C): boolean => c === C.Letter || c === C.Hebrew || c === C.Numeric || c === C.Katakana;
const isAhLetter = (c: C): boolean => c === C.Letter || c === C.Hebrew;
const isMidLetter = (c: C): boolean => c === C.MidLetter || c === C.MidNumLet || c === C.SingleQuote;
const isMidNum = (c: C): boolean => c === C.MidNum || c === C.MidNumLet || c === C.SingleQuote;

/** Whether two word cores join with nothing between them (WB5, WB8, WB9, WB10, WB13). */
function joinsDirectly(x: C, y: C): boolean {
  if (x === C.Katakana || y === C.Katakana) return x === y;
  return true;
}

/** End (unit index, exclusive) of the word token starting at unit `i`, or `i` when none starts there. */
function wordEnd(u: readonly Unit[], i: number): number {
  let j = i;
  while (j < u.length && u[j]!.cls === C.ExtendNumLet) j++;
  if (j >= u.length || !isCore(u[j]!.cls)) return i;
  let last = u[j]!.cls;
  j++;
  for (;;) {
    // Trailing connector-less ExtendNumLet run: part of the token, and it may link another core (WB13a/b).
    let k = j;
    while (k < u.length && u[k]!.cls === C.ExtendNumLet) k++;
    const next = u[k]?.cls;
    if (k > j) {
      if (next !== undefined && isCore(next)) {
        last = next;
        j = k + 1;
        continue;
      }
      return k;
    }
    if (next === undefined) return j;
    if (isCore(next) && joinsDirectly(last, next)) {
      last = next;
      j++;
      continue;
    }
    const after = u[j + 1]?.cls;
    if (after !== undefined) {
      if (isAhLetter(last) && isMidLetter(next) && isAhLetter(after)) {
        last = after;
        j += 2;
        continue;
      }
      if (last === C.Numeric && isMidNum(next) && after === C.Numeric) {
        last = after;
        j += 2;
        continue;
      }
      if (last === C.Hebrew && next === C.DoubleQuote && after === C.Hebrew) {
        last = after;
        j += 2;
        continue;
      }
    }
    // WB7a: a Hebrew letter keeps a following single quote.
    if (last === C.Hebrew && next === C.SingleQuote) return j + 1;
    return j;
  }
}

/** End of an emoji token at unit `i` (presentation, modifier and ZWJ sequences, flags), or `i`. */
function emojiEnd(text: string, u: readonly Unit[], i: number): number {
  const c = u[i]!.cls;
  if (c === C.RegionalIndicator) return u[i + 1]?.cls === C.RegionalIndicator ? i + 2 : i;
  // Keycaps: [0-9#*] (U+FE0F) U+20E3; a digit base is already a numeric word.
  if (c === C.Other && /^[#*]\ufe0f?\u20e3$/.test(text.slice(u[i]!.start, u[i]!.end))) return i + 1;
  if (c === C.EmojiModifier) return i + 1;
  if (c !== C.Emoji) return i;
  let j = i + 1;
  for (;;) {
    if (u[j]?.cls === C.EmojiModifier) j++;
    if (!(u[j - 1]!.endsZwj && u[j]?.cls === C.Emoji)) return j;
    j++;
  }
}

/** Lucene's maximum token length: longer words are cut into pieces of 255 UTF-16 units. */
const MAX_TOKEN_LENGTH = 255;

/** The tokens of Lucene's `StandardTokenizer` (original case), in order. */
export function standardTokens(text: string): string[] {
  const u = units(text);
  const out: string[] = [];
  let i = 0;
  while (i < u.length) {
    const c = u[i]!.cls;
    let end = wordEnd(u, i);
    if (end === i) end = emojiEnd(text, u, i);
    if (end === i && (c === C.Han || c === C.Hiragana)) end = i + 1;
    if (end === i && c === C.SouthEastAsian) {
      end = i + 1;
      while (end < u.length && u[end]!.cls === C.SouthEastAsian) end++;
    }
    if (end === i) {
      // Two or more regional indicators beyond a flag pair are skipped together (Lucene's catch-all rule).
      i++;
      continue;
    }
    const token = text.slice(u[i]!.start, u[end - 1]!.end);
    for (let s = 0; s < token.length; s += MAX_TOKEN_LENGTH) out.push(token.slice(s, s + MAX_TOKEN_LENGTH));
    i = end;
  }
  return out;
}

/** `EnglishPossessiveFilter`: drop a final `'s`, `’s` or `＇s` (either case of s). */
function dropPossessive(t: string): string {
  if (t.length < 2) return t;
  const q = t.charCodeAt(t.length - 2), s = t.charCodeAt(t.length - 1);
  return (q === 0x27 || q === 0x2019 || q === 0xff07) && (s === 0x73 || s === 0x53) ? t.slice(0, -2) : t;
}

/** Java's `Character.toLowerCase(int)` on every code point (simple case mapping, no context). */
function lowerCase(t: string): string {
  if (/^[\x00-\x7f]*$/.test(t)) return t.toLowerCase();
  let out = "";
  for (const ch of t) {
    if (ch === "\u0130") out += "i";
    else {
      const l = ch.toLowerCase();
      out += [...l].length === 1 ? l : ch;
    }
  }
  return out;
}

/**
 * Pyserini's default analysis: StandardTokenizer → possessive → lower case → stop words → Porter.
 * @example luceneEnglishAnalyzer("John's wi-fi 3.5mm cables") // ["john", "wi", "fi", "3.5mm", "cabl"]
 */
export const luceneEnglishAnalyzer: Analyzer = (text) => {
  const out: string[] = [];
  for (const token of standardTokens(text)) {
    const t = lowerCase(dropPossessive(token));
    if (t === "" || ENGLISH_STOP_WORDS.has(t)) continue;
    out.push(porterStemAny(t));
  }
  return out;
};
