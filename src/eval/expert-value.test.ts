// The expert cost-to-go label on hand-made WebShop and Search-QA trajectories: the clean
// expert's own steps are good, detours (`< prev` off the goal's page, a wrong product, a repeated
// wrong search) are bad, a wrong option is bad, and a replay that leaves the trajectory is caught.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Trajectory, Turn } from "../core/trajectory.ts";
import type { Env, TaskSpec } from "../envs/env.ts";
import type { ExpertFactory } from "../envs/expert.ts";
import { makeSearchEnv, searchExpert, searchPayloadOf, syntheticSearchTasks } from "../envs/search/index.ts";
import { generatedShop, WebShopEnv, webshopExpert } from "../envs/webshop/index.ts";
import type { WebShopTaskPayload } from "../envs/webshop/types.ts";
import { expertValues, improves, type ExpertWorld } from "./expert-value.ts";

/** Plays `actions` (a function of the step's observation) on a fresh env and records the trajectory as a rollout would. */
function played(env: Env, task: TaskSpec, seed: number, actions: readonly (string | ((obs: { text: string; admissible?: readonly string[] }) => string))[]): Trajectory {
  let obs = env.reset(task, seed);
  const turns: Turn[] = [];
  let success = false, score = 0, ret = 0;
  for (const a of actions) {
    const action = typeof a === "string" ? a : a(obs);
    const r = env.step(action);
    turns.push({ promptTokens: [], sampledTokens: [], sampledLogprobs: [], promptText: "", observation: obs.text, responseText: action, actionText: action, valid: true, reward: r.reward, masked: false });
    ({ observation: obs, won: success, score } = r);
    ret += r.reward;
    if (r.done) break;
  }
  return { envId: env.id, taskId: task.id, groupIndex: 0, memberIndex: 0, seed, historyMode: "window", task: obs.task, turns, return: ret, success, score, endedBy: "terminated", timings: { sampleSeconds: 0, envSeconds: 0 } };
}

/** The clean expert's own episode, as action strings. */
function expertActions(env: Env, task: TaskSpec, expert: ExpertFactory): string[] {
  const e = expert(task, 0);
  let obs = env.reset(task, 0);
  const out: string[] = [];
  for (let i = 0; i < env.maxSteps; i++) {
    const a = e.act(obs);
    out.push(a);
    const r = env.step(a);
    if (r.done) break;
    obs = r.observation;
  }
  return out;
}

const labels = async (world: ExpertWorld, task: TaskSpec, traj: Trajectory) => {
  const { values, matches } = await expertValues(world, task, traj);
  assert.equal(values.length, traj.turns.length + 1);
  return { good: traj.turns.map((_, t) => improves(values[t]!, values[t + 1]!)), values, matches };
};

test("improves: score first, then fewer steps; unfinished runs never compare as shorter", () => {
  assert.ok(improves({ score: 0.5, steps: 1 }, { score: 1, steps: 4 }));
  assert.ok(improves({ score: 1, steps: 3 }, { score: 1, steps: 2 }));
  assert.ok(!improves({ score: 1, steps: 2 }, { score: 1, steps: 2 }));
  assert.ok(!improves({ score: 1, steps: 2 }, { score: 0.9, steps: 0 }));
  assert.ok(!improves({ score: 0, steps: Infinity }, { score: 0, steps: Infinity }));
  assert.ok(!improves({ score: 0.5, steps: Infinity }, { score: 0.5, steps: Infinity }));
});

const shop = generatedShop({ products: 100, seed: 0 });
// A goal with two options, so the order of option clicks matters.
const shopTask = shop.tasks("test").find((t) => Object.keys((t.payload as WebShopTaskPayload).goal.optionsByName ?? {}).length >= 2)!;
const shopWorld: ExpertWorld = { makeEnv: () => new WebShopEnv(shop), expert: webshopExpert, maxSteps: 15 };

test("webshop: the clean expert's episode is good at every step, and from the start it scores 1", async () => {
  assert.ok(shopTask !== undefined);
  const plan = expertActions(shopWorld.makeEnv(), shopTask, webshopExpert);
  assert.ok(plan.length >= 5 && plan.at(-1) === "click[buy now]", plan.join(" "));
  const traj = played(shopWorld.makeEnv(), shopTask, 0, plan);
  assert.equal(traj.success, true);
  const r = await labels(shopWorld, shopTask, traj);
  assert.equal(r.matches, true);
  assert.deepEqual(r.good, plan.map(() => true));
  assert.deepEqual(r.values[0], { score: 1, steps: plan.length });
  assert.deepEqual(r.values.at(-1), { score: 1, steps: 0 });
});

