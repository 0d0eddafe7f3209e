import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { episodeKind, hindsightSkill, ruleAnalyzer } from "./rule-analyzer.ts";
import { parseAlfworldTask } from "./rule-alfworld.ts";
import { readSerializedTrajectory, serializeTrajectory, type SerializedTrajectory } from "./serialize.ts";
import { validateSkill } from "./parse-skill.ts";
import type { Trajectory, Turn } from "../core/trajectory.ts";
import { Rng } from "../core/rng.ts";
import { alfworldTasks } from "../envs/alfworld/load.ts";
import { AlfworldEnv } from "../envs/alfworld/env.ts";
import { AlfworldExpert } from "../envs/alfworld/expert.ts";
import { playEpisode } from "../envs/expert.ts";

type StepSpec = readonly [obs: string, action: string, valid?: boolean];

function serialized(task: string, steps: readonly StepSpec[], success: boolean, envId = "alfworld"): SerializedTrajectory {
  const turns: Turn[] = steps.map(([obs, action, valid], i) => ({
    promptTokens: [], sampledTokens: [], sampledLogprobs: [], promptText: "", observation: obs, responseText: action, actionText: action,
    valid: valid ?? true, reward: success && i === steps.length - 1 ? 10 : 0, masked: false,
  }));
  const traj: Trajectory = {
    envId, taskId: "t", groupIndex: 0, memberIndex: 0, seed: 0, historyMode: "window", task, turns, return: success ? 10 : 0, success,
    score: success ? 1 : 0, endedBy: success ? "terminated" : "truncated", timings: { sampleSeconds: 0, envSeconds: 0 },
  };
  return serializeTrajectory(traj);
}

const skill = (t: SerializedTrajectory) => hindsightSkill(t.text);
const ROOM = "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a countertop 1, a drawer 1, a fridge 1, a microwave 1, and a sinkbasin 1.\n\nYour task is to: heat some egg and put it in countertop.";
const HEAT = "heat some egg and put it in countertop.";

test("ALFWorld task sentences of all six types are read (ALFWorld's goal_library.py)", () => {
  assert.deepEqual(parseAlfworldTask("put some book on sidetable."), { kind: "pick", obj: "book", recep: "sidetable" });
  assert.deepEqual(parseAlfworldTask("look at bowl under the desklamp."), { kind: "look", obj: "bowl", recep: "desklamp" });
  assert.deepEqual(parseAlfworldTask("clean some fork and put it in drawer."), { kind: "clean", obj: "fork", recep: "drawer" });
  assert.deepEqual(parseAlfworldTask("put a hot cup in cabinet."), { kind: "heat", obj: "cup", recep: "cabinet" });
  assert.deepEqual(parseAlfworldTask("put a cool apple in garbagecan."), { kind: "cool", obj: "apple", recep: "garbagecan" });
  assert.deepEqual(parseAlfworldTask("find two book and put them in desk."), { kind: "pick2", obj: "book", recep: "desk" });
  assert.equal(parseAlfworldTask("i need a red shirt under 30 dollars"), undefined);
});

test("a success becomes a workflow of the subgoals achieved, abstracted to kinds of objects and places", () => {
  const t = serialized(HEAT, [
    [ROOM, "go to drawer 1"],
    ["You arrive at drawer 1. The drawer 1 is closed.", "open drawer 1"],
    ["You open the drawer 1. The drawer 1 is open. In it, you see a egg 2.", "take egg 2 from drawer 1"],
    ["You pick up the egg 2 from the drawer 1.", "go to microwave 1"],
    ["You arrive at microwave 1. The microwave 1 is closed.", "heat egg 2 with microwave 1"],
    ["You heat the egg 2 using the microwave 1.", "go to countertop 1"],
    ["You arrive at countertop 1. On the countertop 1, you see nothing.", "move egg 2 to countertop 1"],
  ], true);
  assert.equal(skill(t), "First find an egg (look in the drawer, opening it first) and take it, then heat it with the microwave, then go to the countertop and put the egg there.");
});

test("commands that did nothing and detours through other objects are left out of the workflow", () => {
  const t = serialized(HEAT, [
    [ROOM, "go to countertop 1"],
    ["You arrive at countertop 1. On the countertop 1, you see a egg 1, and a knife 1.", "take knife 1 from countertop 1"],
    ["You pick up the knife 1 from the countertop 1.", "move knife 1 to countertop 1"],
    ["You move the knife 1 to the countertop 1.", "take egg 9 from countertop 1"],
    ["Nothing happens.", "take egg 1 from countertop 1"],
    ["You pick up the egg 1 from the countertop 1.", "go to microwave 1"],
    ["You arrive at microwave 1. The microwave 1 is closed.", "heat egg 1 with microwave 1"],
    ["You heat the egg 1 using the microwave 1.", "go to countertop 1"],
    ["You arrive at countertop 1. On the countertop 1, you see a knife 1.", "move egg 1 to countertop 1"],
  ], true);
  const s = skill(t);
  assert.ok(!s.includes("knife"), s);
  assert.match(s, /^First find an egg \(look on the countertop\) and take it, then heat it with the microwave/);
});

