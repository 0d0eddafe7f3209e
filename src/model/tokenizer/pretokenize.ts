/**
 * Pre-tokenization: the regex that cuts text into pieces before BPE merges run inside each
 * piece (so merges never cross a word boundary). Hugging Face writes these patterns for the
 * Oniguruma engine; `translateHfPattern` turns the constructs JavaScript lacks into equivalents:
 * - `(?i:'s|'t)` (scoped case-insensitivity, not in Node 20) becomes `'[sS]|'[tT]`;
 * - `\s` / `\S` become `\p{White_Space}` / `\P{White_Space}`, the Unicode definition the Rust
 *   and Oniguruma engines use (JavaScript's `\s` also matches U+FEFF).
 * Patterns with other unsupported syntax are rejected with an error rather than guessed at.
 */

/** Qwen2's pre-tokenizer pattern, as written in its `tokenizer.json` (HF/Oniguruma syntax). */
export const QWEN2_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** GPT-2's pattern, which a `ByteLevel` pre-tokenizer with `use_regex: true` applies. */
export const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/**
 * A Hugging Face (Oniguruma) regex source turned into a global, Unicode-aware JavaScript RegExp.
 * @throws Error naming the construct when the pattern uses syntax this translation does not cover
 */
export function translateHfPattern(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const n = pattern[i + 1];
      if (n === undefined) throw new Error("pattern ends with a lone backslash");
      if (n === "s") out += "\\p{White_Space}";
      else if (n === "S") out += "\\P{White_Space}";
      else out += c + n;
      i++;
    } else if (pattern.startsWith("(?i:", i)) {
      const close = pattern.indexOf(")", i);
      const body = pattern.slice(i + 4, close);
      if (close < 0 || /[\\[\](]/.test(body)) throw new Error(`unsupported case-insensitive group at ${i}`);
      out += "(?:" + body.replace(/[a-zA-Z]/g, (ch) => `[${ch.toLowerCase()}${ch.toUpperCase()}]`) + ")";
      i = close;
    } else if (pattern.startsWith("(?", i) && !/^\(\?(?::|=|!|<=|<!)/.test(pattern.slice(i, i + 4))) {
      throw new Error(`unsupported group syntax at ${i}: ${pattern.slice(i, i + 6)}`);
    } else {
      out += c;
    }
  }
  return new RegExp(out, "gu");
}

/**
 * Cuts `text` into pieces with a global regex, keeping unmatched gaps as pieces of their own
 * (HF `Split` with behaviour `Isolated`), so the pieces always concatenate back to `text`.
 */
export function splitPieces(text: string, regex: RegExp, out: string[] = []): string[] {
  let last = 0;
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    if (m[0].length === 0) {
      regex.lastIndex++; // an empty match would loop forever; no shipped pattern produces one
      continue;
    }
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
