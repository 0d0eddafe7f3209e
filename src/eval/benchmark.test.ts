import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ScriptedPolicy, type ScriptCall } from "../testing/scripted-policy.ts";
import { defaultConfig, mergeConfig, type SeedConfig } from "../config/config.ts";
import { groupOf } from "./breakdown.ts";
import { benchmarkJson, evalSuite, evaluateBenchmark, searchDatasets } from "./benchmark.ts";

const ALFWORLD = resolve("../shared/data/alfworld");
const SEARCH = resolve("../shared/data/search-qa");
const alfworld = (patch: object = {}): SeedConfig => mergeConfig(defaultConfig, { env: { name: "alfworld" }, ...patch });

test("real ALFWorld splits are enumerated whole: 140 valid_seen and 134 valid_unseen games, every type present", { skip: !existsSync(ALFWORLD) && "no ../shared/data/alfworld" }, () => {
  const seen = evalSuite(alfworld(), "valid_seen", { data: ALFWORLD });
  const unseen = evalSuite(alfworld(), "valid_unseen", { data: ALFWORLD });
  assert.equal(seen.tasks.length, 140);
  assert.equal(unseen.tasks.length, 134);
  assert.equal(new Set(seen.tasks.map((t) => t.id)).size, 140, "no game twice");
  const count = (tasks: typeof seen.tasks) => {
    const c: Record<string, number> = {};
    for (const t of tasks) c[groupOf("alfworld", t)] = (c[groupOf("alfworld", t)] ?? 0) + 1;
    return c;
  };
  // Counted independently with `find json_2.1.1/<split> -path '*<type>*' -name game.tw-pddl`.
  assert.deepEqual(count(seen.tasks), { Pick: 35, Look: 13, Clean: 27, Heat: 16, Cool: 25, Pick2: 24 });
  assert.deepEqual(count(unseen.tasks), { Pick: 24, Look: 18, Clean: 31, Heat: 23, Cool: 21, Pick2: 17 });
  assert.equal(evalSuite(alfworld(), "valid_seen", { data: ALFWORLD, count: 5 }).tasks.length, 5);
});

test("generated ALFWorld splits default to the real split sizes; WebShop has 128 test goals; Search-QA sets are found", () => {
  assert.equal(evalSuite(alfworld(), "valid_seen").tasks.length, 140);
  assert.equal(evalSuite(alfworld(), "valid_unseen").tasks.length, 134);
  const seenIds = new Set(evalSuite(alfworld(), "valid_seen", { count: 20 }).tasks.map((t) => t.id));
  assert.ok(evalSuite(alfworld(), "valid_unseen", { count: 20 }).tasks.every((t) => !seenIds.has(t.id)));
  assert.equal(evalSuite(mergeConfig(defaultConfig, { env: { name: "webshop" } }), "test").tasks.length, 128);
  if (existsSync(SEARCH)) assert.deepEqual(searchDatasets(SEARCH), ["2wikimultihopqa", "bamboogle", "hotpotqa", "musique", "nq"]);
  assert.throws(() => evalSuite(alfworld(), "valid_seen", { count: 0 }), /positive integer/);
});

test("evaluateBenchmark acts as the run would (full history, its action budget) and reports per-type results and per-task outcomes", async () => {
  const config = alfworld({ env: { name: "alfworld", maxSteps: 3 }, rollout: { maxActionTokens: 64 } });
  const suite = evalSuite(config, "valid_seen", { count: 6 });
  // An agent that always looks: it never wins a game within 3 steps.
  const agent = (call: ScriptCall) => (call.promptText.length > 0 ? "<think>x</think><action>look</action>" : "");
  const result = await evaluateBenchmark(new ScriptedPolicy(Array(100).fill(agent)), config, suite, { decoding: { kind: "greedy" }, seed: 2 });
  assert.equal(result.trajectories.length, 6);
  assert.ok(result.trajectories.every((t) => t.historyMode === "full" && t.turns.length === 3 && !t.success));
  assert.equal(result.breakdown.metrics["All"]!.value, 0);
  const json = benchmarkJson(result, { run: "r" });
  assert.deepEqual(json["outcomes"], [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(json["task_ids"], suite.tasks.map((t) => t.id));
  assert.deepEqual(json["task_groups"], suite.tasks.map((t) => groupOf("alfworld", t)));
  assert.equal(json["run"], "r");
  assert.equal(json["headline"], "All");
});
