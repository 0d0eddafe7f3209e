/**
 * Method presets: JSON files in `configs/` (one per method, never a code branch), each a partial
 * `SeedConfig` with a name, aliases (the paper's spellings) and a one-line summary; the formula
 * it implements is rendered from its method plan (`describeMethod`). `resolveConfig` merges defaults ← preset ← mode overlay (`--quick`) ← a user JSON
 * file ← dotted overrides, then validates the result and reports every issue at once.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, UsageError, type ConfigIssue } from "../core/errors.ts";
import { readJsonFile } from "../core/fs.ts";
import { closest } from "../core/suggest.ts";
import { shapeIssues, validateConfig } from "./check.ts";
import { defaultConfig, mergeConfig, type SeedConfig } from "./config.ts";
import { builtinCatalogue, describeMethod, planMethod, type MethodCatalogue } from "./method.ts";
import { overridesToPatch, parseOverrideArgs } from "./overrides.ts";

/** The folder of the shipped presets. */
export const CONFIG_DIR = fileURLToPath(new URL("../../configs/", import.meta.url));

/** A preset file. */
export type Preset = {
  /** File-safe name, also the file name without `.json`. */
  readonly name: string;
  /** Other spellings accepted on the command line (the paper's: `Skill-GRPO*`, `GRPO+OPSD`). */
  readonly aliases: readonly string[];
  /** One line: what the method is. */
  readonly summary: string;
  /** The partial config merged over the defaults. */
  readonly config: Record<string, unknown>;
  /** Where it was read from. */
  readonly path: string;
};

function readJson(path: string): unknown {
  return readJsonFile(path, {
    unreadable: (p, reason) => new UsageError(`cannot read ${p}: ${reason}`),
    invalid: (p, reason) => new ConfigError([{ path: p, message: `not valid JSON: ${reason}` }]),
  });
}

/** Reads and checks one preset file (its `config` is shape-checked against the defaults). */
export function readPreset(path: string, catalogue: MethodCatalogue = builtinCatalogue): Preset {
  const raw = readJson(path) as Record<string, unknown>;
  const issues: ConfigIssue[] = [];
  if (typeof raw !== "object" || raw === null) throw new ConfigError([{ path, message: "a preset is a JSON object" }]);
  for (const key of Object.keys(raw)) {
    if (key === "formula") issues.push({ path: `${path}: formula`, message: "a preset no longer stores its formula: it is rendered from the config (seed train --list-presets); remove the field" });
    else if (!["name", "aliases", "summary", "config"].includes(key)) issues.push({ path: `${path}: ${key}`, message: "unknown preset field (name, aliases, summary, config)" });
  }
  for (const key of ["name", "summary"] as const) {
    if (typeof raw[key] !== "string" || raw[key] === "") issues.push({ path: `${path}: ${key}`, message: "must be a non-empty string" });
  }
  const aliases = raw["aliases"] ?? [];
  if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === "string")) issues.push({ path: `${path}: aliases`, message: "must be a list of strings" });
  const config = raw["config"] ?? {};
  issues.push(...shapeIssues(config, defaultConfig, "", catalogue).map((i) => ({ path: `${path}: config.${i.path}`, message: i.message })));
  if (issues.length > 0) throw new ConfigError(issues);
  return { name: raw["name"] as string, aliases: aliases as string[], summary: raw["summary"] as string, config: config as Record<string, unknown>, path };
}

/** Every shipped method preset, sorted by name (mode overlays in `configs/modes/` are not methods). */
export function listPresets(dir: string = CONFIG_DIR, catalogue: MethodCatalogue = builtinCatalogue): Preset[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => readPreset(join(dir, f), catalogue));
}

/** The one-line formula a preset implements, rendered from its method plan (never stored). */
export function presetFormula(preset: Preset, catalogue: MethodCatalogue = builtinCatalogue): string {
  return describeMethod(planMethod(mergeConfig(defaultConfig, { ...preset.config, method: { name: preset.name } }), catalogue));
}

