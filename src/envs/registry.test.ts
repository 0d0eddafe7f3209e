// The registry: every available environment builds, serves tasks of its splits, and its expert
// plays them; names and options are validated; real data is reached through `dataPath`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { playEpisode } from "./expert.ts";
import { availableEnvs, ENV_NAMES, envEntry, makeEnv, makeExpert, taskSource } from "./registry.ts";

const DATA = resolve(import.meta.dirname, "../../../shared/data");

test("every available environment builds, serves its splits, and its expert wins a task", () => {
  assert.ok(availableEnvs().length >= 4, `available: ${availableEnvs().join(", ")}`);
  for (const name of availableEnvs()) {
    const entry = envEntry(name);
    for (const split of entry.splits) {
      const tasks = taskSource(name, split, { count: 3 });
      assert.ok(tasks.length > 0 && tasks.length <= 3, `${name}/${split}`);
      assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length, `${name}/${split}: unique ids`);
    }
    const task = taskSource(name, entry.evalSplits[0]!, { count: 1 })[0]!;
    const env = makeEnv(name);
    assert.equal(env.id, name);
    const expert = makeExpert(name, task, 0);
    const ep = playEpisode(env, task, 0, (o) => expert.act(o), 2 * env.maxSteps);
    assert.ok(ep.won, `${name}: the expert wins ${task.id}`);
  }
});

test("task sources are deterministic and the noisy expert is seeded", () => {
  for (const name of availableEnvs()) {
    assert.deepEqual(taskSource(name, envEntry(name).splits[0]!, { count: 5 }), taskSource(name, envEntry(name).splits[0]!, { count: 5 }));
  }
  const [task] = taskSource("sokoban", "validation", { count: 1 });
  const play = () => {
    const expert = makeExpert("sokoban", task!, 3, 0.5);
    return playEpisode(makeEnv("sokoban"), task!, 3, (o) => expert.act(o)).steps.map((s) => s.action);
  };
  assert.deepEqual(play(), play());
  assert.equal(taskSource("sokoban", "validation").length, 128, "the protocol's 128 validation seeds by default");
});

test("unknown names, splits and options are UsageErrors naming the valid ones", () => {
  assert.deepEqual([...ENV_NAMES], ["alfworld", "webshop", "search", "sokoban", "ezpoints"]);
  assert.throws(() => makeEnv("chess"), (e: unknown) => e instanceof UsageError && /one of alfworld, webshop, search, sokoban, ezpoints/.test(e.message));
  assert.throws(() => makeEnv("sokoban", { corpus: "x" }), (e: unknown) => e instanceof UsageError && /does not take option\(s\) corpus/.test(e.message));
  assert.throws(() => taskSource("ezpoints", "nope"), UsageError);
  assert.throws(() => taskSource("search", "nope"), UsageError);
});

test("dataPath switches ALFWorld to the real games", { skip: existsSync(resolve(DATA, "alfworld")) ? false : `no ${DATA}/alfworld` }, () => {
  const games = taskSource("alfworld", "valid_seen", { dataPath: resolve(DATA, "alfworld") });
  assert.equal(games.length, 140);
  assert.equal(taskSource("alfworld", "valid_unseen", { dataPath: resolve(DATA, "alfworld"), count: 5 }).length, 5);
  const task = games.find((t) => t.id.includes("pick_and_place_simple-Book-None-SideTable-329"))!;
  const obs = makeEnv("alfworld").reset(task, 0);
  assert.match(obs.text, /^-= Welcome to TextWorld, ALFRED! =-/);
  assert.equal(obs.task, "put some book on sidetable.");
});

test("dataPath switches Search-QA tasks to the real question sets", { skip: existsSync(DATA) ? false : `no ${DATA}` }, () => {
  const nq = taskSource("search", "nq", { dataPath: resolve(DATA, "search-qa"), count: 10 });
  assert.equal(nq.length, 10);
  assert.equal(nq[0]!.split, "nq");
  assert.equal(taskSource("search", "bamboogle", { dataPath: resolve(DATA, "search-qa") }).length, 125);
  assert.throws(() => taskSource("search", "triviaqa", { dataPath: resolve(DATA, "search-qa") }), /no question set 'triviaqa'.*bamboogle/);
  for (const options of [{ corpus: resolve(DATA, "search-qa/wiki18_sample_1000.jsonl") }, { dataPath: resolve(DATA, "search-qa") }]) {
    const env = makeEnv("search", options);
    env.reset(nq[0]!, 0);
    assert.match(env.step("<search>Evan Morris</search>").observation.text, /^<information>\{"result": "Doc 1: \\"Evan Morris\\"/);
  }
});
