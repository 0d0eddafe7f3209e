/**
 * Strict dotted overrides (`--opd.beta=0 --grpo.std=bessel`), checked against the shape of
 * `defaultConfig`: an unknown key or a value that does not parse as the default's type is an
 * issue, and every issue of every override is collected before anything fails (docs/TRAINING.md §2).
 * The result is a partial config, validated again (ranges, choices) with the preset it patches.
 */
import { UsageError, type ConfigIssue } from "../core/errors.ts";
import { defaultConfig } from "./config.ts";

/** One override after parsing: the dotted path and the raw text of its value. */
export type Override = { readonly path: string; readonly value: string };

/**
 * Splits `--a.b=v` / `a.b=v` strings into overrides; a string without `=` is an issue
 * (a bare `--flag` is a CLI option, not an override, and never reaches here).
 */
export function parseOverrideArgs(args: readonly string[]): { overrides: Override[]; issues: ConfigIssue[] } {
  const overrides: Override[] = [];
  const issues: ConfigIssue[] = [];
  for (const arg of args) {
    const body = arg.replace(/^--/, "");
    const eq = body.indexOf("=");
    if (eq <= 0) {
      issues.push({ path: body, message: `an override is written --<path>=<value>, got '${arg}'` });
      continue;
    }
    overrides.push({ path: body.slice(0, eq), value: body.slice(eq + 1) });
  }
  return { overrides, issues };
}

/** The value at a dotted path of the defaults, or undefined when the path does not exist. */
function defaultAt(path: string): { found: boolean; value: unknown } {
  let node: unknown = defaultConfig;
  for (const part of path.split(".")) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return { found: false, value: undefined };
    node = (node as Record<string, unknown>)[part];
  }
  return { found: true, value: node };
}

/** The nearest existing prefix of a path, for a helpful message. */
function knownKeysNear(path: string): string {
  const parts = path.split(".");
  for (let n = parts.length - 1; n >= 0; n--) {
    const prefix = parts.slice(0, n).join(".");
    const at = n === 0 ? { found: true, value: defaultConfig } : defaultAt(prefix);
    if (at.found && typeof at.value === "object" && at.value !== null) {
      return `known keys${prefix ? ` of ${prefix}` : ""}: ${Object.keys(at.value).join(", ")}`;
    }
  }
  return "";
}

/** Record fields whose keys are names (a loss term's coefficient): `--loss.terms.<name>=<number>`. */
const NUMBER_RECORDS = ["loss.terms"];

/** Parses one override's text as the type of the default at its path. */
function coerce(o: Override): { ok: true; value: unknown } | { ok: false; issue: ConfigIssue } {
  if (NUMBER_RECORDS.some((r) => o.path.startsWith(`${r}.`) && !o.path.slice(r.length + 1).includes("."))) {
    const n = o.value.trim() === "" ? Number.NaN : Number(o.value);
    return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, issue: { path: o.path, message: `expected a number, got '${o.value}'` } };
  }
  const at = defaultAt(o.path);
  if (!at.found) return { ok: false, issue: { path: o.path, message: `unknown key (${knownKeysNear(o.path)})` } };
  const d = at.value;
  if (typeof d === "object" && d !== null) return { ok: false, issue: { path: o.path, message: "is a section; override one of its keys" } };
  if (typeof d === "number") {
    const n = o.value.trim() === "" ? Number.NaN : Number(o.value);
    if (!Number.isFinite(n)) return { ok: false, issue: { path: o.path, message: `expected a number, got '${o.value}'` } };
    return { ok: true, value: n };
  }
  if (typeof d === "boolean") {
    if (o.value !== "true" && o.value !== "false") return { ok: false, issue: { path: o.path, message: `expected true or false, got '${o.value}'` } };
    return { ok: true, value: o.value === "true" };
  }
  return { ok: true, value: o.value };
}

/**
 * Overrides as a partial config, with every issue found (unknown keys, unparseable values,
 * the same path given twice).
 * @example overridesToPatch([{ path: "opd.beta", value: "0" }]) // { patch: { opd: { beta: 0 } }, issues: [] }
 */
export function overridesToPatch(overrides: readonly Override[]): { patch: Record<string, unknown>; issues: ConfigIssue[] } {
  const patch: Record<string, unknown> = {};
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const o of overrides) {
    if (seen.has(o.path)) {
      issues.push({ path: o.path, message: "given more than once" });
      continue;
    }
    seen.add(o.path);
    const r = coerce(o);
    if (!r.ok) {
      issues.push(r.issue);
      continue;
    }
    const parts = o.path.split(".");
    let node = patch;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]!] = r.value;
  }
  return { patch, issues };
}

/**
 * Separates dotted overrides (`--a.b=v`, any key with a dot) from the other command-line
 * arguments, so a strict option parser never sees them.
 */
export function splitOverrideArgs(argv: readonly string[]): { overrides: string[]; rest: string[] } {
  const overrides: string[] = [];
  const rest: string[] = [];
  argv.forEach((a, i) => {
    const isOverride = /^--[A-Za-z][\w-]*\.[\w.]+(=|$)/.test(a);
    const next = argv[i + 1];
    // `--opd.beta 5`: the value was meant, but overrides take it after '=' only.
    if (isOverride && !a.includes("=") && next !== undefined && !next.startsWith("--")) {
      throw new UsageError(`an override takes its value after '=': write ${a}=${next}, not '${a} ${next}'`);
    }
    (isOverride ? overrides : rest).push(a);
  });
  return { overrides, rest };
}
