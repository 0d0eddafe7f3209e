/**
 * Loaders for the Search-QA question sets: the JSON lists of
 * `{"question", "answer": string | string[]}` (NQ, HotpotQA, MuSiQue, 2Wiki, Bamboogle) and
 * FlashRAG/Search-R1 JSONL rows `{"id", "question", "golden_answers": [...]}`. Questions are
 * normalised as Search-R1 does (trimmed, `?` appended when missing); gold answers always become
 * a list, since EM accepts any of them.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { DataError } from "../../core/errors.ts";
import type { TaskSpec } from "../env.ts";

/** Payload of a Search-QA task. */
export type SearchPayload = {
  readonly question: string;
  /** Gold answers; EM against any of them. */
  readonly answers: readonly string[];
  /** Dataset name (`nq`, `hotpotqa`, ..., `synthetic`). */
  readonly dataset: string;
  /**
   * The fact chain of a generated question, one hop per search: the query an expert sends and
   * the passage id that answers it. Absent for real datasets.
   */
  readonly hops?: readonly { readonly query: string; readonly passageId: string; readonly answer: string }[];
};

/** Search-R1's question form: trimmed, ending in `?`. */
export function normalizeQuestion(q: string): string {
  const t = q.trim();
  return t.endsWith("?") ? t : `${t}?`;
}

function datasetName(path: string): string {
  return basename(path).replace(/\.(jsonl?|json)$/, "").replace(/_(test|dev|train|sample\d*)$/, "");
}

function toTask(dataset: string, split: string, index: number, id: string | undefined, question: unknown, answers: unknown, where: string): TaskSpec {
  if (typeof question !== "string" || question.trim() === "") throw new DataError(`${where}: "question" must be a non-empty string`);
  const list = typeof answers === "string" ? [answers] : answers;
  if (!Array.isArray(list) || list.length === 0 || !list.every((a) => typeof a === "string")) {
    throw new DataError(`${where}: the answer must be a string or a non-empty list of strings`);
  }
  const payload: SearchPayload = { question: normalizeQuestion(question), answers: list as string[], dataset };
  return { id: `${dataset}/${id ?? index}`, split, payload };
}

/**
 * Parse a question set from its text: a JSON list (`answer` string or list) or FlashRAG JSONL
 * (`golden_answers`). `DataError` names the first bad row.
 */
export function parseQaSet(text: string, options: { readonly dataset: string; readonly split?: string; readonly source?: string }): TaskSpec[] {
  const source = options.source ?? options.dataset;
  const split = options.split ?? "test";
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch (e) {
      throw new DataError(`${source}: not valid JSON (${(e as Error).message})`);
    }
    if (!Array.isArray(rows)) throw new DataError(`${source}: expected a JSON list of {"question", "answer"}`);
    return rows.map((row: unknown, i) => {
      const r = (row ?? {}) as Record<string, unknown>;
      return toTask(options.dataset, split, i, undefined, r["question"], r["answer"] ?? r["golden_answers"], `${source}[${i}]`);
    });
  }
  const tasks: TaskSpec[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new DataError(`${source}:${i + 1}: not a JSON object`);
    }
    const id = typeof r["id"] === "string" || typeof r["id"] === "number" ? String(r["id"]) : undefined;
    tasks.push(toTask(options.dataset, split, tasks.length, id, r["question"], r["golden_answers"] ?? r["answer"], `${source}:${i + 1}`));
  });
  return tasks;
}

/**
 * Load a question set file; the dataset name defaults to the file name without its split suffix
 * (`nq_test.json` is `nq`).
 * @example loadQaSet("../shared/data/search-qa/bamboogle_test.json").length // 125
 */
export function loadQaSet(path: string, options: { readonly dataset?: string; readonly split?: string } = {}): TaskSpec[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new DataError(`cannot read question set ${path}: ${(e as Error).message}`);
  }
  return parseQaSet(text, { dataset: options.dataset ?? datasetName(path), source: path, ...(options.split ? { split: options.split } : {}) });
}
