import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregate } from "./aggregate.ts";
import type { Breakdown } from "./breakdown.ts";
import { compareArms, verdictLines, type Comparison } from "./demo.ts";
import type { ArmResults, ExperimentData } from "./experiment-results.ts";
import type { EvalRecord, RunData } from "./run-data.ts";

/** One evaluation of 40 tasks on one column: the first `wins` succeed (WebShop: score 1, the rest 0.5). */
function record(env: "webshop" | "search", wins: number): EvalRecord {
  const outcomes: number[] = Array.from({ length: 40 }, (_, i) => (i < wins ? 1 : env === "webshop" ? 0.5 : 0));
  const groups = outcomes.map(() => (env === "webshop" ? "all" : "synthetic"));
  const e = (v: number) => ({ value: v, low: v, high: v, n: 40, interval: "wilson" as const });
  const rate = wins / 40, score = outcomes.reduce((a, b) => a + b, 0) / 40;
  const b: Breakdown = env === "webshop"
    ? { env, split: "test", episodes: 40, columns: ["Score", "Success"], headline: "Success", counts: {}, metrics: { Score: e(score), Success: e(rate) } }
    : { env, split: "test", episodes: 40, columns: ["synthetic", "Avg"], headline: "Avg", counts: { synthetic: 40 }, metrics: { synthetic: e(rate), Avg: e(rate) } };
  return { ...b, update: 5, success_rate: rate, mean_length: 0, valid_action_rate: 1, seconds: 1, outcomes, task_groups: groups, task_ids: outcomes.map((_, i) => `t${i}`) };
}

function arm(env: "webshop" | "search", name: string, preset: string, wins: number[]): ArmResults {
  const runs = wins.map((w, i) => ({ dir: `/x/${name}/s${i + 1}`, name, config: { run: { seed: i + 1 } }, metrics: [], samples: [], evals: { test: record(env, w) }, tokenizerPath: null }) as unknown as RunData);
  const recs = runs.map((r) => r.evals["test"]!);
  return { name, slug: name, preset, runs, seeds: [1, 2, 3].slice(0, wins.length), skipped: [], gateValue: [], secondsPerUpdate: {},
    tieRate: { value: Number.NaN, low: Number.NaN, high: Number.NaN, n: 0, interval: "none" },
    evals: { test: aggregate(recs, recs.map((r) => ({ outcomes: r["outcomes"] as number[], groups: r["task_groups"] as string[] }))) } };
}

function verdict(env: "webshop" | "search"): [string, string, string] {
  const arms = [arm(env, "SEED", "seed", [20, 21, 22]), arm(env, "GRPO", "grpo", [10, 11, 12]), arm(env, "GRPO (from SFT)", "grpo", [19, 21, 23]), arm(env, "Vanilla", "vanilla", [30, 31, 32])];
  const data: ExperimentData = { dir: "/x", name: "fixture", summary: "", question: "", table: "results", splits: ["test"], arms, manifest: null };
  const [seed, grpo, sft, vanilla] = arms as [ArmResults, ArmResults, ArmResults, ArmResults];
  const columns = env === "webshop" ? ["Success", "Score"] : [undefined];
  const comparisons: Comparison[] = [
    ...columns.map((col) => ({ ...compareArms(seed, grpo, "test", 0, col)!, against: "GRPO" })),
    { ...compareArms(seed, sft, "test", 0)!, against: "GRPO (from SFT)" },
    { ...compareArms(seed, vanilla, "test", 0)!, against: "Vanilla" },
  ];
  return verdictLines(comparisons, data);
}

test("WebShop verdict: success and score with the untrained base's values; calls against GRPO, GRPO (from SFT) and no training", () => {
  const [success, score, call] = verdict("webshop");
  assert.match(success, /^WebShop \(40 goals, success %\): SEED 52\.5 .* vs GRPO 27\.5 .*, before training 77\.5 .*; SEED − GRPO = \+25\.0 pts/);
  assert.match(score, /\(40 goals, score %\): .*, before training \d/);
  assert.match(call, /^Verdict on WebShop success: SEED better than GRPO; no difference resolved vs GRPO \(from SFT\); no training \(Vanilla\) better than SEED \(95% intervals; Student-t over 3 training seeds/);
});

test("Search-QA verdict: the untrained base's EM on the first line and a call against no training", () => {
  const [first, second, call] = verdict("search");
  assert.match(first, /^Search-QA, generated test \(40 questions, exact match %\): SEED 52\.5 .* vs GRPO 27\.5 .*, before training 77\.5 /);
  assert.match(second, /vs GRPO \(from SFT\) 52\.5 /);
  assert.doesNotMatch(second, /before training/);
  assert.match(call, /^Verdict: SEED better than GRPO; no difference resolved vs GRPO \(from SFT\); no training \(Vanilla\) better than SEED .*wiki-18/);
});
