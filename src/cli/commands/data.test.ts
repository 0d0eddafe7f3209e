/**
 * `seed data check|import alfworld` as a user runs it (a child process): JSON keys, counts,
 * exit codes, and one-line errors for bad input. Runs on a hand-written fixture game; the
 * real-data run is covered by `envs/alfworld/fidelity.test.ts`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeTinyData } from "../../envs/alfworld/test-data.ts";

const root = mkdtempSync(join(tmpdir(), "seed-data-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const bin = resolve(import.meta.dirname, "../../../bin/seed.js");
const seed = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

test("data check --walkthroughs / --expert print games, won, by_split, by_type", () => {
  const dir = writeTinyData(join(root, "good"));
  for (const mode of ["--walkthroughs", "--expert"]) {
    const r = seed("data", "check", "alfworld", dir, mode, "--json");
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.games, 1);
    assert.equal(out.won, 1);
    assert.deepEqual(out.by_split, { valid_seen: { games: 1, won: 1 } });
    assert.deepEqual(out.by_type.pick_and_place_simple, { games: 1, won: 1 });
    assert.deepEqual(out.by_type.pick_two_obj_and_place, { games: 0, won: 0 });
    assert.match(r.stderr, /check (walkthroughs|expert) \[#+\] 100% 1\/1/);
  }
});

test("data check: a corrupt game file or a missing directory is one line naming the path", () => {
  const dir = writeTinyData(join(root, "bad"), true);
  const r = seed("data", "check", "alfworld", dir, "--json");
  assert.equal(r.status, 2);
  assert.match(r.stderr, /seed data: .*pick_heat_then_place_in_recep-Egg-None-Fridge-1\/trial_T2\/game\.tw-pddl: not valid JSON/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const missing = seed("data", "check", "alfworld", join(root, "nowhere"));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^seed data: .*nowhere: no such directory/);
  assert.equal(seed("data", "check", "webshop", dir).status, 2);
  assert.equal(seed("data", "check", "alfworld", dir, "--split", "test").status, 2);
});

test("data import writes an index and lists broken games (exit 1)", () => {
  const good = writeTinyData(join(root, "imp-good"));
  const out = join(root, "index.json");
  const r = seed("data", "import", "alfworld", good, "--out", out, "--json", "--quiet");
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { games: 1, valid: 1, problems: 0, index: out, by_split: { valid_seen: 1 } });
  const index = JSON.parse(readFileSync(out, "utf8"));
  assert.equal(index.format, "seed-alfworld-index/1");
  assert.deepEqual(index.splits.valid_seen.files, ["valid_seen/pick_and_place_simple-Apple-None-CounterTop-1/trial_T1/game.tw-pddl"]);
  const bad = writeTinyData(join(root, "imp-bad"), true);
  const r2 = seed("data", "import", "alfworld", bad, "--out", join(root, "index2.json"), "--quiet");
  assert.equal(r2.status, 1);
  assert.match(r2.stderr, /problem: valid_seen\/pick_heat_then_place_in_recep-Egg-None-Fridge-1\/trial_T2\/game\.tw-pddl: .*not valid JSON/);
});
