/**
 * Markdown tables laid out like the paper's: Table 1 (methods x benchmark columns: ALFWorld's six
 * task types and All, WebShop's Score and Success, Search-QA's datasets and Avg) and Table 2 (the
 * ablations: one headline number per variant and its difference from the full method). Each cell
 * is a percentage with its 95% interval; a note under the table says what the interval is over
 * (seeds or episodes). Plain strings: the HTML report renders the same rows itself.
 */
import { SEARCH_DATASETS, searchAverageNote, type Estimate } from "./breakdown.ts";
import type { Aggregate } from "./aggregate.ts";

/** Benchmark titles of result keys `env/split`. */
const TITLES: Readonly<Record<string, string>> = {
  "alfworld/valid_seen": "ALFWorld seen",
  "alfworld/valid_unseen": "ALFWorld unseen",
  "alfworld/train": "ALFWorld train",
  "webshop/test": "WebShop",
  "search/all": "Search-QA",
  "search/test": "Search-QA",
};

/** The title of a result key (`alfworld/valid_seen` → `ALFWorld seen`). */
export function benchmarkTitle(key: string): string {
  const real = /^alfworld\/real:(.+)$/.exec(key);
  if (real) return `${TITLES[`alfworld/${real[1]}`] ?? key} (real games)`;
  return TITLES[key] ?? key;
}

/** A rate as a percentage with one decimal; `–` when missing. */
export function pct(x: number | undefined, digits = 1): string {
  return x === undefined || !Number.isFinite(x) ? "–" : (100 * x).toFixed(digits);
}

/** A number with fixed decimals; `–` for null, NaN or infinities (JSON turns NaN into null). */
export function fixed(x: number | null | undefined, digits = 3): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–";
}

/** A correlation-like estimate as `0.123 [0.010, 0.240]` (not a percentage). */
export function formatPlain(e: { value: number; low: number; high: number } | undefined, digits = 3): string {
  if (e === undefined) return "–";
  return `${fixed(e.value, digits)} [${fixed(e.low, digits)}, ${fixed(e.high, digits)}]`;
}

/** `45.2 [41.0, 49.3]`, or just `45.2` without an interval. */
export function formatEstimate(e: Estimate | undefined, digits = 1): string {
  if (e === undefined || !Number.isFinite(e.value)) return "–";
  if (!Number.isFinite(e.low) || !Number.isFinite(e.high)) return pct(e.value, digits);
  return `${pct(e.value, digits)} [${pct(e.low, digits)}, ${pct(e.high, digits)}]`;
}

/** A markdown table from a header and rows of cells (pipes in cells escaped). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly ("l" | "r")[] = []): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  const line = (cells: readonly string[]) => `| ${cells.map(esc).join(" | ")} |`;
  const rule = `|${header.map((_, i) => ((align[i] ?? (i === 0 ? "l" : "r")) === "r" ? "---:" : ":---")).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** One row of Table 1: a method and its results by benchmark key (`alfworld/valid_seen`, ...). */
export type MethodRow = {
  readonly method: string;
  readonly results: Readonly<Record<string, Aggregate | undefined>>;
};

/** What the intervals of a set of aggregates are over, in words. */
export function intervalNote(aggs: readonly (Aggregate | undefined)[]): string {
  const present = aggs.filter((a): a is Aggregate => a !== undefined);
  const seeds = [...new Set(present.map((a) => a.seeds))].sort((a, b) => a - b);
  if (present.length === 0) return "";
  const union = present.some((a) => Object.values(a.metrics).some((e) => e.interval === "t+bootstrap"));
  if (seeds.every((s) => s > 1) && union) return `Mean over ${seeds.join("/")} seeds, each evaluated with its own evaluation seed; brackets: the union of the 95% Student-t interval over seeds, a 95% bootstrap over seeds and the games within each task type, and (per type) the Wilson interval of the pooled games: never narrower than any of them.`;
  if (seeds.every((s) => s > 1)) return `Mean over ${seeds.join("/")} seeds; brackets: 95% Student-t interval over seeds.`;
  if (seeds.every((s) => s === 1)) return "One training seed; brackets: 95% interval over evaluation episodes (Wilson for rates; averages over types or datasets: Jeffreys posteriors per group; mean scores: bootstrap).";
  return "Brackets: 95% interval over seeds (t) where a method has several seeds, over evaluation episodes where it has one.";
}

