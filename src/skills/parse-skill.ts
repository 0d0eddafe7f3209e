/**
 * Reading a skill out of an analyzer's answer: the parse/repair state machine of
 * `jinyangwu/OPID:opid/analysis.py` (reimplemented; the authors' `seed/analysis.py` parses alike)
 * and the format validator.
 * Model text is untrusted: every function here is total and returns a `Result`, never throws.
 *
 * 1. candidates: the contents of fenced code blocks (optionally tagged json), then the whole text;
 * 2. each candidate as is, then with trailing commas removed (`,\s*([}\]])` → `$1`);
 * 3. a JSON object decoded at every `{` (the balanced slice that starts there); if none has the
 *    skill key, a lenient parse of the same slices that accepts single quotes, bare keys,
 *    Python's True/False/None and trailing commas;
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

/** Contents of fenced code blocks, in order. */
function fencedBlocks(text: string): string[] {
  return [...text.matchAll(/```[^\n`]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Removes commas directly before a closing brace or bracket. */
export function stripTrailingCommas(text: string): string {
  return text.replace(/,\s*([}\]])/g, "$1");
}

/** Index just past the brace that closes the `{` at `start`, skipping strings; -1 when unbalanced. */
function balancedEnd(text: string, start: number, singleQuotes: boolean): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || (singleQuotes && c === "'")) quote = c;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Every object decodable at some `{` of `text`, strict JSON or lenient. */
function objectsIn(text: string, lenient: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) {
    const end = balancedEnd(text, i, lenient);
    if (end === -1) continue;
    const slice = text.slice(i, end);
    const value = lenient ? lenientParse(slice) : strictParse(slice);
    if (isRecord(value)) out.push(value);
  }
  return out;
}

function strictParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

// ---------- a lenient literal parser (single quotes, bare keys, True/False/None, trailing commas) ----------

class LenientReader {
  private i = 0;
  private readonly s: string;
  constructor(s: string) {
    this.s = s;
  }

  parse(): unknown {
    const v = this.value();
    this.space();
    if (this.i !== this.s.length) throw new SyntaxError("trailing text");
    return v;
  }

  private space(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private value(): unknown {
    this.space();
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"' || c === "'") return this.string();
    const word = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|True|False|None)/.exec(this.s.slice(this.i));
    if (!word) throw new SyntaxError(`unexpected ${c ?? "end"}`);
    this.i += word[0].length;
    const literals: Record<string, unknown> = { true: true, True: true, false: false, False: false, null: null, None: null };
    return Object.hasOwn(literals, word[0]) ? literals[word[0]] : Number(word[0]);
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    for (;;) {
      this.space();
      if (this.s[this.i] === "}") {
        this.i++;
        return out;
      }
      let key: string;
      const c = this.s[this.i];
      if (c === '"' || c === "'") key = this.string();
      else {
        const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
        if (!bare) throw new SyntaxError("expected a key");
        key = bare[0];
        this.i += key.length;
      }
      this.space();
      if (this.s[this.i] !== ":") throw new SyntaxError("expected ':'");
      this.i++;
      out[key] = this.value();
      this.space();
      if (this.s[this.i] === ",") this.i++;
      else if (this.s[this.i] !== "}") throw new SyntaxError("expected ',' or '}'");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    for (;;) {
      this.space();
      if (this.s[this.i] === "]") {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.space();
      if (this.s[this.i] === ",") this.i++;
      else if (this.s[this.i] !== "]") throw new SyntaxError("expected ',' or ']'");
    }
  }

  private string(): string {
    const quote = this.s[this.i]!;
    this.i++;
    let out = "";
    const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "\\": "\\", "/": "/", '"': '"', "'": "'" };
    while (this.i < this.s.length) {
      const c = this.s[this.i++]!;
      if (c === quote) return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.s[this.i++] ?? "";
      if (e === "u" && /^[0-9a-fA-F]{4}/.test(this.s.slice(this.i))) {
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + 4), 16));
        this.i += 4;
      } else out += escapes[e] ?? e;
    }
    throw new SyntaxError("unterminated string");
  }
}

/** Parses a JSON-or-Python-literal text leniently; undefined when it cannot. */
export function lenientParse(text: string): unknown {
  try {
    return new LenientReader(text).parse();
  } catch {
    return undefined;
  }
}