test("failures become avoidance rules, one diagnosis each", () => {
  const cases: Array<[string, StepSpec[], RegExp]> = [
    ["format", [[ROOM, "", false], ["Nothing happens.", "go north", false], ["Nothing happens.", "", false]], /^Do not write malformed answers/],
    ["inadmissible take", [[ROOM, "take egg 1 from fridge 1"], ["Nothing happens.", "take egg 1 from fridge 1"], ["Nothing happens.", "take egg 1 from fridge 1"], ["Nothing happens.", "look"]], /^Do not try to take an object that is not listed where you stand/],
    ["wrong object", [[ROOM, "go to countertop 1"], ["You arrive at countertop 1. On the countertop 1, you see a potato 1.", "take potato 1 from countertop 1"], ["You pick up the potato 1 from the countertop 1.", "go to microwave 1"], ["You arrive at microwave 1. The microwave 1 is closed.", "heat potato 1 with microwave 1"]], /^Do not pick up the potato; the task needs an egg/],
    ["missing heat", [[ROOM, "go to countertop 1"], ["You arrive at countertop 1. On the countertop 1, you see a egg 1.", "take egg 1 from countertop 1"], ["You pick up the egg 1 from the countertop 1.", "move egg 1 to countertop 1"], ["You move the egg 1 to the countertop 1.", "look"]], /^Do not put the egg on the countertop before you heat it with the microwave/],
    ["seen, not taken", [[ROOM, "go to countertop 1"], ["You arrive at countertop 1. On the countertop 1, you see a egg 1.", "go to sinkbasin 1"], ["You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.", "go to countertop 1"]], /^Do not walk past the egg: when you see one, take it at once/],
    ["closed, not opened", [[ROOM, "go to drawer 1"], ["You arrive at drawer 1. The drawer 1 is closed.", "go to sinkbasin 1"], ["You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.", "go to countertop 1"]], /^Do not skip closed receptacles: open the drawer/],
  ];
  for (const [name, steps, expected] of cases) {
    const s = skill(serialized(HEAT, steps, false));
    assert.match(s, expected, `${name}: ${s}`);
    assert.ok(validateSkill(s).ok, `${name}: invalid skill ${s}`);
  }
});

test("wrong destination, lamp never used, second object missing, and loops have their own rules", () => {
  const pick = "put some book on sidetable.";
  const wrongPlace = serialized(pick, [["r", "take book 1 from bed 1"], ["You pick up the book 1 from the bed 1.", "move book 1 to desk 1"], ["You move the book 1 to the desk 1.", "look"]], false);
  assert.match(skill(wrongPlace), /^Do not put the book on the desk; it belongs on the sidetable\./);
  const look = serialized("look at bowl under the desklamp.", [["r", "take bowl 1 from desk 1"], ["You pick up the bowl 1 from the desk 1.", "go to bed 1"], ["You arrive at bed 1.", "look"]], false);
  assert.match(skill(look), /^Do not stop after taking the bowl: carry it to the desklamp and turn the desklamp on\./);
  const two = serialized("put two book in desk.", [["r", "take book 1 from bed 1"], ["You pick up the book 1 from the bed 1.", "move book 1 to desk 1"], ["You move the book 1 to the desk 1.", "look"]], false);
  assert.match(skill(two), /^Do not stop after placing one book: the task needs two/);
  const loop = serialized(pick, Array.from({ length: 9 }, (_, i): StepSpec => ["You arrive at bed 1. On the bed 1, you see nothing.", i % 3 === 2 ? "look" : "go to bed 1"]), false);
  assert.match(skill(loop), /^Do not keep repeating 'go to bed'/);
});