/**
 * Table 1: methods x (benchmark, column). `keys` fixes the benchmark order (default: every key
 * present, in first-seen order); each benchmark contributes all of its columns.
 */
export function resultsTable(rows: readonly MethodRow[], keys?: readonly string[]): string {
  const order = keys ?? [...new Set(rows.flatMap((r) => Object.keys(r.results)))];
  const columns = order.map((k) => {
    const cols = new Set<string>();
    for (const r of rows) for (const c of r.results[k]?.columns ?? []) cols.add(c);
    return { key: k, cols: [...cols] };
  });
  const multi = columns.length > 1;
  // A Search-QA average over fewer than the paper's seven sets is labelled with its set count.
  const notes = new Map(columns.flatMap(({ key, cols }) => {
    const note = key.startsWith("search/") ? searchAverageNote(cols.filter((c) => c !== "Avg")) : undefined;
    return note ? [[key, { note, sets: cols.filter((c) => c !== "Avg" && SEARCH_DATASETS.some(([, l]) => l === c)).length }] as const] : [];
  }));
  const label = (key: string, c: string): string => (c === "Avg" && notes.has(key) ? `Avg (${notes.get(key)!.sets} sets)` : c);
  const header = ["Method", ...columns.flatMap(({ key, cols }) => cols.map((c) => (multi ? `${benchmarkTitle(key)} ${label(key, c)}` : label(key, c))))];
  const body = rows.map((r) => [r.method, ...columns.flatMap(({ key, cols }) => cols.map((c) => formatEstimate(r.results[key]?.metrics[c])))]);
  const first = order[0] ?? "";
  const what = first.startsWith("alfworld/") ? "success %, per task type; All = macro average over types" : first.startsWith("search/") ? "exact match %, per dataset; Avg = mean over datasets" : first.startsWith("webshop/") ? "score and success, %" : "success %";
  const title = multi ? "" : `**${benchmarkTitle(first)}** (${what})\n\n`;
  const note = intervalNote(rows.flatMap((r) => order.map((k) => r.results[k])));
  const sets = [...notes.values()].map((n) => `${n.note}.`).filter((n, i, all) => all.indexOf(n) === i);
  return `${title}${markdownTable(header, body)}\n\n${note}${sets.length > 0 ? `\n\n${sets.join("\n\n")}` : ""}`;
}

/** One row of the ablation table. */
export type AblationRow = { readonly variant: string; readonly result: Aggregate | undefined };

/**
 * Table 2: the headline column of each variant and its difference from the first row (the full
 * method), in percentage points. The difference is of means; its interval is not shown because
 * variants do not share evaluation episodes or seeds in a paired way unless run so.
 */
export function ablationTable(rows: readonly AblationRow[], column?: string): string {
  const ref = rows[0]?.result;
  const col = column ?? ref?.headline ?? "All";
  const refValue = ref?.metrics[col]?.value;
  const body = rows.map((r, i) => {
    const e = r.result?.metrics[col];
    const delta = i === 0 || e === undefined || refValue === undefined || !Number.isFinite(e.value) ? "" : `${e.value >= refValue ? "+" : ""}${(100 * (e.value - refValue)).toFixed(1)}`;
    return [r.variant, formatEstimate(e), delta];
  });
  return `${markdownTable(["Variant", col, "Δ vs full"], body)}\n\n${intervalNote(rows.map((r) => r.result))}`;
}