test("webshop: < prev off the goal's page, a wrong product, a wrong option and an early buy are bad; the history is followed", async () => {
  const plan = expertActions(shopWorld.makeEnv(), shopTask, webshopExpert);
  const [search, clickGoal, opt1, opt2] = plan;
  const goalAsin = clickGoal!;
  const other = (obs: { admissible?: readonly string[] }) => obs.admissible!.find((a) => /^click\[b0/.test(a) && a !== goalAsin)!;
  const wrongOption = (obs: { admissible?: readonly string[] }) => {
    const buttons = new Set(["click[back to search]", "click[< prev]", "click[description]", "click[features]", "click[reviews]", "click[buy now]"]);
    return obs.admissible!.find((a) => !buttons.has(a) && a !== opt1 && a !== opt2)!;
  };
  // search, goal, < prev (detour: bad), another product (bad), < prev back (good), goal again,
  // the second option first (out of the expert's order, still good), a wrong option (bad), the
  // first option, the second option again, buy. The page does not say which group the wrong value
  // belongs to, so after it the expert forgets its choices and counts the second option as still
  // to do (the documented approximation of `follow`): the re-click is labelled good.
  const traj = played(shopWorld.makeEnv(), shopTask, 0, [search!, clickGoal!, "click[< prev]", other, "click[< prev]", clickGoal!, opt2!, wrongOption, opt1!, opt2!, "click[buy now]"]);
  assert.equal(traj.success, true);
  const r = await labels(shopWorld, shopTask, traj);
  assert.equal(r.matches, true);
  assert.deepEqual(r.good, [true, true, false, false, true, true, true, false, true, true, true]);
  // The out-of-order option click is remembered (`follow`): after it the expert needs the other option and Buy Now only.
  assert.deepEqual(r.values[7], { score: 1, steps: 2 });
  // Buying before choosing the options scores less than the expert would: bad.
  const early = played(shopWorld.makeEnv(), shopTask, 0, [search!, clickGoal!, "click[buy now]"]);
  const e = await labels(shopWorld, shopTask, early);
  assert.ok(early.score < 1);
  assert.deepEqual(e.good, [true, true, false]);
});

test("webshop: invalid actions up to the step limit are all bad, also once the expert can no longer buy in time", async () => {
  const traj = played(shopWorld.makeEnv(), shopTask, 0, Array.from({ length: 15 }, () => "click[nothing]"));
  assert.equal(traj.turns.length, 15);
  const r = await labels(shopWorld, shopTask, traj);
  assert.equal(r.matches, true);
  assert.deepEqual(r.good, traj.turns.map(() => false));
  // The environment ends the episode at its limit: a run cut there is a failure, not a shorter one.
  assert.deepEqual(r.values.slice(-3), [{ score: 0, steps: Infinity }, { score: 0, steps: Infinity }, { score: 0, steps: Infinity }]);
});

test("webshop: a replay that does not reproduce the trajectory is a mismatch", async () => {
  const plan = expertActions(shopWorld.makeEnv(), shopTask, webshopExpert);
  const traj = played(shopWorld.makeEnv(), shopTask, 0, plan);
  const seen = structuredClone(traj);
  seen.turns[2]!.observation += " (another page)";
  assert.equal((await expertValues(shopWorld, shopTask, seen)).matches, false);
  const outcome = structuredClone(traj);
  outcome.success = false;
  assert.equal((await expertValues(shopWorld, shopTask, outcome)).matches, false);
});

const qTask = syntheticSearchTasks("test").find((t) => (searchPayloadOf(t).hops ?? []).length >= 2)!;
const searchWorld: ExpertWorld = { makeEnv: () => makeSearchEnv(), expert: searchExpert, maxSteps: 4 };

test("search: each hop's search and the answer are good; a repeated search, a wrong answer and a search that leaves no time are bad", async () => {
  const hops = searchPayloadOf(qTask).hops!;
  const answer = `<answer>${searchPayloadOf(qTask).answers[0]}</answer>`;
  const plan = expertActions(searchWorld.makeEnv(), qTask, searchExpert);
  assert.deepEqual(plan, [...hops.map((h) => `<search>${h.query}</search>`), answer]);
  const clean = played(searchWorld.makeEnv(), qTask, 0, plan);
  const c = await labels(searchWorld, qTask, clean);
  assert.equal(c.matches, true);
  assert.deepEqual(c.good, plan.map(() => true));
  // The first hop twice: the repeat teaches the expert nothing (same steps to go: bad), and with
  // two hops and four turns the second hop's search still fits (good), then the answer (good).
  const again = `<search>${hops[0]!.query}</search>`;
  const rep = played(searchWorld.makeEnv(), qTask, 0, [again, again, `<search>${hops[1]!.query}</search>`, answer]);
  const r = await labels(searchWorld, qTask, rep);
  assert.equal(r.matches, true);
  assert.deepEqual(r.good, [true, false, true, true]);
  // A wrong answer ends the episode with score 0 where the expert would have scored 1.
  const wrong = played(searchWorld.makeEnv(), qTask, 0, [again, "<answer>nobody</answer>"]);
  assert.deepEqual((await labels(searchWorld, qTask, wrong)).good, [true, false]);
  // Two wrong searches leave two turns for two hops and the answer: the expert's last search is
  // the fourth turn, which ends the episode unanswered (score 0).
  const lost = played(searchWorld.makeEnv(), qTask, 0, ["<search>weather</search>", "<search>weather</search>"]);
  const l = await labels(searchWorld, qTask, lost);
  assert.equal(hops.length, 2);
  assert.deepEqual(l.good, [false, false]);
  assert.deepEqual(l.values.at(-1), { score: 0, steps: Infinity }, "a failure's length does not count");
});
