/**
 * Protocol tests on named real games. Every expected string below was written by hand from
 * the protocol (ALFWorld's `Demangler` numbering applied to the game's receptacle ids, TextWorld's
 * list rule), not captured from the engine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EnvStateError } from "../../core/errors.ts";
import { AlfworldEnv } from "./env.ts";
import { AlfworldEngine, pyStrip } from "./engine.ts";
import { loadGameFile } from "./load.ts";
import { demangle } from "./names.ts";
import { renderList, HELP_TEXT } from "./text.ts";
import { alfworldDataRoot, NO_DATA } from "./test-data.ts";

const data = alfworldDataRoot();
const skip = data === undefined ? NO_DATA : undefined;

function gamePath(split: string, dir: string): string {
  const base = join(data!, "json_2.1.1", split, dir);
  const trial = readdirSync(base).sort()[0]!;
  return join(base, trial, "game.tw-pddl");
}

function task(split: string, dir: string) {
  return { id: `${split}/${dir}`, split, payload: { file: gamePath(split, dir) } };
}

test("list rendering: nothing, one, two, many", () => {
  assert.equal(renderList([]), "nothing");
  assert.equal(renderList(["a x 1"]), "a x 1");
  assert.equal(renderList(["a apple 1", "a bread 1"]), "a apple 1, and a bread 1");
  assert.equal(renderList(["a", "b", "c"]), "a, b, and c");
});

test("demangling: first id in sort order gets the highest number; basin joins the base", () => {
  const names = demangle([
    "drawer_bar__plus_01", "drawer_bar__minus_02", "drawer_bar__minus_01",
    "sink_bar__plus_01_bar_sinkbasin", "sink_bar__plus_00", "loc_bar_3", "agent1", "drawertype",
  ]);
  assert.equal(names.get("drawer_bar__minus_01"), "drawer 3");
  assert.equal(names.get("drawer_bar__minus_02"), "drawer 2");
  assert.equal(names.get("drawer_bar__plus_01"), "drawer 1");
  assert.equal(names.get("sink_bar__plus_01_bar_sinkbasin"), "sinkbasin 1");
  assert.equal(names.get("sink_bar__plus_00"), "sink 1");
  assert.equal(names.get("loc_bar_3"), "loc 1");
  assert.equal(names.get("agent1"), "agent1");
});

test("Book-329: opening observation and the walkthrough's feedback", { skip }, () => {
  const env = new AlfworldEnv();
  const obs = env.reset(task("valid_seen", "pick_and_place_simple-Book-None-SideTable-329"), 0);
  assert.equal(obs.text,
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a bed 1, a diningtable 1, a drawer 4, a drawer 3, a drawer 2, a drawer 1, a garbagecan 1, a sidetable 2, and a sidetable 1.\n\nYour task is to: put some book on sidetable.");
  assert.equal(obs.task, "put some book on sidetable.");
  let r = env.step("go to bed 1");
  assert.equal(r.observation.text, "You arrive at bed 1. On the bed 1, you see a book 2, a book 1, a cellphone 2, and a pillow 1.");
  r = env.step("take book 2 from bed 1");
  assert.equal(r.observation.text, "You pick up the book 2 from the bed 1.");
  assert.equal(env.step("inventory").observation.text, "You are carrying: a book 2.");
  r = env.step("go to sidetable 1");
  assert.equal(r.observation.text, "You arrive at sidetable 1. On the sidetable 1, you see nothing.");
  assert.equal(r.won, false);
  assert.equal(r.reward, 0);
  r = env.step("move book 2 to sidetable 1");
  assert.equal(r.observation.text, "You move the book 2 to the sidetable 1.");
  assert.deepEqual([r.won, r.done, r.reward, r.score], [true, true, 10, 1]);
  assert.throws(() => env.step("look"), EnvStateError);
});

test("Apple-14: closed receptacles, shared locations, cooling", { skip }, () => {
  const env = new AlfworldEnv();
  const obs = env.reset(task("valid_seen", "pick_cool_then_place_in_recep-Apple-None-CounterTop-14"), 0);
  assert.equal(obs.text,
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a cabinet 8, a cabinet 7, a cabinet 6, a cabinet 5, a cabinet 4, a cabinet 3, a cabinet 2, a cabinet 1, a coffeemachine 1, a countertop 2, a countertop 1, a fridge 1, a garbagecan 1, a microwave 1, a sinkbasin 1, a stoveburner 4, a stoveburner 3, a stoveburner 2, a stoveburner 1, and a toaster 1.\n\nYour task is to: cool some apple and put it in countertop.");
  assert.equal(env.step("go to microwave 1").observation.text, "You arrive at microwave 1. The microwave 1 is closed.");
  assert.equal(env.step("open microwave 1").observation.text, "You open the microwave 1. The microwave 1 is open. In it, you see a apple 1.");
  assert.equal(env.step("take apple 1 from microwave 1").observation.text, "You pick up the apple 1 from the microwave 1.");
  assert.equal(env.step("examine apple 1").observation.text, "There's nothing special about apple 1.");
  const atFridge = env.step("go to fridge 1");
  assert.equal(atFridge.observation.text, "You arrive at fridge 1. The fridge 1 is closed.");
  assert.ok(atFridge.observation.admissible!.includes("cool apple 1 with fridge 1"), "cooling needs no open fridge");
  assert.equal(env.step("cool apple 1 with fridge 1").observation.text, "You cool the apple 1 using the fridge 1.");
  assert.equal(env.step("examine apple 1").observation.text, "This is a cold apple 1.");
  const atCoffee = env.step("go to coffeemachine 1");
  assert.ok(atCoffee.observation.admissible!.includes("move apple 1 to countertop 2"), "countertop 2 shares the coffee machine's location");
  const nothing = env.step("open fridge 1");
  assert.equal(nothing.observation.text, "Nothing happens.");
  assert.equal(nothing.actionRecognized, false);
  assert.deepEqual(nothing.observation.admissible, atCoffee.observation.admissible, "an invalid command changes nothing");
  const win = env.step("move apple 1 to countertop 2");
  assert.equal(win.observation.text, "You move the apple 1 to the countertop 2.");
  assert.ok(win.won && win.done);
});

test("CD-308 (unseen): Look task wins on `use` while holding the object", { skip }, () => {
  const env = new AlfworldEnv();
  const obs = env.reset(task("valid_unseen", "look_at_obj_in_light-CD-None-DeskLamp-308"), 0);
  assert.equal(obs.text,
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a bed 1, a desk 2, a desk 1, a drawer 6, a drawer 5, a drawer 4, a drawer 3, a drawer 2, a drawer 1, a garbagecan 1, a laundryhamper 1, a safe 1, a shelf 6, a shelf 5, a shelf 4, a shelf 3, a shelf 2, and a shelf 1.\n\nYour task is to: look at cd under the desklamp.");
  assert.equal(env.step("look").observation.text, obs.text.split("\n\n")[1], "look in the middle of the room repeats the room sentence");
  env.step("go to desk 2");
  assert.equal(env.step("look").observation.text, "You are facing the desk 2. Next to it, you see nothing.");
  assert.equal(env.step("take cd 1 from desk 2").won, false);
  env.step("go to desk 1");
  const r = env.step("use desklamp 1");
  assert.equal(r.observation.text, "You turn on the desklamp 1.");
  assert.ok(r.won);
});

test("commands are stripped the way Python's str.strip() does it", () => {
  assert.equal(pyStrip(" \t\n\u001fgo to bed 1\u0085\u3000"), "go to bed 1");
  assert.equal(pyStrip("\ufeffgo to bed 1"), "\ufeffgo to bed 1", "U+FEFF is not whitespace in Python");
  assert.equal(pyStrip("  "), "");
  assert.equal(pyStrip("look"), "look");
});

test("help, inventory, garbage input and the step limit", { skip }, () => {
  const env = new AlfworldEnv({ maxSteps: 3 });
  const t = task("valid_seen", "pick_and_place_simple-Book-None-SideTable-329");
  const first = env.reset(t, 0);
  const help = env.step("help");
  assert.equal(help.observation.text, HELP_TEXT);
  const grammar = (JSON.parse(readFileSync(gamePath("valid_seen", "pick_and_place_simple-Book-None-SideTable-329"), "utf8")) as { grammar: string }).grammar;
  const at = grammar.indexOf("feedback :: \"", grammar.indexOf("action help {")) + 13;
  assert.equal(HELP_TEXT, grammar.slice(at, grammar.indexOf("\";", at)), "the help text is the game grammar's");
  assert.ok(help.observation.text.startsWith("\nAvailable commands:\n  look:"));
  assert.equal(env.step(" inventory\u001f").observation.text, "You are not carrying anything.", "surrounding whitespace is stripped");
  const last = env.step("put book 2 in sidetable 1");
  assert.equal(last.observation.text, "Nothing happens.", "the ReAct-era `put` command is not part of the protocol");
  assert.deepEqual([last.done, last.won, last.reward], [true, false, 0], "done after maxSteps steps of any kind");
  assert.deepEqual(env.reset(t, 0), first);
});

test("admissible lists are sorted, unique, and offer only the move-protocol verbs", { skip }, () => {
  const engine = new AlfworldEngine(loadGameFile(gamePath("valid_seen", "pick_cool_then_place_in_recep-Apple-None-CounterTop-14")));
  for (const cmd of ["go to microwave 1", "open microwave 1", "take apple 1 from microwave 1", "go to countertop 1"]) {
    engine.step(cmd);
    const adm = engine.admissible();
    assert.deepEqual([...adm], [...new Set(adm)].sort());
    assert.ok(adm.every((a) => /^(go to|open|close|take|move|heat|cool|clean|slice|use|examine) |^(look|inventory|help)$/.test(a)), adm.join("|"));
    assert.ok(!adm.some((a) => a.startsWith("put ")));
  }
  // Holding an apple at a countertop: the apple can go there, and nothing can be taken.
  const adm = engine.admissible();
  assert.ok(adm.includes("move apple 1 to countertop 1"));
  assert.ok(!adm.some((a) => a.startsWith("take ")));
  assert.ok(adm.includes("examine apple 1"));
});
