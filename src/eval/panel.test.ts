// Evaluation panels: every benchmark's task list is a pure function of (benchmark, split, count,
// seed), unaffected by the order a file system lists a data folder in, and its hash is in every
// result (the eval JSON, hence run and experiment records) and in the report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaultConfig, mergeConfig, type SeedConfig } from "../config/config.ts";
import { benchmarkJson, evalSuite, type BenchmarkResult } from "./benchmark.ts";
import type { ExperimentData } from "./experiment-results.ts";
import { describePanel, panelHash, selectPanel } from "./panel.ts";
import { panelNote } from "./report.ts";
import type { TaskSpec } from "../envs/env.ts";

const SEARCH = resolve("../shared/data/search-qa");
const WEBSHOP = resolve("../shared/data/webshop");
const config = (name: string): SeedConfig => mergeConfig(defaultConfig, { env: { name } });
const hashOf = (name: string, split: string, options: Parameters<typeof evalSuite>[2] = {}): string => panelHash(evalSuite(config(name), split, options).tasks);

test("every benchmark's panel is the same on every call, and a seeded draw is a function of its seed", () => {
  for (const [name, split] of [["alfworld", "valid_seen"], ["webshop", "test"], ["search", "test"], ["sokoban", "validation"], ["ezpoints", "validation"]] as const) {
    if (name !== "sokoban" && name !== "ezpoints") assert.equal(hashOf(name, split), hashOf(name, split), name);
    assert.equal(hashOf(name, split, { count: 10 }), hashOf(name, split, { count: 10 }), name);
    // Levels and hands are made per seed index: a panel seed changes nothing there.
    if (name === "sokoban" || name === "ezpoints") assert.equal(hashOf(name, split, { count: 10, panelSeed: 5 }), hashOf(name, split, { count: 10 }), name);
  }
  const all = evalSuite(config("webshop"), "test").tasks;
  const drawn = evalSuite(config("webshop"), "test", { count: 20, panelSeed: 3 });
  assert.equal(drawn.tasks.length, 20);
  assert.equal(drawn.panelSeed, 3);
  assert.equal(panelHash(drawn.tasks), hashOf("webshop", "test", { count: 20, panelSeed: 3 }));
  assert.notEqual(panelHash(drawn.tasks), hashOf("webshop", "test", { count: 20, panelSeed: 4 }));
  assert.notEqual(panelHash(drawn.tasks), hashOf("webshop", "test", { count: 20 }));
  // Drawn tasks keep split order.
  const positions = drawn.tasks.map((t) => all.findIndex((a) => a.id === t.id));
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
});

test("selectPanel: the first n, or n distinct tasks drawn by seed in split order; the whole split when n covers it", () => {
  const tasks: TaskSpec[] = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, split: "s", payload: { i } }));
  assert.deepEqual(selectPanel(tasks, 3).map((t) => t.id), ["t0", "t1", "t2"]);
  const a = selectPanel(tasks, 10, 7);
  assert.equal(new Set(a.map((t) => t.id)).size, 10);
  assert.deepEqual(a, selectPanel(tasks, 10, 7));
  assert.notDeepEqual(a.map((t) => t.id), selectPanel(tasks, 10, 8).map((t) => t.id));
  assert.equal(selectPanel(tasks, 80, 7).length, 50);
  assert.throws(() => selectPanel(tasks, 0), /positive integer/);
});

test("the hash covers ids and payloads, whatever the key order of a payload", () => {
  const t = (payload: unknown): TaskSpec => ({ id: "x", split: "s", payload });
  assert.equal(panelHash([t({ a: 1, b: [1, { c: 2, d: 3 }] })]), panelHash([t({ b: [1, { d: 3, c: 2 }], a: 1 })]));
  assert.notEqual(panelHash([t({ a: 1 })]), panelHash([t({ a: 2 })]));
  assert.notEqual(panelHash([t(1), { ...t(1), id: "y" }]), panelHash([{ ...t(1), id: "y" }, t(1)]));
  assert.match(panelHash([]), /^[0-9a-f]{16}$/);
});

test("Search-QA panels do not depend on the order the data folder's files were created (listed) in", { skip: !existsSync(SEARCH) && "no ../shared/data/search-qa" }, () => {
  const files = ["bamboogle_test.json", "nq_test.json", "musique_dev.json"];
  const dirs = [files, [...files].reverse()].map((order) => {
    const dir = mkdtempSync(join(tmpdir(), "panel-"));
    for (const f of order) copyFileSync(join(SEARCH, f), join(dir, f));
    return dir;
  });
  try {
    const [a, b] = dirs.map((data) => evalSuite(config("search"), "all", { data, count: 40, panelSeed: 1 }).tasks);
    assert.equal(a!.length, 40);
    assert.equal(panelHash(a!), panelHash(b!));
    assert.ok(new Set(a!.map((t) => (t.payload as { dataset: string }).dataset)).size > 1, "a seeded draw mixes the sets");
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

test("the real WebShop test panel is fixed", { skip: !existsSync(WEBSHOP) && "no ../shared/data/webshop" }, () => {
  assert.equal(hashOf("webshop", "test", { data: WEBSHOP }), hashOf("webshop", "test", { data: WEBSHOP }));
});

test("the panel is in the eval JSON, and the report says whether runs share it", () => {
  const tasks = evalSuite(config("sokoban"), "validation", { count: 4 }).tasks;
  const panel = describePanel("sokoban", "validation", tasks);
  const result = {
    breakdown: { env: "sokoban", split: "validation", episodes: 4, columns: ["Success"], headline: "Success", metrics: {}, counts: {} },
    summary: {}, decoding: { kind: "greedy" }, seed: 0, trajectories: [], groups: [], panel,
  } as unknown as BenchmarkResult;
  assert.deepEqual(benchmarkJson(result)["panel"], { benchmark: "sokoban", split: "validation", count: 4, seed: null, hash: panelHash(tasks) });
  const run = (hash: string) => ({ evals: { validation: { panel: { ...panel, hash } } } });
  const data = (hashes: string[]) => ({ arms: [{ runs: hashes.map(run) }] }) as unknown as ExperimentData;
  assert.equal(panelNote(data(["aaaa", "aaaa"]), "validation"), "Task panel aaaa.");
  assert.match(panelNote(data(["aaaa", "bbbb"]), "validation"), /differ between runs \(aaaa, bbbb\)/);
});
