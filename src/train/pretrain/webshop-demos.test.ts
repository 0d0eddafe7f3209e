// WebShop Stage 0: the corpus is the seeded noisy expert on training goals, hinted episodes carry
// the rule analyzer's workflow and follow its query, a demonstration's ids are exactly those of a
// `full`-mode rollout of its responses through the WebShop (verl-agent) renderer, and missing
// data is a one-line error (Stage 0 at tiny sizes: scored-stage0.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rendererFor } from "../../agent/prompts/index.ts";
import { assertEncodesAsRollout } from "../../testing/demo-rollout.ts";
import { tinyStage0Config } from "../../testing/stage0-config.ts";
import type { SeedConfig } from "../../config/config.ts";
import { DataError, UsageError } from "../../core/errors.ts";
import { trainingEnv } from "../../run/training-env.ts";
import { demoTexts, type DemoWorld } from "./demos.ts";
import { runStage0 } from "./stage0.ts";
import { demoQuery, hintQuery, misleadingWebshopHint, playWebshopCorpus, playWebshopDemo, webshopHindsightHint, webshopResponse } from "./webshop-demos.ts";

function world(c: SeedConfig): DemoWorld {
  const env = trainingEnv(c);
  return { makeEnv: () => env.makeEnv(), maxSteps: env.maxSteps };
}

test("the demonstrator's query is the instruction's product phrase as one span", () => {
  assert.equal(demoQuery("i need a button closure dress with color: red, and size: medium, and price lower than 90.00 dollars"), "button closure dress");
  assert.equal(demoQuery("im looking for some certified organic coffee beans with item package quantity: pack of 3, and price lower than 50.00 dollars"), "certified organic coffee beans");
  assert.equal(demoQuery("i want living room hidden zipper throw pillow covers, and price lower than 60.00 dollars"), "living room hidden zipper throw pillow covers");
});

test("webshop demonstrations: hinted episodes carry the analyzer's workflow and search with its query; misleading hints swap the query", async () => {
  const c = tinyStage0Config("webshop");
  const w = world(c);
  const [task, other] = trainingEnv(c).tasks("train", 2);
  const { hint, oracle } = await webshopHindsightHint(w, task!, 5);
  assert.ok(oracle.won && oracle.score === 1, "the clean expert buys the goal product");
  assert.match(hint, /^Search with the key attributes of the request \(a query like '[^']+'\)/);
  const demo = playWebshopDemo(w, task!, 5, 0, hint);
  assert.equal(demo.steps[0]!.action, `search[${hintQuery(hint)}]`);
  assert.equal(demo.steps.at(-1)!.action, "click[buy now]");
  assert.equal(demo.steps[0]!.response, webshopResponse(demo.steps[0]!.action));
  assert.match(demo.steps[0]!.response, /^<think>[^<]+<\/think><action>search\[[^\]]+\]<\/action>$/);
  const otherHint = (await webshopHindsightHint(w, other!, 6)).hint;
  const wrong = misleadingWebshopHint(hint, otherHint)!;
  assert.equal(hintQuery(wrong), hintQuery(otherHint));
  assert.notEqual(hintQuery(wrong), hintQuery(hint));
  assert.equal(misleadingWebshopHint(hint, hint), undefined);

  const corpus = await playWebshopCorpus(c, trainingEnv(c).tasks("train", 6), w, 1, true);
  assert.equal(corpus.length, 12);
  assert.ok(corpus.some((d) => d.hint !== "") && corpus.some((d) => d.hint === ""), "both kinds at hint share 0.7");
  assert.deepEqual((await playWebshopCorpus(c, trainingEnv(c).tasks("train", 6), w, 1, true)).map((d) => d.steps.map((s) => s.action)), corpus.map((d) => d.steps.map((s) => s.action)), "a pure function of the seed");
});

test("a hinted webshop demonstration is tokenized exactly as a full-mode rollout of its responses, with the available-actions list, mask on expert responses only", async () => {
  const c = tinyStage0Config("webshop");
  const w = world(c);
  const renderer = rendererFor("webshop", c.rollout.prompt);
  const [task] = trainingEnv(c).tasks("train", 1);
  const { hint } = await webshopHindsightHint(w, task!, 9);
  const demo = playWebshopDemo(w, task!, 9, 0.4, hint);
  assert.ok(demo.steps.some((s) => !s.expert) && demo.steps.some((s) => s.expert), "some random and some expert steps at ε 0.4");
  const texts = demoTexts(demo, renderer);
  assert.ok(texts[0]!.includes(hint) && texts[0]!.includes("Your available actions are:\n[\n'search[<your query>]',"), texts[0]);
  await assertEncodesAsRollout(demo, task!, 9, w, renderer);
});


test("webshop Stage 0 bad input: missing data is one line naming the file; an environment without a demonstrator is refused", async () => {
  const c = tinyStage0Config("webshop");
  c.env.data = "/nonexistent/webshop-data";
  await assert.rejects(runStage0(c, { outDir: join(tmpdir(), "seed-never-written"), quiet: true }), (e: Error) => e instanceof DataError && !e.message.includes("\n") && e.message.includes("/nonexistent/webshop-data/items_shuffle_1000.json"));
  const s = tinyStage0Config("webshop");
  s.env.name = "sokoban";
  await assert.rejects(runStage0(s, { outDir: join(tmpdir(), "seed-never-written"), quiet: true }), (e: Error) => e instanceof UsageError && /alfworld, webshop, search only; env.name is 'sokoban'/.test(e.message));
});
