/**
 * Reading a skill out of an analyzer's answer: the parse/repair state machine of
 * `jinyangwu/OPID:opid/analysis.py` (reimplemented; the authors' `seed/analysis.py` parses alike)
 * and the format validator.
 * Model text is untrusted: every function here is total and returns a `Result`, never throws, and
 * its time is linear in the answer's length (one reader pass per candidate text, no regex that
 * backtracks), so an adversarial answer cannot stall the analyzer.
 *
 * 1. candidates: the contents of fenced code blocks (optionally tagged json), then the whole text;
 * 2. each candidate as is, then with trailing commas removed (`,\s*([}\]])` → `$1`);
 * 3. a JSON object decoded at every `{` (the object that starts there; braces inside the strings
 *    of an object already decoded are text, not objects); if none has the skill key, a lenient
 *    reading of the same text that accepts single quotes, bare keys, Python's True/False/None and
 *    trailing commas;
 * 4. the first object with a skill key wins, else the answer is rejected (with the reason);
 * 5. the skill is validated against `SkillLimits` (template.ts documents the criteria).
 */
import { err, ok, type Result } from "../core/result.ts";
import { SKILL_KEYS, defaultSkillLimits, type SkillLimits } from "./template.ts";

/**
 * Why an analysis holds no valid skill: a format problem of the answer, or (`request-failed`)
 * no answer at all because the endpoint failed.
 */
export type SkillIssueKind = "no-json" | "no-skill-key" | "not-a-string" | "empty" | "too-short" | "too-long" | "request-failed";

/** A rejected answer: the kind (counted in metrics) and a message (quoted in the retry prompt). */
export type SkillIssue = { readonly kind: SkillIssueKind; readonly message: string };

/** How the skill was recovered; `json` means no repair was needed. */
export type ParseRoute = "json" | "trailing-commas" | "lenient";

/** A skill read from an answer. */
export type ParsedSkill = { readonly skill: string; readonly route: ParseRoute; readonly fenced: boolean };

type Found = { readonly value: Record<string, unknown>; readonly route: ParseRoute; readonly fenced: boolean };

/**
 * Contents of fenced code blocks, in order: what `/```[^\n`]*\n([\s\S]*?)```/g` matches, found
 * with `indexOf` in one left-to-right pass (the regex re-scans to the end at every unclosed fence).
 */
function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf("```"); at !== -1;) {
    let h = at + 3;
    while (h < text.length && text[h] !== "\n" && text[h] !== "`") h++;
    if (h >= text.length) break; // no newline or backtick after this fence: no later fence either
    if (text[h] === "`") {
      at = text.indexOf("```", at + 1);
      continue;
    }
    const close = text.indexOf("```", h + 1);
    if (close === -1) break;
    out.push(text.slice(h + 1, close));
    at = text.indexOf("```", close + 3);
  }
  return out;
}

/** Removes commas directly before a closing brace or bracket. */
export function stripTrailingCommas(text: string): string {
  return text.replace(/,\s*([}\]])/g, "$1");
}

/**
 * Every object decodable at some `{` of `text`, strict JSON or lenient, in the order of their
 * opening braces: what decoding the balanced slice at every `{` finds, in linear time. One read
 * from a `{` decodes every object nested in it (each recorded at its own brace); a `{` that an
 * earlier read already opened is not read again, since reading from it alone would give the same
 * object or stop at the same error. Braces inside strings are still tried, each from scratch, so
 * the total reading is capped at `READ_BUDGET` times the text: past it, no further `{` is tried
 * (only crafted text gets there; a model's answer reads each character about once).
 */
function objectsIn(text: string, lenient: boolean): Record<string, unknown>[] {
  const opened = new Uint8Array(text.length);
  const records: { start: number; value: Record<string, unknown> }[] = [];
  const reader = new Reader(text, lenient, opened, records);
  const budget = READ_BUDGET * text.length + 4096;
  let spent = 0;
  for (let i = text.indexOf("{"); i !== -1 && spent <= budget; i = text.indexOf("{", i + 1)) {
    if (opened[i] === 0) spent += reader.objectAt(i) - i;
  }
  return records.sort((a, b) => a.start - b.start).map((r) => r.value);
}

function skillKeyOf(value: Record<string, unknown>): string | undefined {
  return SKILL_KEYS.find((k) => Object.hasOwn(value, k));
}

/**
 * The skill in an analyzer answer, validated, or the reason there is none.
 * @example parseSkill('```json\n{"skill": "Open the drawer before searching it.",}\n```') // ok, route "trailing-commas"
 */
