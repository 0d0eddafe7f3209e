import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregate, type Aggregate } from "./aggregate.ts";
import type { Breakdown } from "./breakdown.ts";
import { ablationTable, benchmarkTitle, fixed, formatEstimate, markdownTable, resultsTable } from "./tables.ts";

const types = ["Pick", "Look", "Clean", "Heat", "Cool", "Pick2", "All"];
function agg(values: number[], seeds = 1): Aggregate {
  const bd = (shift: number): Breakdown => ({
    env: "alfworld", split: "valid_seen", episodes: 140, columns: types, headline: "All", counts: {},
    metrics: Object.fromEntries(types.map((t, i) => [t, { value: values[i]! + shift, low: values[i]! + shift - 0.05, high: values[i]! + shift + 0.05, n: 140, interval: "wilson" as const }])),
  });
  return aggregate(Array.from({ length: seeds }, (_, s) => bd(0.01 * (s - (seeds - 1) / 2))));
}

test("estimates print as percentages with their interval", () => {
  assert.equal(formatEstimate({ value: 0.4521, low: 0.41, high: 0.4934, n: 3, interval: "t" }), "45.2 [41.0, 49.3]");
  assert.equal(formatEstimate({ value: 0.5, low: Number.NaN, high: Number.NaN, n: 1, interval: "none" }), "50.0");
  assert.equal(formatEstimate(undefined), "–");
  assert.equal(fixed(null), "–");
  assert.equal(benchmarkTitle("alfworld/real:valid_unseen"), "ALFWorld unseen (real games)");
});

test("markdown tables: header, alignment row, one line per row, pipes escaped", () => {
  const t = markdownTable(["Method", "All"], [["a|b", "1.0"]]);
  assert.deepEqual(t.split("\n"), ["| Method | All |", "|:---|---:|", "| a\\|b | 1.0 |"]);
});

test("Table 1 layout: methods x (Pick ... Pick2, All), and the interval note says what it is over", () => {
  const rows = [
    { method: "GRPO", results: { "alfworld/valid_seen": agg([0.9, 0.6, 0.9, 0.6, 0.6, 0.5, 0.7], 3) } },
    { method: "SEED", results: { "alfworld/valid_seen": agg([1, 1, 1, 1, 0.7, 0.8, 0.9], 3) } },
  ];
  const md = resultsTable(rows);
  const lines = md.split("\n");
  assert.match(lines[0]!, /ALFWorld seen/);
  assert.equal(lines[2], "| Method | Pick | Look | Clean | Heat | Cool | Pick2 | All |");
  assert.match(lines[5]!, /^\| SEED \| 100\.0 \[/);
  assert.match(md, /Mean over 3 seeds; brackets: 95% Student-t interval over seeds/);
  const single = resultsTable([{ method: "SEED", results: { "alfworld/valid_seen": agg([1, 1, 1, 1, 0.7, 0.8, 0.9]) } }]);
  assert.match(single, /One training seed; brackets: 95% interval over evaluation episodes/);
});

test("ablation table: the headline of each variant and its difference from the full method", () => {
  const md = ablationTable([
    { variant: "SEED", result: agg([1, 1, 1, 1, 1, 1, 0.918]) },
    { variant: "w/o SFT", result: agg([1, 1, 1, 1, 1, 1, 0.86]) },
    { variant: "not run", result: undefined },
  ]);
  const lines = md.split("\n");
  assert.equal(lines[0], "| Variant | All | Δ vs full |");
  assert.match(lines[2]!, /^\| SEED \| 91\.8 \[86\.8, 96\.8\] \|  \|$/);
  assert.match(lines[3]!, /\| -5\.8 \|$/);
  assert.match(lines[4]!, /^\| not run \| – \|  \|$/);
});

test("Table 1 for Search-QA labels an average over the present sets and names the absent ones", () => {
  const cols = ["NQ", "HotpotQA", "2Wiki", "MuSiQue", "Bamboogle", "Avg"];
  const bd: Breakdown = {
    env: "search", split: "test", episodes: 500, columns: cols, headline: "Avg", counts: {},
    metrics: Object.fromEntries(cols.map((c) => [c, { value: 0.3, low: 0.25, high: 0.35, n: 100, interval: "wilson" as const }])),
  };
  const md = resultsTable([{ method: "SEED", results: { "search/test": aggregate([bd]) } }]);
  assert.ok(md.includes("| Method | NQ | HotpotQA | 2Wiki | MuSiQue | Bamboogle | Avg (5 sets) |"), md);
  assert.ok(md.includes("not the paper's seven: TriviaQA, PopQA absent"), md);
});