test("other environments get their own rules, recognised from the text alone", () => {
  const web = serialized("i need a blue cotton shirt, size m, under 30 dollars", [["WebShop [SEP] Search", "search[blue cotton shirt]"], ["Results", "click[b012345678]"], ["Item", "click[m]"], ["Item", "click[buy now]"]], true, "webshop");
  assert.equal(episodeKind(readOk(web)), "webshop");
  assert.match(skill(web), /^Search with the key attributes of the request \(a query like 'blue cotton shirt'\).*select every required option \(m\), then click buy now\.$/);
  const webFail = serialized("x shirt", [["WebShop", "search[shirt]"], ["Results", "search[shirt]"], ["Results", "click[next >]"]], false, "webshop");
  assert.match(skill(webFail), /^Do not repeat the same search \('shirt'\)/);
  const qa = serialized("who wrote hamlet?", [["q", "<search>hamlet author</search>"], ["<information>...</information>", "<search>hamlet author</search>"]], false, "search");
  assert.equal(episodeKind(readOk(qa)), "search");
  assert.match(skill(qa), /^Do not repeat the query 'hamlet author'/);
  const qaWon = serialized("where was the founder of velmora works born?", [["q", "<search>Velmora Works</search>"], ["<information>...</information>", "<search>Tarin Brous</search>"], ["<information>...</information>", "<answer>Shouhe</answer>"]], true, "search");
  assert.equal(skill(qaWon), "Search for the exact entity the question names (queries that worked: 'Velmora Works', then 'Tarin Brous'), read the returned documents, and answer with the short span that states the asked relation.");
  const qaWrong = serialized("who wrote hamlet?", [["q", "<search>hamlet</search>"], ["<information>...</information>", "<answer>marlowe</answer>"]], false, "search");
  assert.match(skill(qaWrong), /^Do not answer before verifying/);
  const soko = serialized("push every box onto a target.", [["#####", "up"], ["#####", "down"], ["#####", "up"], ["#####", "down"]], false, "sokoban");
  assert.equal(episodeKind(readOk(soko)), "sokoban");
  assert.match(skill(soko), /^Do not step back and forth/);
  const ez = serialized("make a formula equal to 12 using the numbers 10 and 2, each once.", [["Cards", "10"], ["Cards", "+"], ["Cards", "2"], ["Cards", "="]], true, "ezpoints");
  assert.equal(episodeKind(readOk(ez)), "ezpoints");
  assert.match(skill(ez), /\(here 10\+2\)/);
  const other = serialized("reach the exit", [["a", "jump"], ["a", "jump"], ["a", "jump"]], false, "maze");
  assert.equal(episodeKind(readOk(other)), "generic");
  assert.match(skill(other), /^Do not repeat 'jump'/);
});

function readOk(t: SerializedTrajectory) {
  const r = readSerializedTrajectory(t.text);
  assert.ok(r.ok);
  return r.value;
}

test("the analyzer is deterministic, total and always writes a valid skill as its JSON answer", async () => {
  const analyzer = ruleAnalyzer();
  const inputs = [serialized(HEAT, [[ROOM, "look"]], false), serialized(HEAT, [], false), { text: "garbage", task: "", outcome: "failure" as const, steps: 0 }];
  const a = await analyzer.analyze(inputs);
  const b = await analyzer.analyze(inputs);
  assert.deepEqual(a, b);
  for (const r of a) {
    assert.ok(r.ok);
    if (r.ok) assert.equal(r.answers[0], JSON.stringify({ skill: r.skill }));
  }
});

const DATA = resolve(import.meta.dirname, "../../../shared/data/alfworld");

test("on real ALFWorld games: expert wins give workflows naming the object, place and required step; random play gives avoidance rules", { skip: !existsSync(DATA) && "no ALFWorld data at ../shared/data" }, () => {
  const tasks = alfworldTasks(DATA, "valid_seen");
  const env = new AlfworldEnv();
  const seen = new Map<string, number>();
  let checked = 0;
  for (const task of tasks) {
    const kind = task.id.split("/").find((p) => p.includes("-"))?.split("-")[0] ?? "";
    if ((seen.get(kind) ?? 0) >= 2) continue;
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
    for (const mode of ["expert", "random"] as const) {
      const expert = new AlfworldExpert();
      const rng = Rng.from(3);
      const ep = playEpisode(env, task, 1, (obs) => (mode === "expert" ? expert.act(obs) : rng.choice((obs.admissible ?? ["look"]).filter((x) => x !== "help"))));
      let before = ep.initial.text;
      const turns: Turn[] = ep.steps.map((s) => {
        const t: Turn = { promptTokens: [], sampledTokens: [], sampledLogprobs: [], promptText: "", observation: before, responseText: s.action, actionText: s.action, valid: true, reward: s.reward, masked: false };
        before = s.observation.text;
        return t;
      });
      const traj: Trajectory = { envId: "alfworld", taskId: task.id, groupIndex: 0, memberIndex: 0, seed: 1, historyMode: "window", task: ep.initial.task, turns, return: ep.return, success: ep.won, score: ep.won ? 1 : 0, endedBy: "terminated", timings: { sampleSeconds: 0, envSeconds: 0 } };
      const s = hindsightSkill(serializeTrajectory(traj).text);
      const parsed = parseAlfworldTask(ep.initial.task)!;
      assert.ok(validateSkill(s).ok, s);
      if (mode === "expert") {
        assert.ok(ep.won, `expert lost ${task.id}`);
        assert.ok(s.startsWith("First find") && s.includes(parsed.obj) && s.includes(parsed.recep), `${ep.initial.task}: ${s}`);
        const verb = { heat: "heat it", cool: "cool it", clean: "clean it", look: "turn on the", pick: "put the", pick2: "a second" }[parsed.kind];
        assert.ok(s.includes(verb), `${ep.initial.task}: ${s}`);
      } else if (!ep.won) {
        assert.ok(s.startsWith("Do not"), s);
      }
      checked++;
    }
  }
  assert.equal(checked, 24);
});