export function parseSkill(answer: string, limits: SkillLimits = defaultSkillLimits): Result<ParsedSkill, SkillIssue> {
  const candidates = [...fencedBlocks(answer).map((text) => ({ text, fenced: true })), { text: answer, fenced: false }];
  const found: Found[] = [];
  for (const lenient of [false, true]) {
    for (const { text, fenced } of candidates) {
      const variants: Array<[string, ParseRoute]> = [[text, lenient ? "lenient" : "json"]];
      const stripped = stripTrailingCommas(text);
      if (stripped !== text) variants.push([stripped, lenient ? "lenient" : "trailing-commas"]);
      for (const [variant, route] of variants) {
        for (const value of objectsIn(variant, lenient)) found.push({ value, route, fenced });
      }
    }
    const withKey = found.find((f) => skillKeyOf(f.value) !== undefined);
    if (withKey !== undefined) {
      const checked = validateSkill(withKey.value[skillKeyOf(withKey.value)!], limits);
      return checked.ok ? ok({ skill: checked.value, route: withKey.route, fenced: withKey.fenced }) : checked;
    }
  }
  if (found.length > 0) {
    const keys = Object.keys(found[0]!.value).slice(0, 5).join(", ") || "none";
    return err({ kind: "no-skill-key", message: `the JSON object has no "${SKILL_KEYS[0]}" field (its keys: ${keys})` });
  }
  return err({ kind: "no-json", message: "no JSON object was found in the answer" });
}

/** Checks a skill value against the format criteria (template.ts) and returns it trimmed. */
export function validateSkill(value: unknown, limits: SkillLimits = defaultSkillLimits): Result<string, SkillIssue> {
  if (typeof value !== "string") {
    return err({ kind: "not-a-string", message: `the "${SKILL_KEYS[0]}" field must be one string, got ${Array.isArray(value) ? "a list" : typeof value}` });
  }
  const skill = value.trim();
  if (skill === "") return err({ kind: "empty", message: `the "${SKILL_KEYS[0]}" field is empty` });
  const words = skill.split(/\s+/).length;
  if (words < limits.minWords || !/\p{L}/u.test(skill)) {
    return err({ kind: "too-short", message: `the skill needs at least ${limits.minWords} words of text, got "${skill.slice(0, 80)}"` });
  }
  if (skill.length > limits.maxChars) {
    return err({ kind: "too-long", message: `the skill has ${skill.length} characters; at most ${limits.maxChars} are allowed` });
  }
  return ok(skill);
}

// ---------- one reader for strict JSON and lenient literals (single quotes, bare keys, True/False/None, trailing commas) ----------

/** A syntax error at `at` (where reading stopped). */
class ParseStop {
  readonly at: number;
  constructor(at: number) {
    this.at = at;
  }
}

/** Deeper nesting is treated as a syntax error (the reader recurses; the JS stack is finite). */
const MAX_DEPTH = 1000;
/** Characters `objectsIn` may read per character of its text, over all the reads it starts. */
const READ_BUDGET = 8;
const STRICT_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LENIENT_WORD = /(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|True|False|None)/y;
const STRICT_WORD = /true|false|null/y;
const BARE_KEY = /[A-Za-z_][A-Za-z0-9_]*/y;
const LITERALS: Readonly<Record<string, unknown>> = { true: true, True: true, false: false, False: false, null: null, None: null };
const STRICT_ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "\\": "\\", "/": "/", '"': '"' };
const LENIENT_ESCAPES: Readonly<Record<string, string>> = { ...STRICT_ESCAPES, "'": "'" };

/**
 * A recursive-descent reader. Strict mode accepts exactly JSON (what `JSON.parse` accepts, up to
 * `MAX_DEPTH`); lenient mode adds single quotes, bare keys, Python literals, trailing commas, any
 * escape and raw control characters in strings. Keys are defined as own properties, as
 * `JSON.parse` does, so a `"__proto__"` key is data, never a prototype.
 */
class Reader {
  private i = 0;
  private depth = 0;
  private readonly s: string;
  private readonly lenient: boolean;
  /** Where given: marks each `{` this reader opened, and collects each object it completed. */
  private readonly opened: Uint8Array | null;
  private readonly records: { start: number; value: Record<string, unknown> }[] | null;

  constructor(s: string, lenient: boolean, opened: Uint8Array | null = null, records: { start: number; value: Record<string, unknown> }[] | null = null) {
    this.s = s;
    this.lenient = lenient;
    this.opened = opened;
    this.records = records;
  }

