/**
 * Loading game files: the hand-written fixture parses into the expected entities, and every kind
 * of malformed input is a `DataError` naming the file, never a crash.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataError } from "../../core/errors.ts";
import { AlfworldEnv } from "./env.ts";
import { alfworldTasks, listGames, parseGameFile, resolveAlfworldRoot } from "./load.ts";
import { TINY_TASK_DIR, tinyGameJson, writeTinyData } from "./test-data.ts";

const PATH = `/data/json_2.1.1/valid_seen/${TINY_TASK_DIR}/trial_T1/game.tw-pddl`;

test("the fixture game parses: ids lower-cased, numbered by sort order, goal compiled", () => {
  const g = parseGameFile(tinyGameJson(), PATH, "tiny");
  assert.equal(g.taskType, "pick_and_place_simple");
  assert.equal(g.task, "put a apple in countertop.");
  assert.deepEqual(g.receptacles.map((r) => [r.id, r.name, r.type, r.openable]), [
    ["countertop_bar__plus_01", "countertop 1", "countertoptype", false],
    ["fridge_bar__plus_02", "fridge 1", "fridgetype", true],
  ]);
  assert.deepEqual(g.objects.map((o) => [o.id, o.name]), [["apple_bar__minus_00_dot_20", "apple 2"], ["apple_bar__plus_00_dot_10", "apple 1"]]);
  assert.equal(g.locationCount, 3);
  assert.deepEqual(g.walkthrough, ["go to fridge 1", "open fridge 1", "take apple 1 from fridge 1", "go to countertop 1", "move apple 1 to countertop 1"]);
});

test("malformed game files are DataErrors that name the file", () => {
  const good = JSON.parse(tinyGameJson()) as Record<string, unknown>;
  const problem = good["pddl_problem"] as string;
  const variants: [string, string, RegExp][] = [
    ["not json", "{oops", /not valid JSON/],
    ["array", "[]", /must be a JSON object/],
    ["no problem", JSON.stringify({ ...good, pddl_problem: undefined }), /missing string key 'pddl_problem'/],
    ["no grammar", JSON.stringify({ ...good, grammar: 3 }), /missing string key 'grammar'/],
    ["no task line", JSON.stringify({ ...good, grammar: "{}" }), /no "Your task is to: \.\.\." line/],
    ["old protocol", JSON.stringify({ ...good, grammar: `${good["grammar"] as string}\naction PutObject {\n    template :: "put {o} in/on {r}";\n}` }), /ReAct-era 'put \{o\} in\/on \{r\}' protocol/],
    ["bad walkthrough", JSON.stringify({ ...good, walkthrough: [1] }), /'walkthrough' must be a list of strings/],
    ["unbalanced", JSON.stringify({ ...good, pddl_problem: problem + ")" }), /unbalanced '\)'/],
    ["unclosed", JSON.stringify({ ...good, pddl_problem: "(define (problem x)" }), /unclosed '\('/],
    ["no goal", JSON.stringify({ ...good, pddl_problem: problem.replace(/\(:goal[\s\S]*\)\s*\)$/, ")") }), /no \(:goal \.\.\.\) section/],
    ["unknown predicate", JSON.stringify({ ...good, pddl_problem: problem.replace("(openable", "(levitates") }), /unknown predicate 'levitates'/],
    ["undeclared", JSON.stringify({ ...good, pddl_problem: problem.replace("(openable Fridge_bar__plus_02)", "(openable Ghost_bar__plus_09)") }), /'ghost_bar__plus_09' of \(openable \.\.\.\) is not declared/],
    ["bad goal", JSON.stringify({ ...good, pddl_problem: problem.replace("(inReceptacle ?o ?r) (objectType", "(teleported ?o ?r) (objectType") }), /unknown predicate 'teleported' in the goal/],
    ["wrong arity", JSON.stringify({ ...good, pddl_problem: problem.replace("(openable Fridge_bar__plus_02)", "(receptacleType Fridge_bar__plus_02)") }), /expects 2 arguments/],
  ];
  for (const [name, text, re] of variants) {
    assert.throws(() => parseGameFile(text, PATH), (e: unknown) => e instanceof DataError && e.message.startsWith(PATH) && re.test(e.message), name);
  }
  assert.throws(() => parseGameFile(tinyGameJson(), "/data/json_2.1.1/valid_seen/not-a-task/trial/game.tw-pddl"), /task directory name must look like/);
});

test("data roots: nested or direct split folders; bad roots and payloads are DataErrors", () => {
  const root = mkdtempSync(join(tmpdir(), "seed-alf-load-"));
  try {
    writeTinyData(root);
    assert.equal(resolveAlfworldRoot(root), join(root, "json_2.1.1"));
    assert.equal(resolveAlfworldRoot(join(root, "json_2.1.1")), join(root, "json_2.1.1"));
    assert.deepEqual(listGames(root).map((g) => [g.id, g.split, g.taskType]), [[`valid_seen/${TINY_TASK_DIR}/trial_T1/game.tw-pddl`, "valid_seen", "pick_and_place_simple"]]);
    assert.deepEqual(alfworldTasks(root, "train"), []);
    const [task] = alfworldTasks(root, "valid_seen");
    assert.match(new AlfworldEnv().reset(task!, 0).text, /a countertop 1, and a fridge 1\./);
    assert.throws(() => resolveAlfworldRoot(join(root, "missing")), /no such directory/);
    assert.throws(() => resolveAlfworldRoot(join(root, "json_2.1.1", "valid_seen")), /expected json_2\.1\.1/);
    assert.throws(() => new AlfworldEnv().reset({ id: "x", split: "s", payload: { seed: 1 } }, 0), DataError);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
