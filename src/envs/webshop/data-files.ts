/**
 * Readers for the real WebShop files: the product catalogue
 * (`items_shuffle_1000.json` or any file of the same schema), the annotated human instructions
 * (`items_human_ins.json`), the attribute/instruction file upstream calls `items_ins_v2*.json`
 * (not shipped; accepted when a user has it), the 12,087 plain human instructions
 * (`human_goals.json`) and the instruction → human queries map (`goal_query_map.json`).
 * Every problem is a `DataError` naming the file. Nothing here is needed by the defaults.
 */
import { DataError } from "../../core/errors.ts";
import { readJsonFile as readJsonWith } from "../../core/fs.ts";
import { cleanProducts, type CleanOptions } from "./catalog.ts";
import type { HumanInstruction, ProductInstruction } from "./goals.ts";
import type { Product } from "./types.ts";

/** Read and parse a JSON file; a problem is a `DataError` naming the file. */
export function readJsonFile(path: string): unknown {
  return readJsonWith(path, {
    unreadable: (p, reason, cause) => new DataError(`${p}: cannot read (${reason})`, { cause }),
    invalid: (p, reason, cause) => new DataError(`${p}: not valid JSON (${reason})`, { cause }),
  });
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

function objectOf(path: string, data: unknown, what: string): Record<string, unknown> {
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new DataError(`${path}: expected ${what}`);
  return data as Record<string, unknown>;
}

/** Load a catalogue file (JSON list of raw products) with WebShop's cleaning rules. */
export function loadCatalogFile(path: string, options: CleanOptions = {}): Product[] {
  const data = readJsonFile(path);
  if (!Array.isArray(data)) throw new DataError(`${path}: expected a JSON list of products`);
  try {
    return cleanProducts(data, options);
  } catch (e) {
    if (e instanceof DataError) throw new DataError(`${path}: ${e.message}`, { cause: e });
    throw e;
  }
}

/** Load `items_human_ins.json`: ASIN → its annotated human instructions. */
export function loadHumanInstructionsFile(path: string): Map<string, HumanInstruction[]> {
  const data = objectOf(path, readJsonFile(path), "an object keyed by ASIN");
  const out = new Map<string, HumanInstruction[]>();
  for (const [asin, list] of Object.entries(data)) {
    if (!Array.isArray(list)) throw new DataError(`${path}: entry ${asin} is not a list`);
    out.set(asin, list.map((r: unknown, i) => {
      const rec = objectOf(path, r, `records under ${asin}`);
      const instruction = rec["instruction"];
      const attrs = rec["instruction_attributes"];
      const opts = rec["instruction_options"];
      if (typeof instruction !== "string" || !isStringList(attrs) || !isStringList(opts)) {
        throw new DataError(`${path}: ${asin}[${i}] needs 'instruction' (string), 'instruction_attributes' and 'instruction_options' (string lists)`);
      }
      const productAttributes = isStringList(rec["attributes"]) ? rec["attributes"] : [];
      return { asin: typeof rec["asin"] === "string" ? rec["asin"] : asin, instruction, instructionAttributes: attrs, instructionOptions: opts, productAttributes };
    }));
  }
  return out;
}

/**
 * Load an upstream `items_ins_v2`-style file: ASIN → `{ attributes, instruction,
 * instruction_attributes }`. Returns the product attributes and the synthetic instructions.
 */
export function loadAttributesFile(path: string): { attributes: Map<string, string[]>; instructions: Map<string, ProductInstruction> } {
  const data = objectOf(path, readJsonFile(path), "an object keyed by ASIN");
  const attributes = new Map<string, string[]>();
  const instructions = new Map<string, ProductInstruction>();
  for (const [asin, v] of Object.entries(data)) {
    const rec = objectOf(path, v, `an object under ${asin}`);
    if (isStringList(rec["attributes"])) attributes.set(asin, rec["attributes"]);
    const ins = rec["instruction"];
    const insAttrs = rec["instruction_attributes"];
    if (typeof ins === "string" && isStringList(insAttrs) && insAttrs.length > 0) instructions.set(asin, { instruction: ins, attributes: insAttrs });
  }
  return { attributes, instructions };
}

/** Load `human_goals.json`: the list of plain human instruction strings. */
export function loadHumanGoalTexts(path: string): string[] {
  const data = readJsonFile(path);
  if (!isStringList(data)) throw new DataError(`${path}: expected a JSON list of strings`);
  return data;
}

/** Load `goal_query_map.json`: instruction → the search queries humans typed for it. */
export function loadGoalQueryMap(path: string): Map<string, string[]> {
  const data = objectOf(path, readJsonFile(path), "an object mapping instructions to query lists");
  const out = new Map<string, string[]>();
  for (const [k, v] of Object.entries(data)) {
    if (!isStringList(v)) throw new DataError(`${path}: queries of '${k.slice(0, 60)}' are not a list of strings`);
    out.set(k, v);
  }
  return out;
}
