/**
 * Search-QA's Stage 0: the demonstrator, its hints (naming the queries that worked), misleading
 * hints, tokenization equal to a full-mode rollout (Stage 0 at tiny sizes: scored-stage0.test.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rendererFor } from "../../agent/prompts/index.ts";
import { assertEncodesAsRollout } from "../../testing/demo-rollout.ts";
import { tinyStage0Config } from "../../testing/stage0-config.ts";
import type { SeedConfig } from "../../config/config.ts";
import { trainingEnv } from "../../run/training-env.ts";
import { UsageError } from "../../core/errors.ts";
import type { SearchPayload } from "../../envs/search/index.ts";
import { demoTexts, type DemoWorld } from "./demos.ts";
import { runStage0 } from "./stage0.ts";
import { hintQueries, misleadingSearchHint, playSearchCorpus, playSearchDemo, searchHindsightHint, searchResponse } from "./search-demos.ts";

function world(c: SeedConfig): DemoWorld {
  const env = trainingEnv(c);
  return { makeEnv: () => env.makeEnv(), maxSteps: env.maxSteps };
}

const hops = (t: { payload: unknown }) => (t.payload as SearchPayload).hops ?? [];

test("search demonstrations: the hint names the chain's queries (the bridge entity too), the demonstrator searches them in order and answers", async () => {
  const c = tinyStage0Config("search");
  const w = world(c);
  const tasks = trainingEnv(c).tasks("train", 400);
  const twoHop = tasks.find((t) => hops(t).length === 2)!;
  const { hint, oracle } = await searchHindsightHint(w, twoHop, 5);
  assert.ok(oracle.won && oracle.score === 1, "the clean expert answers right");
  assert.deepEqual(hintQueries(hint), hops(twoHop).map((h) => h.query));
  assert.ok(!(twoHop.payload as SearchPayload).question.includes(hops(twoHop)[1]!.query), "the second query is not in the question");
  const demo = playSearchDemo(w, twoHop, 5, 0, hint);
  assert.deepEqual(demo.steps.map((s) => s.action), [...hops(twoHop).map((h) => `<search>${h.query}</search>`), `<answer>${(twoHop.payload as SearchPayload).answers[0]}</answer>`]);
  assert.equal(demo.steps[0]!.response, searchResponse(demo.steps[0]!.action));
  assert.equal(demo.steps[0]!.response, `<think>look up the entity</think><search> ${hops(twoHop)[0]!.query} </search>`);
  assert.ok(demo.won && demo.score === 1);

  const other = tasks.find((t) => hops(t)[0]!.query !== hops(twoHop)[0]!.query)!;
  const otherHint = (await searchHindsightHint(w, other, 6)).hint;
  const wrong = misleadingSearchHint(hint, otherHint)!;
  assert.deepEqual(hintQueries(wrong), hintQueries(otherHint));
  assert.equal(wrong.replace(/\(queries that worked: [^)]*\)/, ""), hint.replace(/\(queries that worked: [^)]*\)/, ""), "only the queries change");
  assert.equal(misleadingSearchHint(hint, hint), undefined);
  assert.equal(misleadingSearchHint("Do not repeat the query 'x'.", otherHint), undefined);

  const corpus = await playSearchCorpus(c, tasks.slice(0, 6), w, 1, true);
  assert.equal(corpus.length, 12);
  assert.ok(corpus.some((d) => d.hint !== "") && corpus.some((d) => d.hint === ""), "both kinds at hint share 0.7");
  assert.deepEqual((await playSearchCorpus(c, tasks.slice(0, 6), w, 1, true)).map((d) => d.steps.map((s) => s.action)), corpus.map((d) => d.steps.map((s) => s.action)), "a pure function of the seed");
});

test("a noisy search demonstration is tokenized exactly as a full-mode rollout of its responses, mask on expert responses only", async () => {
  const c = tinyStage0Config("search");
  const w = world(c);
  const renderer = rendererFor("search", c.rollout.prompt);
  const tasks = trainingEnv(c).tasks("train", 60);
  // An episode with both random and expert steps at ε 0.5 (seeded, so the pick is fixed).
  const found = tasks.flatMap((t) => [1, 2, 3, 4].map((s) => ({ t, s, d: playSearchDemo(w, t, s, 0.5, "") }))).find(({ d }) => d.steps.some((x) => !x.expert) && d.steps.some((x) => x.expert))!;
  const { hint } = await searchHindsightHint(w, found.t, found.s);
  const demo = playSearchDemo(w, found.t, found.s, 0.5, hint);
  const texts = demoTexts(demo, renderer);
  assert.ok(texts[0]!.includes(hint), texts[0]);
  await assertEncodesAsRollout(demo, found.t, found.s, w, renderer);
});


test("search Stage 0 refuses real QA sets in one line (no fact chain to demonstrate)", async () => {
  const c = tinyStage0Config("search");
  c.env.data = "../shared/data/search-qa";
  await assert.rejects(runStage0(c, { outDir: join(tmpdir(), "seed-never-written"), quiet: true }), (e: Error) => e instanceof UsageError && !e.message.includes("\n") && /generated knowledge base only/.test(e.message));
});
