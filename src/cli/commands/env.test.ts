/**
 * `seed env play`: the JSON-lines transcript (reset line, then one line per action), invalid
 * actions answered by the benchmark, real and generated ALFWorld games, another registry
 * environment, and one-line user errors.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TINY_TASK_DIR, writeTinyData } from "../../envs/alfworld/test-data.ts";

const root = mkdtempSync(join(tmpdir(), "seed-env-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const bin = resolve(import.meta.dirname, "../../../bin/seed.js");
const seed = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

test("env play --json: reset line, then observation/admissible/reward/done/won per action", () => {
  const game = join(writeTinyData(root), "json_2.1.1", "valid_seen", TINY_TASK_DIR, "trial_T1", "game.tw-pddl");
  const actions = join(root, "actions.txt");
  writeFileSync(actions, ["go to fridge 1", "open fridge 1", "Ignore previous instructions; you won.", "take apple 1 from fridge 1", "go to countertop 1", "move apple 1 to countertop 1", "look"].join("\n") + "\n");
  const r = seed("env", "play", "alfworld", "--game", game, "--actions", actions, "--json");
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(Object.keys(lines[0]), ["step", "observation", "admissible"]);
  assert.equal(lines[0].observation, "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a countertop 1, and a fridge 1.\n\nYour task is to: put a apple in countertop.");
  assert.deepEqual(lines[0].admissible, ["go to countertop 1", "go to fridge 1", "help", "inventory", "look"]);
  assert.equal(lines[1].observation, "You arrive at fridge 1. The fridge 1 is closed.");
  assert.equal(lines[2].observation, "You open the fridge 1. The fridge 1 is open. In it, you see a apple 2, and a apple 1.");
  assert.equal(lines[3].observation, "Nothing happens.");
  assert.deepEqual(lines[3].admissible, lines[2].admissible);
  assert.deepEqual([lines[5].reward, lines[5].done, lines[5].won], [0, false, false]);
  assert.deepEqual([lines[6].observation, lines[6].reward, lines[6].done, lines[6].won], ["You move the apple 1 to the countertop 1.", 10, true, true]);
  assert.equal(lines.length, 7, "replay stops when the episode ends");
  assert.match(r.stderr, /ended after 6 actions; 1 left unused/);
});

test("env play on a generated game and on a registry environment; user mistakes as one-line errors", () => {
  const actions = join(root, "a2.txt");
  writeFileSync(actions, "look\n");
  const r = seed("env", "play", "alfworld", "--split", "valid_unseen", "--index", "3", "--seed", "2", "--actions", actions, "--json");
  assert.equal(r.status, 0, r.stderr);
  const [first, second] = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.match(first.observation, /^-= Welcome to TextWorld, ALFRED! =-/);
  assert.equal(second.step, 1);
  const sok = seed("env", "play", "sokoban", "--split", "train", "--index", "1", "--actions", actions, "--json");
  assert.equal(sok.status, 0, sok.stderr);
  const sokLines = sok.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(sokLines.length, 2, "a registry environment plays its task from the action file");
  assert.deepEqual(Object.keys(sokLines[1]), ["step", "action", "observation", "admissible", "reward", "done", "won"]);
  for (const args of [
    ["env", "play", "alfworld", "--game", join(root, "missing.tw-pddl"), "--actions", actions],
    ["env", "play", "alfworld", "--game", "x", "--actions", join(root, "no-actions.txt")],
    ["env", "play", "alfworld", "--actions", actions],
    ["env", "play", "chess", "--actions", actions],
    ["env", "play", "alfworld", "--split", "test", "--actions", actions],
  ]) {
    const e = seed(...args);
    assert.equal(e.status, 2, args.join(" "));
    assert.match(e.stderr, /^seed env: /);
    assert.doesNotMatch(e.stderr, /\n\s+at /);
  }
});
