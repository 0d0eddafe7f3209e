// EZPoints: hands, formula evaluation with Python's rules, the step rules of gym-cards
// (verl-agent rewards), the expert, and the shared conformance suite.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DataError } from "../../core/errors.ts";
import { Rng } from "../../core/rng.ts";
import { runEnvConformance } from "../../testing/env-conformance.ts";
import { NoisyExpert, playEpisode } from "../expert.ts";
import type { TaskSpec } from "../env.ts";
import { EzPointsEnv, evaluateFormula, ezpointsExpert, ezpointsRandomAction, ezpointsTasks, generateHand, parseCard, solveEzPoints, splitFormula } from "./index.ts";

const cardsTask = (a: string, b: string): TaskSpec => ({ id: `ezpoints/${a}-${b}`, split: "test", payload: { cards: [a, b] } });

test("evaluateFormula follows Python's integer expression rules", () => {
  const cases: [string[], number | undefined][] = [
    [["4", "*", "3"], 12], [["10", "+", "2"], 12], [["1", "2"], 12], [["2", "+", "3", "*", "4"], 14],
    [["+", "4", "*", "3"], 12], [["4", "*", "+", "3"], 12], [["2", "+", "+", "2"], 4], [["2", "*", "*", "3"], 8],
    [["2", "*", "*", "3", "*", "*", "2"], 512], [["2", "*", "*", "+", "3"], 8],
    [[], undefined], [["4", "+"], undefined], [["*", "4"], undefined], [["+"], undefined],
    [["4", "*", "*", "*", "3"], undefined], [["4", "*", "+", "*", "3"], undefined],
  ];
  for (const [tokens, value] of cases) assert.equal(evaluateFormula(tokens), value, tokens.join(""));
});

test("every generated hand has a one-operator solution and no ace", () => {
  const seen = new Set<string>();
  for (let seed = 0; seed < 3000; seed++) {
    const hand = generateHand(seed);
    const [a, b] = hand.map((c) => c.value) as [number, number];
    assert.ok(a + b === 12 || a * b === 12, `seed ${seed}: ${hand.map((c) => c.name)}`);
    assert.ok(hand.every((c) => !c.name.endsWith("A") && c.value >= 2 && c.value <= 10));
    assert.ok(solveEzPoints([a, b]) !== undefined);
    seen.add(hand.map((c) => c.name).join(","));
  }
  assert.ok(seen.size > 100, "hands vary with the seed");
  assert.deepEqual(generateHand(42), generateHand(42));
});

test("parseCard reads names and rejects garbage", () => {
  assert.deepEqual(parseCard("st"), { name: "ST", value: 10 });
  assert.deepEqual(parseCard("HA"), { name: "HA", value: 1 });
  assert.deepEqual(parseCard("DK"), { name: "DK", value: 10 });
  assert.throws(() => parseCard("X9"), DataError);
  assert.throws(() => new EzPointsEnv().reset({ id: "bad", split: "x", payload: {} }, 0), DataError);
});

test("4 * 3 = on {4, 3} pays +10 and wins", () => {
  const env = new EzPointsEnv();
  const obs = env.reset(cardsTask("S4", "H3"), 0);
  assert.equal(obs.text, "Cards: 4 of spades (S4, value 4) and 3 of hearts (H3, value 3)\nFormula: ''");
  const rewards = ["4", "*", "3"].map((a) => env.step(a).reward);
  assert.deepEqual(rewards, [0, 0, 0]);
  const r = env.step("=");
  assert.equal(r.observation.text.endsWith("Formula: '4*3'"), true);
  assert.deepEqual([r.reward, r.done, r.won, r.score], [10, true, true, 1]);
});

