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
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");
const ASCII_SPACE_ONLY = /^[ \n\t\f\r]+$/;

/** Python's `str.strip()` with no argument. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}

/**
 * The `[SEP]` part one HTML text node contributes, or `null` for none. BeautifulSoup turns a
 * node of ASCII whitespace into `"\n"` when it holds a newline (then dropped by the
 * benchmark's `t != '\n'` filter) and into `" "` otherwise (an empty part); an empty template
 * value produces no node at all; every other node is stripped.
 */
export function textPart(s: string): string | null {
  if (s === "") return null;
  if (ASCII_SPACE_ONLY.test(s)) return s.includes("\n") ? null : "";
  return pyStrip(s);
}

/** Python's `str.split()` with no argument: split on runs of whitespace, no empty items. */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  for (const t of pyStrip(s).split(new RegExp(`[${PY_SPACE}]+`))) if (t !== "") out.push(t);
  return out;
}
