/**
 * The game generator: deterministic per seed, splits separated by held-out (object, parent)
 * pairs and layout pools, sizes as asked, text rendered by the same rules as the real games,
 * and every game winnable (the observation-only expert wins all of a sample).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { UsageError } from "../../../core/errors.ts";
import { AlfworldEngine } from "../engine.ts";
import { AlfworldEnv } from "../env.ts";
import { AlfworldExpert } from "../expert.ts";
import type { AlfGame } from "../game.ts";
import { parseTaskSentence } from "../expert.ts";
import { classOf } from "../priors.ts";
import { TASK_TYPES } from "../tasks.ts";
import { alfworldGeneratedTasks, generateGame, generatedPriors, isHeldOutPair } from "./generate.ts";

const gameOf = (t: { payload: unknown }): AlfGame => (t.payload as { game: AlfGame }).game;

test("same (split, index, seed, options) gives the same game; other indices differ", () => {
  assert.deepEqual(generateGame("train", 7, 1), generateGame("train", 7, 1));
  assert.notDeepEqual(generateGame("train", 7, 1), generateGame("train", 8, 1));
  assert.notDeepEqual(generateGame("train", 7, 1), generateGame("train", 7, 2));
});

test("unseen games use only held-out pairs and their own layouts; train and seen never do", () => {
  const pairOf = (g: AlfGame): [string, string] => {
    const p = parseTaskSentence(g.task)!;
    return [p.object, p.target];
  };
  const train = alfworldGeneratedTasks("train", 200).map(gameOf);
  const seen = alfworldGeneratedTasks("valid_seen", 30).map(gameOf);
  const unseen = alfworldGeneratedTasks("valid_unseen", 30).map(gameOf);
  for (const g of [...train, ...seen]) assert.ok(!isHeldOutPair(0, ...pairOf(g)), `${g.id}: ${g.task}`);
  for (const g of unseen) assert.ok(isHeldOutPair(0, ...pairOf(g)), `${g.id}: ${g.task}`);
  const roomKey = (g: AlfGame) => g.receptacles.map((r) => r.id).join(",");
  const trainRooms = new Set(train.map(roomKey));
  for (const g of unseen) assert.ok(!trainRooms.has(roomKey(g)), `${g.id} reuses a training room`);
  const shared = seen.filter((g) => trainRooms.has(roomKey(g))).length;
  assert.ok(shared >= 20, `only ${shared}/30 seen games are in rooms training games use`);
  assert.equal(new Set(train.map((g) => g.taskType)).size, TASK_TYPES.length, "all six task types occur");
});

test("room size follows the options; bad options are UsageErrors", () => {
  for (const g of alfworldGeneratedTasks("train", 20).map(gameOf)) {
    assert.ok(g.receptacles.length >= 6 && g.receptacles.length <= 10, `${g.receptacles.length} receptacles`);
  }
  const big = alfworldGeneratedTasks("train", 10, { receptacles: [20, 30], distractors: [20, 30] }).map(gameOf);
  for (const g of big) {
    assert.ok(g.receptacles.length >= 18, `${g.receptacles.length} receptacles`);
    assert.ok(g.objects.length >= 20, `${g.objects.length} objects`);
  }
  assert.throws(() => generateGame("train", 0, 0, { receptacles: [3, 2] }), UsageError);
  assert.throws(() => generateGame("train", 0, 0, { taskTypes: [] }), UsageError);
  assert.throws(() => alfworldGeneratedTasks("test" as "train", 1), UsageError);
});

test("generated text follows the real rules: banner, sorted receptacles, numbering by id", () => {
  for (const g of alfworldGeneratedTasks("valid_seen", 10, { seed: 4 }).map(gameOf)) {
    const intro = new AlfworldEngine(g).reset();
    assert.match(intro, /^-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room\. Looking quickly around you, you see a .+\.\n\nYour task is to: .+\.$/);
    const byClass = new Map<string, string[]>();
    for (const r of g.receptacles) byClass.set(classOf(r.name), [...(byClass.get(classOf(r.name)) ?? []), r.name]);
    for (const names of byClass.values()) {
      assert.deepEqual(names.map((n) => Number(n.split(" ").pop())), names.map((_n, i) => names.length - i), "numbers descend in id order");
    }
    assert.equal(new AlfworldEngine(g).won(), false, `${g.id} is not won at the start`);
  }
});

test("the expert wins every sampled generated game, seen and unseen", () => {
  const priors = generatedPriors();
  const env = new AlfworldEnv();
  for (const split of ["valid_seen", "valid_unseen"] as const) {
    for (const task of alfworldGeneratedTasks(split, 40, { seed: 11 })) {
      const expert = new AlfworldExpert({ priors });
      let obs = env.reset(task, 0);
      let r;
      do { r = env.step(expert.act(obs)); obs = r.observation; } while (!r.done);
      assert.ok(r.won, `${task.id} (${obs.task}) not won`);
    }
  }
});