  /** Reads the object at `start` (a `{`); returns where reading stopped (its end, or the error). */
  objectAt(start: number): number {
    this.i = start;
    this.depth = 0;
    try {
      this.object();
      return this.i;
    } catch (e) {
      if (e instanceof ParseStop) return Math.max(e.at, start + 1);
      throw e;
    }
  }

  /** The one value that makes up the whole text. */
  whole(): unknown {
    this.i = 0;
    this.depth = 0;
    const v = this.value();
    this.space();
    if (this.i !== this.s.length) this.fail();
    return v;
  }

  private fail(): never {
    throw new ParseStop(this.i);
  }

  private space(): void {
    const s = this.s;
    if (this.lenient) while (this.i < s.length && /\s/.test(s[this.i]!)) this.i++;
    else while (this.i < s.length && (s[this.i] === " " || s[this.i] === "\t" || s[this.i] === "\n" || s[this.i] === "\r")) this.i++;
  }

  private sticky(re: RegExp): string | null {
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (m === null) return null;
    this.i += m[0].length;
    return m[0];
  }

  private value(): unknown {
    this.space();
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"' || (this.lenient && c === "'")) return this.string();
    if (this.lenient) {
      const word = this.sticky(LENIENT_WORD);
      if (word === null) this.fail();
      return Object.hasOwn(LITERALS, word) ? LITERALS[word] : Number(word);
    }
    const number = this.sticky(STRICT_NUMBER);
    if (number !== null) return Number(number);
    const word = this.sticky(STRICT_WORD);
    if (word === null) this.fail();
    return LITERALS[word];
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail();
    this.i++;
  }

  private object(): Record<string, unknown> {
    const start = this.i;
    if (this.opened !== null) this.opened[start] = 1;
    this.enter();
    const out: Record<string, unknown> = {};
    let first = true;
    for (;;) {
      this.space();
      if (this.s[this.i] === "}" && (first || this.lenient)) break;
      let key: string;
      const c = this.s[this.i];
      if (c === '"' || (this.lenient && c === "'")) key = this.string();
      else if (this.lenient) {
        const bare = this.sticky(BARE_KEY);
        if (bare === null) this.fail();
        key = bare;
      } else this.fail();
      this.space();
      if (this.s[this.i] !== ":") this.fail();
      this.i++;
      Object.defineProperty(out, key, { value: this.value(), writable: true, enumerable: true, configurable: true });
      first = false;
      this.space();
      if (this.s[this.i] === ",") this.i++;
      else if (this.s[this.i] === "}") break;
      else this.fail();
    }
    this.i++;
    this.depth--;
    this.records?.push({ start, value: out });
    return out;
  }

  private array(): unknown[] {
    this.enter();
    const out: unknown[] = [];
    let first = true;
    for (;;) {
      this.space();
      if (this.s[this.i] === "]" && (first || this.lenient)) break;
      out.push(this.value());
      first = false;
      this.space();
      if (this.s[this.i] === ",") this.i++;
      else if (this.s[this.i] === "]") break;
      else this.fail();
    }
    this.i++;
    this.depth--;
    return out;
  }

  private string(): string {
    const s = this.s;
    const quote = s[this.i]!;
    this.i++;
    let out = "";
    let from = this.i;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === quote) {
        out += s.slice(from, this.i);
        this.i++;
        return out;
      }
      if (c !== "\\") {
        if (!this.lenient && c < " ") this.fail(); // JSON forbids raw control characters in strings
        this.i++;
        continue;
      }
      out += s.slice(from, this.i);
      const e = s[this.i + 1] ?? "";
      this.i += 2;
      if (e === "u" && /^[0-9a-fA-F]{4}$/.test(s.slice(this.i, this.i + 4))) {
        out += String.fromCharCode(parseInt(s.slice(this.i, this.i + 4), 16));
        this.i += 4;
      } else if (this.lenient) out += LENIENT_ESCAPES[e] ?? e;
      else if (Object.hasOwn(STRICT_ESCAPES, e)) out += STRICT_ESCAPES[e];
      else {
        this.i -= 2;
        this.fail();
      }
      from = this.i;
    }
    this.fail();
  }
}

/** Parses a JSON-or-Python-literal text leniently; undefined when it cannot. */
export function lenientParse(text: string): unknown {
  try {
    return new Reader(text, true).whole();
  } catch (e) {
    if (e instanceof ParseStop) return undefined;
    throw e;
  }
}