/** Canonical form of a method name for matching: lower case, `*` → `-star`, `+`/space/underscore → `-`. */
export function canonicalName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\*/g, "-star")
    .replace(/[+\s_/]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
}

/**
 * The preset called `name` (its file name or any alias, matched case-insensitively after
 * `canonicalName`), or a `UsageError` listing the presets.
 * @example findPreset("Skill-GRPO*").name // "skill-grpo-star"
 */
export function findPreset(name: string, dir: string = CONFIG_DIR, catalogue: MethodCatalogue = builtinCatalogue): Preset {
  const want = canonicalName(name);
  const presets = listPresets(dir, catalogue);
  const hit = presets.find((p) => canonicalName(p.name) === want || p.aliases.some((a) => canonicalName(a) === want));
  if (hit === undefined) {
    const names = presets.flatMap((p) => [p.name, ...p.aliases.map(canonicalName)]);
    const near = closest(want, names);
    const preset = near === undefined ? undefined : presets.find((p) => p.name === near || p.aliases.some((a) => canonicalName(a) === near));
    throw new UsageError(`unknown preset '${name}'${preset === undefined ? "" : ` (did you mean '${preset.name}'?)`}; presets: ${presets.map((p) => p.name).join(", ")}`);
  }
  return hit;
}

/** A mode overlay (`configs/modes/<name>.json`), e.g. `quick`. */
export function readMode(name: string, dir: string = CONFIG_DIR): Preset {
  const path = join(dir, "modes", `${name}.json`);
  if (!existsSync(path)) throw new UsageError(`unknown mode '${name}' (no ${path})`);
  return readPreset(path);
}

/** What `resolveConfig` merges, in order. */
export type ConfigSources = {
  /** Preset name or alias. @default "seed" */
  readonly preset?: string;
  /** Apply the `quick` overlay (tiny model and games, 2 updates). */
  readonly quick?: boolean;
  /** A user JSON file: a partial config, or a preset-shaped object with a `config` field. */
  readonly file?: string;
  /** Dotted overrides, `--a.b=v` or `a.b=v`. */
  readonly overrides?: readonly string[];
  /** Folder of the presets (and of `modes/`). @default the shipped `configs/` */
  readonly dir?: string;
  /** Catalogues the config's term and estimator names are checked against. @default the built-in ones */
  readonly catalogue?: MethodCatalogue;
};

/**
 * The resolved, validated config. Throws one `ConfigError` with every issue (of the user file,
 * of the overrides and of the merged result) at once.
 * @example resolveConfig({ preset: "grpo", overrides: ["--grpo.std=bessel"] }).grpo.std // "bessel"
 */
export function resolveConfig(sources: ConfigSources = {}): SeedConfig {
  const dir = sources.dir ?? CONFIG_DIR;
  const catalogue = sources.catalogue ?? builtinCatalogue;
  const preset = findPreset(sources.preset ?? "seed", dir, catalogue);
  let config = mergeConfig(defaultConfig, preset.config);
  config = mergeConfig(config, { method: { name: preset.name } });
  if (sources.quick) config = mergeConfig(config, readMode("quick", dir).config);
  const issues: ConfigIssue[] = [];
  if (sources.file !== undefined) {
    const raw = readJson(sources.file) as Record<string, unknown>;
    const partial = typeof raw === "object" && raw !== null && "config" in raw && typeof raw["config"] === "object" ? raw["config"] : raw;
    const fileIssues = shapeIssues(partial, defaultConfig, "", catalogue);
    issues.push(...fileIssues.map((i) => ({ path: `${sources.file}: ${i.path}`, message: i.message })));
    if (fileIssues.length === 0) config = mergeConfig(config, partial);
  }
  const parsed = parseOverrideArgs(sources.overrides ?? []);
  const { patch, issues: overrideIssues } = overridesToPatch(parsed.overrides);
  issues.push(...parsed.issues, ...overrideIssues);
  config = mergeConfig(config, patch);
  issues.push(...validateConfig(config, catalogue));
  if (issues.length > 0) throw new ConfigError(dedupe(issues));
  return config;
}

function dedupe(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\n${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
