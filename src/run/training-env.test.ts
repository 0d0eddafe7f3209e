// Task pools of a training run: cuts of a real ALFWorld split keep every task type (ids sort by
// type, so a prefix would not), and generated pools are the first games of the world.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { writeTinyData } from "../envs/alfworld/test-data.ts";
import { bucketOfPath } from "../envs/alfworld/tasks.ts";
import { defaultConfig } from "../config/config.ts";
import { spreadTasks, trainingEnv } from "./training-env.ts";

const ALFWORLD = resolve("../shared/data/alfworld");

test("spreadTasks takes evenly spaced elements, all of them when the count covers the list", () => {
  assert.deepEqual(spreadTasks([0, 1, 2, 3, 4, 5], 3), [0, 2, 4]);
  assert.deepEqual(spreadTasks([0, 1, 2, 3, 4, 5, 6], 2), [0, 3]);
  assert.deepEqual(spreadTasks([0, 1, 2], 5), [0, 1, 2]);
  assert.deepEqual(spreadTasks([0, 1, 2], 0), []);
});

test("a cut of a real ALFWorld split covers all six task types; the whole split is every game", { skip: !existsSync(ALFWORLD) && "no ../shared/data/alfworld" }, () => {
  const env = trainingEnv({ ...defaultConfig, env: { ...defaultConfig.env, data: ALFWORLD } });
  const cut = env.tasks("valid_seen", 24);
  assert.equal(cut.length, 24);
  assert.equal(new Set(cut.map((t) => bucketOfPath(t.id))).size, 6, cut.map((t) => t.id).join("\n"));
  assert.equal(env.tasks("valid_seen", Number.MAX_SAFE_INTEGER).length, 140);
});

test("generated pools are prefixes: a larger cut starts with the smaller one", () => {
  const env = trainingEnv(defaultConfig);
  assert.deepEqual(env.tasks("train", 8).map((t) => t.id), env.tasks("train", 16).slice(0, 8).map((t) => t.id));
});

test("a real split with no games is a one-line UsageError naming the split and the folder, not an empty pool", (t) => {
  const root = writeTinyData(mkdtempSync(join(tmpdir(), "seed-empty-split-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const env = trainingEnv({ ...defaultConfig, env: { ...defaultConfig.env, data: root } });
  assert.equal(env.tasks("valid_seen", 4).length, 1);
  assert.throws(() => env.tasks("valid_unseen", 4), (e: unknown) => e instanceof UsageError && e.message === `no alfworld tasks in split 'valid_unseen' of ${root}`);
  assert.deepEqual(env.tasks("valid_unseen", 0), []);
});
