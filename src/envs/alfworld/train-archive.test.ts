/**
 * The shipped training archive: a data root with `json_2.1.1_train.tar.xz` and no `train` folder
 * lists the archive's games (unpacked once into the cache, ids as if unpacked in place), a second
 * listing reuses the cache, and an archive tar cannot read is a one-line `DataError`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataError } from "../../core/errors.ts";
import { listGames } from "./load.ts";
import { TINY_TASK_DIR, tinyGameJson, writeTinyData } from "./test-data.ts";
import { TRAIN_ARCHIVE, unpackedTrainSplit } from "./train-archive.ts";

/** A data root as `../shared/data/alfworld` ships: valid_seen unpacked, train only as the archive. */
function shippedRoot(): { root: string; cache: string; cleanup: () => void } {
  const work = mkdtempSync(join(tmpdir(), "seed-train-archive-"));
  const root = writeTinyData(join(work, "data"));
  const staging = join(work, "staging");
  const game = join(staging, "json_2.1.1", "train", TINY_TASK_DIR, "trial_T9");
  mkdirSync(game, { recursive: true });
  writeFileSync(join(game, "game.tw-pddl"), tinyGameJson());
  execFileSync("tar", ["-cJf", join(root, TRAIN_ARCHIVE), "-C", staging, "json_2.1.1"]);
  return { root, cache: join(work, "cache"), cleanup: () => rmSync(work, { recursive: true, force: true }) };
}

test("a root with only the training archive lists its games from the cache, unpacked once", (t) => {
  const { root, cache, cleanup } = shippedRoot();
  t.after(cleanup);
  const previous = process.env["SEED_CACHE_DIR"];
  process.env["SEED_CACHE_DIR"] = cache;
  t.after(() => (previous === undefined ? delete process.env["SEED_CACHE_DIR"] : (process.env["SEED_CACHE_DIR"] = previous)));
  const games = listGames(root, ["train", "valid_seen"]);
  assert.deepEqual(games.map((g) => [g.split, g.id]), [
    ["train", `train/${TINY_TASK_DIR}/trial_T9/game.tw-pddl`],
    ["valid_seen", `valid_seen/${TINY_TASK_DIR}/trial_T1/game.tw-pddl`],
  ]);
  assert.ok(games[0]!.path.startsWith(cache), games[0]!.path);
  const entries = readdirSync(cache);
  assert.equal(entries.length, 1, `one cache entry, no temporary folder left: ${entries.join(", ")}`);
  // With no `tar` on the PATH a second unpacking would fail: the second listing must not unpack.
  const path = process.env["PATH"];
  process.env["PATH"] = "";
  let again: ReturnType<typeof listGames>;
  try {
    again = listGames(root, ["train"]);
  } finally {
    process.env["PATH"] = path;
  }
  assert.equal(again[0]!.path, games[0]!.path, "the second listing reuses the unpacked copy");
});

test("an archive tar cannot unpack is a one-line DataError naming it, and leaves no temporary folder", (t) => {
  const work = mkdtempSync(join(tmpdir(), "seed-train-archive-bad-"));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const archive = join(work, TRAIN_ARCHIVE);
  writeFileSync(archive, "not an xz stream");
  const cache = join(work, "cache");
  assert.throws(() => unpackedTrainSplit(archive, cache), (e: unknown) => e instanceof DataError && e.message.includes(archive) && !e.message.includes("\n"));
  assert.deepEqual(readdirSync(cache), []);
});
