/**
 * Goal formulas on the hand-written fixture game with the real goal shapes: Pick2 needs two
 * distinct objects in one receptacle (`not (= ?o1 ?o2)`), `or`/`not` behave, and a Clean goal
 * needs the state flag as well as the place.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { AlfworldEngine } from "./engine.ts";
import type { AlfGame } from "./game.ts";
import { parseFormula } from "./goal.ts";
import { parseGameFile } from "./load.ts";
import { readSExprs } from "./sexpr.ts";
import { TINY_TASK_DIR, tinyGameJson } from "./test-data.ts";

const PATH = `/d/json_2.1.1/valid_seen/${TINY_TASK_DIR}/trial_T1/game.tw-pddl`;

function withGoal(goal: string): AlfGame {
  const g = parseGameFile(tinyGameJson(), PATH);
  return { ...g, goal: parseFormula(readSExprs(goal, "goal")[0]!, "goal") };
}

function play(game: AlfGame, commands: readonly string[]): boolean[] {
  const e = new AlfworldEngine(game);
  return commands.map((c) => {
    assert.ok(e.step(c).recognized, c);
    return e.won();
  });
}

const PUT_BOTH = [
  "go to fridge 1", "open fridge 1", "take apple 1 from fridge 1", "go to countertop 1", "move apple 1 to countertop 1",
  "go to fridge 1", "take apple 2 from fridge 1", "go to countertop 1", "move apple 2 to countertop 1",
];

test("Pick2: one apple on the counter top is not enough, two distinct ones are", () => {
  const game = withGoal(`(and (exists (?r - receptacle) (exists (?o1 - object) (and (objectType ?o1 AppleType)
    (receptacleType ?r CounterTopType) (inReceptacle ?o1 ?r) (exists (?o2 - object) (and (not (= ?o1 ?o2))
    (objectType ?o2 AppleType) (receptacleType ?r CounterTopType) (inReceptacle ?o2 ?r)))))))`);
  assert.deepEqual(play(game, PUT_BOTH), [false, false, false, false, false, false, false, false, true]);
});

test("Clean: the place alone does not win; or/not combine as in PDDL", () => {
  const clean = withGoal(`(exists (?r - receptacle) (exists (?o - object) (and (cleanable ?o) (objectType ?o AppleType)
    (receptacleType ?r CounterTopType) (isClean ?o) (inReceptacle ?o ?r))))`);
  assert.deepEqual(play(clean, PUT_BOTH).some(Boolean), false, "no apple is cleanable or clean in the fixture");
  const either = withGoal(`(or (holdsAny agent1) (exists (?o - object) (and (objectType ?o AppleType) (not (inReceptacle ?o Fridge_bar__plus_02)))))`);
  assert.deepEqual(play(either, ["go to fridge 1", "open fridge 1", "take apple 1 from fridge 1"]), [false, false, true]);
  const notOpen = withGoal("(not (opened Fridge_bar__plus_02))");
  assert.equal(new AlfworldEngine(notOpen).won(), true);
  assert.deepEqual(play(notOpen, ["go to fridge 1", "open fridge 1", "close fridge 1"]), [true, false, true]);
});
