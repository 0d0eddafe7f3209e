/**
 * Small Python and BeautifulSoup text behaviours that WebShop's observations depend on byte for
 * byte: `repr(float)` (price tags such as `$100.0`), `str.strip()`, and how one HTML text node
 * becomes one `[SEP]` part in `convert_html_to_text(simple=True)`. Nothing here parses HTML
 * (that is `html-text.ts`).
 */

/**
 * Python's `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent form
 * outside 1e-4 <= |x| < 1e16.
 * @example pyFloatRepr(100) === "100.0"; pyFloatRepr(877.8) === "877.8"; pyFloatRepr(1e16) === "1e+16"
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = x.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  const sign = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return `${sign}${digits}${"0".repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

// Python's str.isspace() set (differs from JS \s: adds \x1c-\x1f and \x85, drops \ufeff).
function isPySpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Python's `str.strip()` with no argument (a scan from both ends; no regex, for long descriptions). */
export function pyStrip(s: string): string {
  let a = 0, b = s.length;
  while (a < b && isPySpace(s.charCodeAt(a))) a++;
  while (b > a && isPySpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function asciiSpaceOnly(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0c && c !== 0x0d) return false;
  }
  return true;
}

/**
 * The `[SEP]` part one HTML text node contributes, or `null` for none. BeautifulSoup turns a
 * node of ASCII whitespace into `"\n"` when it holds a newline (then dropped by the
 * benchmark's `t != '\n'` filter) and into `" "` otherwise (an empty part); an empty template
 * value produces no node at all; every other node is stripped.
 */
export function textPart(s: string): string | null {
  if (s === "") return null;
  if (asciiSpaceOnly(s)) return s.includes("\n") ? null : "";
  return pyStrip(s);
}

// Characters Python's str.isprintable() rejects (other than the space, which is printable).
const PY_UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/**
 * Python's `repr(str)`: single quotes unless the text has a `'` and no `"`; backslash, the quote,
 * `\t`, `\n`, `\r` escaped; other unprintable code points as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
 * @example pyStrRepr("navy blue") === "'navy blue'"; pyStrRepr("men's") === "\"men's\""
 */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === "\\" || ch === quote) out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch !== " " && PY_UNPRINTABLE.test(ch)) {
      const c = ch.codePointAt(0)!;
      out += c < 0x100 ? `\\x${c.toString(16).padStart(2, "0")}` : c < 0x10000 ? `\\u${c.toString(16).padStart(4, "0")}` : `\\U${c.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return out + quote;
}
