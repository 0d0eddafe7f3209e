/**
 * JSON text exactly as Python's `json.dumps` writes it with its defaults (`ensure_ascii=True`,
 * separators `", "` and `": "`), which the verl-agent information text embeds
 * (`information.ts`): every character outside printable ASCII becomes `\uXXXX` (lower-case hex,
 * surrogate
 * pairs as two escapes), and `\n`, `\r`, `\t`, `\b`, `\f`, `"`, `\\` use their short escapes.
 * Numbers are written as Python floats (`1.0`, `1e-05`); only strings, finite numbers, booleans,
 * null, arrays and plain objects; not a general encoder.
 */

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A Python `json.dumps` string literal. */
export function pyJsonString(s: string): string {
  // Code units, not code points: an astral character becomes its two surrogate escapes, as in Python.
  return '"' + s.replace(/["\\\u0000-\u001f\u007f-\uffff]/g, (ch) => SHORT_ESCAPES[ch] ?? "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0")) + '"';
}

/** Python `json.dumps(value)` for JSON-shaped values. */
export function pyJsonDumps(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError("pyJsonDumps: non-finite numbers are not JSON");
    return pyFloat(value);
  }
  if (Array.isArray(value)) return "[" + value.map(pyJsonDumps).join(", ") + "]";
  if (typeof value === "object") {
    return "{" + Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyJsonString(k)}: ${pyJsonDumps(v)}`).join(", ") + "}";
  }
  throw new TypeError(`pyJsonDumps: cannot encode ${typeof value}`);
}

/** Python's float repr: the shortest round-trip digits, scientific below 1e-4 and from 1e16. */
function pyFloat(x: number): string {
  const [mantissa, expText] = x.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac === "" ? "0" : frac}`;
}
