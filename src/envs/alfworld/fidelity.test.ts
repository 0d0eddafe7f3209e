/**
 * Fidelity on every shipped game: 140 + 134 evaluation games and the
 * 3,553 training games (archive extracted once into a temp dir). For each game: the walkthrough
 * replays to a win exactly on its last command, every command admissible when sent; the task
 * sentence is one of its type's two templates with obj/recep from the directory name; the first
 * `take X from Y` names an object that starts inside Y. Split and per-type counts are exact.
 * The shipped priors and catalogue tables must equal what `learnPriors` / `learnCatalog` count
 * from the training games.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { basename, dirname } from "node:path";
import { replayWalkthrough } from "./check.ts";
import { listGames, loadGameFile, type GameRef } from "./load.ts";
import { ALFWORLD_TRAIN_PRIORS } from "./priors-table.ts";
import { learnPriors } from "./priors.ts";
import { learnCatalog } from "./generator/catalog.ts";
import { ALFRED_CATALOG } from "./generator/generate.ts";
import type { AlfGame } from "./game.ts";
import { TASK_LABELS, TASK_TYPES, parseTaskDir, taskSentences, type TaskType } from "./tasks.ts";
import { alfworldAllSplitsRoot, alfworldDataRoot, NO_DATA } from "./test-data.ts";

const EXPECTED: Record<string, Record<string, number>> = {
  train: { total: 3553, Pick: 790, Look: 308, Clean: 650, Heat: 459, Cool: 533, Pick2: 813 },
  valid_seen: { total: 140, Pick: 35, Look: 13, Clean: 27, Heat: 16, Cool: 25, Pick2: 24 },
  valid_unseen: { total: 134, Pick: 24, Look: 18, Clean: 31, Heat: 23, Cool: 21, Pick2: 17 },
};

function countByType(refs: readonly GameRef[]): Record<string, number> {
  const out: Record<string, number> = { total: refs.length };
  for (const t of TASK_TYPES) out[TASK_LABELS[t]] = refs.filter((r) => r.taskType === t).length;
  return out;
}

/** Every per-game check; returns a problem description or undefined. */
function checkGame(ref: GameRef, game: AlfGame): string | undefined {
  const replay = replayWalkthrough(game);
  if (!replay.won) return replay.problem;
  const info = parseTaskDir(basename(dirname(dirname(ref.path))))!;
  const sentences = taskSentences(info.taskType as TaskType, info.object.toLowerCase(), info.parent.toLowerCase());
  if (!sentences.includes(game.task)) return `task sentence '${game.task}' is not one of ${JSON.stringify(sentences)}`;
  const take = game.walkthrough!.map((c) => /^take (.+) from (.+)$/.exec(c)).find((m) => m !== null);
  if (take == null) return "no take command in the walkthrough";
  const o = game.objects.find((x) => x.name === take[1]);
  const r = game.receptacles.findIndex((x) => x.name === take[2]);
  if (o === undefined || r < 0 || !o.receptacles.includes(r)) return `first take '${take[0]}' does not name an initial inReceptacle pair`;
  return undefined;
}

function runSplit(root: string, split: string): { games: AlfGame[]; refs: GameRef[]; problems: string[] } {
  const refs = listGames(root, [split]);
  assert.deepEqual(countByType(refs), EXPECTED[split], `${split}: per-type counts`);
  const games: AlfGame[] = [];
  const problems: string[] = [];
  for (const ref of refs) {
    const game = loadGameFile(ref.path, ref.id);
    games.push(game);
    const p = checkGame(ref, game);
    if (p !== undefined) problems.push(`${ref.id}: ${p}`);
  }
  return { games, refs, problems };
}

const valid = alfworldDataRoot();

test("valid_seen + valid_unseen: counts, walkthroughs, task sentences, numbering", { skip: valid === undefined ? NO_DATA : undefined }, () => {
  for (const split of ["valid_seen", "valid_unseen"]) {
    const { games, problems } = runSplit(valid!, split);
    assert.deepEqual(problems, [], `${split}: ${problems.length} games fail`);
    assert.equal(games.length, EXPECTED[split]!["total"]);
  }
});

test("train: counts, all 3,553 walkthroughs win, shipped priors and catalogue equal the learned ones", { skip: valid === undefined ? NO_DATA : undefined }, (t) => {
  const root = alfworldAllSplitsRoot();
  if (root === undefined) {
    t.skip("the training archive could not be extracted (missing file or no tar/xz)");
    return;
  }
  const { games, refs, problems } = runSplit(root, "train");
  assert.deepEqual(problems, [], `train: ${problems.length} games fail`);
  assert.deepEqual(learnPriors(games), ALFWORLD_TRAIN_PRIORS);
  const sources = games.map((game, i) => {
    const info = parseTaskDir(basename(dirname(dirname(refs[i]!.path))))!;
    return { game, scene: Number(info.scene), object: info.object, parent: info.parent };
  });
  assert.deepEqual(JSON.parse(JSON.stringify(learnCatalog(sources))), JSON.parse(JSON.stringify(ALFRED_CATALOG)));
});