test("reusing a number is invalid and appends nothing; a duplicate card allows it twice", () => {
  const env = new EzPointsEnv();
  env.reset(cardsTask("S4", "H3"), 0);
  env.step("4");
  const r = env.step("4");
  assert.deepEqual([r.actionRecognized, r.reward, r.done], [false, 0, false]);
  assert.ok(r.observation.text.endsWith("Formula: '4'"));
  const twin = new EzPointsEnv();
  twin.reset(cardsTask("S6", "H6"), 0);
  for (const a of ["6", "+"]) twin.step(a);
  assert.equal(twin.step("6").actionRecognized, true);
  const end = twin.step("=");
  assert.deepEqual([end.reward, end.won], [10, true]);
});

test("= with one number pays 0 and ends; a syntax error pays 0 and ends", () => {
  const env = new EzPointsEnv();
  env.reset(cardsTask("HA", "S2"), 0);
  env.step("2");
  assert.deepEqual(env.step("*").reward, 0);
  const r = env.step("=");
  assert.deepEqual([r.reward, r.done, r.won], [0, true, false]);
  env.reset(cardsTask("HA", "S2"), 0);
  env.step("+");
  assert.deepEqual([env.step("=").reward], [0]);
  // An ace and a two written side by side read as 12 in Python: the benchmark pays it.
  env.reset(cardsTask("HA", "S2"), 0);
  for (const a of ["1", "2"]) env.step(a);
  assert.equal(env.step("=").reward, 10);
});

test("a formula longer than five tokens truncates the episode with reward 0", () => {
  const env = new EzPointsEnv({ maxSteps: 20 });
  env.reset(cardsTask("S4", "H3"), 0);
  for (const a of ["+", "+", "+", "+", "4", "*"]) assert.equal(env.step(a).done, false);
  const r = env.step("3");
  assert.deepEqual([r.reward, r.done, r.won], [0, true, false]);
  assert.ok(r.observation.text.endsWith("Formula: '++++4*'"), "the action after the limit is not applied");
});

test("the episode ends after 8 steps even on no-ops", () => {
  const env = new EzPointsEnv();
  env.reset(cardsTask("S4", "H3"), 0);
  const done = Array.from({ length: 8 }, () => env.step("nonsense").done);
  assert.deepEqual(done, [false, false, false, false, false, false, false, true]);
});

test("splitFormula and the expert re-plan from any prefix", () => {
  assert.deepEqual(splitFormula("1010+2"), ["10", "10", "+", "2"]);
  assert.deepEqual(splitFormula("110"), ["1", "10"]);
  assert.deepEqual(solveEzPoints([4, 3], ["+"]), ["4", "*", "3"]);
  assert.deepEqual(solveEzPoints([4, 3], ["4", "+"]), undefined);
  assert.deepEqual(solveEzPoints([7, 7]), undefined);
  // A hand without a solution: the expert ends the game at once, scored 0 as the benchmark does.
  const ep = playEpisode(new EzPointsEnv(), cardsTask("S7", "H7"), 0, ezpointsExpert(cardsTask("S7", "H7"), 0).act);
  assert.deepEqual(ep.steps.map((s) => s.action), ["="]);
  assert.equal(ep.won, false);
});

test("the noisy expert still wins most games and is deterministic per seed", () => {
  const tasks = ezpointsTasks("train", 200);
  const run = () => tasks.map((task, i) => {
    const expert = new NoisyExpert(ezpointsExpert(task, i), { epsilon: 0.2, rng: Rng.from(i), randomAction: ezpointsRandomAction });
    return playEpisode(new EzPointsEnv(), task, i, (o) => expert.act(o)).won;
  });
  const a = run();
  assert.deepEqual(run(), a);
  const rate = a.filter(Boolean).length / a.length;
  assert.ok(rate > 0.4 && rate < 1, `noisy win rate ${rate}`);
});

runEnvConformance({
  name: "ezpoints",
  makeEnv: () => new EzPointsEnv(),
  tasks: [...ezpointsTasks("train", 4), ...ezpointsTasks("validation", 2), cardsTask("S7", "H7")].map((t) => t),
  sampleActions: ["1", "4", "10", "+", "*", "=", "4*", "eleven", ""],
  invalidObservation: (before) => before.text,
  countedActions: ["+"],
  expert: ezpointsExpert,
  expertMinWinRate: 0.85,
});
