// The WebShop environment: action parsing, page transitions and clickables (upstream
// `web_agent_text_env.py`), rewards and success, step limit and state errors, on a hand-built shop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DataError, EnvStateError } from "../../core/errors.ts";
import { cleanProducts, productPrices } from "./catalog.ts";
import { WebShopEnv, parseAction, SEARCH_ACTION } from "./env.ts";
import { syntheticGoals } from "./goals.ts";
import { reformatObservation } from "./observation.ts";
import { Shop } from "./shop.ts";
import type { RawProduct } from "./types.ts";

/** Twelve lamps (two results pages for "lamp"); lamp 0 has colour and size options. */
function lampShop(): Shop {
  const records: RawProduct[] = Array.from({ length: 12 }, (_, i) => ({
    asin: `B00000LMP${i.toString(16).toUpperCase()}`,
    name: `Lumo Lamp Model ${i}${i === 0 ? " Dimmable Desk Lamp" : ""}`,
    full_description: `Lamp number ${i} lights a desk.`,
    small_description: [`Bulb ${i} included`, "Energy saving"],
    pricing: i === 0 ? "$25.00" : "$15.00",
    customization_options: i === 0 ? { Color: [{ value: "Black" }, { value: "White" }], Size: [{ value: "Small" }, { value: "Large" }] } : "",
    product_category: "Home › Lighting › Lamps",
    category: "garden",
    query: "desk lamps",
  }));
  const products = cleanProducts(records);
  const prices = productPrices(products, 0);
  const goals = syntheticGoals(products.slice(0, 1), prices, new Map([["B00000LMP0", { instruction: "i need a dimmable desk lamp", attributes: ["dimmable"] }]]), 0);
  return new Shop({ name: "lamps", products, prices, goals, layout: { testSize: 1, trainStart: 1 } });
}

/** The goal asking for white and large. */
function whiteLarge(shop: Shop): ReturnType<Shop["task"]> {
  const i = shop.goals.findIndex((g) => g.goalOptions.join("/") === "white/large");
  return shop.task(i);
}

test("actions parse with the benchmark's greedy pattern, first line only, in linear time", () => {
  assert.deepEqual(parseAction("click[< Prev]"), { name: "click", arg: "< Prev" });
  assert.deepEqual(parseAction("search[a [b] c]"), { name: "search[a ", arg: "b] c" });
  assert.deepEqual(parseAction("click[a]b]"), { name: "click", arg: "a]b" });
  assert.deepEqual(parseAction("search[ab]junk"), { name: "search", arg: "ab" });
  assert.deepEqual(parseAction("search[x]\nclick[y]"), { name: "search", arg: "x" });
  assert.deepEqual(parseAction("click[]"), { name: "click[]", arg: null });
  assert.deepEqual(parseAction("[x]"), { name: "[x]", arg: null });
  const t0 = performance.now();
  parseAction("[".repeat(200_000) + "]");
  assert.ok(performance.now() - t0 < 500);
});

test("search, page turns, item, options, sub-pages and back, with the benchmark's texts and clickables", () => {
  const shop = lampShop();
  const env = new WebShopEnv(shop);
  const task = whiteLarge(shop);
  const instr = shop.goals[(task.payload as { goalIndex: number }).goalIndex]!.instructionText;
  const start = env.reset(task, 0);
  assert.equal(start.text, `WebShop [SEP] Instruction: [SEP] ${instr} [SEP] Search`);
  assert.deepEqual(start.admissible, [SEARCH_ACTION, "click[search]"]);
  assert.equal(start.task, instr);

  let r = env.step("search[Lamp]");
  assert.ok(r.actionRecognized);
  assert.ok(r.observation.text.startsWith(`Instruction: [SEP] ${instr} [SEP] Back to Search [SEP] Page 1 (Total results: 12) [SEP] Next > [SEP] B00000LMP`));
  assert.equal(r.observation.admissible!.length, 12);
  assert.deepEqual(r.observation.admissible!.slice(0, 2), ["click[back to search]", "click[next >]"]);

  r = env.step("click[next >]");
  assert.match(r.observation.text, /Page 2 \(Total results: 12\) \[SEP\] < Prev \[SEP\] Next > \[SEP\] B00000LMP/);
  assert.equal(r.observation.admissible!.length, 2 + 1 + 2);
  r = env.step("click[next >]"); // past the last hit: an empty page that still offers Next >
  assert.match(r.observation.text, /Page 3 \(Total results: 12\) \[SEP\] < Prev \[SEP\] Next >$/);
  env.step("click[< prev]");
  r = env.step("click[< prev]");
  assert.match(r.observation.text, /Page 1 \(Total results: 12\) \[SEP\] Next >/);

  r = env.step("click[b00000lmp0]");
  assert.equal(r.observation.text, `Instruction: [SEP] ${instr} [SEP] Back to Search [SEP] < Prev [SEP] color [SEP] black [SEP] white [SEP] size [SEP] small [SEP] large [SEP] Lumo Lamp Model 0 Dimmable Desk Lamp [SEP] Price: $25.0 [SEP] Rating: N.A. [SEP] Description [SEP] Features [SEP] Reviews [SEP] Buy Now`);
  assert.deepEqual(r.observation.admissible, ["click[back to search]", "click[< prev]", "click[description]", "click[features]", "click[reviews]", "click[buy now]", "click[black]", "click[white]", "click[small]", "click[large]"]);
  assert.equal(env.state!.asin, "B00000LMP0");

  env.step("click[WHITE]"); // the argument is lower-cased before matching
  assert.deepEqual([...env.state!.options], [["color", "white"]]);
  r = env.step("click[features]");
  assert.equal(r.observation.text, `Instruction: [SEP] ${instr} [SEP] Back to Search [SEP] < Prev [SEP] Bulb 0 included [SEP] Energy saving`);
  assert.deepEqual(r.observation.admissible, ["click[back to search]", "click[< prev]"]);
  env.step("click[< prev]"); // back to the item page, options kept
  assert.equal(env.state!.page, "item");
  assert.deepEqual([...env.state!.options], [["color", "white"]]);
  env.step("click[< prev]"); // back to results: product and options cleared
  assert.equal(env.state!.page, "results");
  assert.equal(env.state!.asin, null);
  assert.equal(env.state!.options.size, 0);
  r = env.step("click[back to search]");
  assert.equal(r.observation.text, start.text);
});

test("buying the goal product with the goal options scores 1.0 and pays 10; a wrong option pays 0", () => {
  const shop = lampShop();
  const env = new WebShopEnv(shop);
  const task = whiteLarge(shop);
  env.reset(task, 0);
  for (const a of ["search[dimmable desk lamp]", "click[b00000lmp0]", "click[white]", "click[large]"]) assert.equal(env.step(a).reward, 0);
  const win = env.step("click[buy now]");
  assert.deepEqual([win.reward, win.done, win.won, win.score], [10, true, true, 1]);
  assert.equal(win.observation.text, "Thank you for shopping with us! [SEP] Your score (min 0.0, max 1.0) [SEP] 1.0");
  assert.throws(() => env.step("click[buy now]"), EnvStateError);

  env.reset(task, 0);
  for (const a of ["search[dimmable desk lamp]", "click[b00000lmp0]", "click[white]", "click[small]", "click[buy now]"]) env.step(a);
  assert.equal(env.lastReward!.score, 0.75);
  assert.equal(env.lastReward!.optionMatches, 1);
});

test("invalid actions leave the page unchanged with reward 0; search works from any page; 'click[search]' is refused", () => {
  const shop = lampShop();
  const env = new WebShopEnv(shop);
  const start = env.reset(whiteLarge(shop), 0);
  for (const a of ["click[search]", "search[]", "Search[lamp]", "click[buy now]", "<action>search[lamp]</action>", "click[b00000lmp0]"]) {
    const r = env.step(a);
    assert.equal(r.actionRecognized, false, a);
    assert.equal(r.observation.text, start.text, a);
    assert.equal(r.reward, 0);
  }
  env.reset(whiteLarge(shop), 0);
  env.step("search[lamp]");
  env.step("click[b00000lmp0]");
  const r = env.step("search[model 3]"); // not advertised on the item page, executed anyway (upstream)
  assert.ok(r.actionRecognized);
  assert.match(r.observation.text, /Page 1 \(Total results: \d+\)/);
});

test("the episode ends after 15 actions, recognised or not, without reward; state errors are EnvStateError", () => {
  const shop = lampShop();
  const env = new WebShopEnv(shop);
  assert.throws(() => env.step("search[x]"), EnvStateError);
  env.reset(whiteLarge(shop), 0);
  for (let t = 1; t <= 15; t++) {
    const r = env.step(t % 2 ? "nonsense" : "search[lamp]");
    assert.equal(r.done, t === 15);
    assert.equal(r.won, false);
    assert.equal(r.reward, 0);
  }
  assert.throws(() => env.step("search[lamp]"), EnvStateError);
  assert.throws(() => env.reset({ id: "x", split: "test", payload: {} }, 0), DataError);
});

test("verl-agent reformatting keeps the quoted parts after the instruction", () => {
  const obs = "Instruction: [SEP] i need a lamp [SEP] Back to Search [SEP] Page 1 (Total results: 12) [SEP] Next >";
  assert.equal(reformatObservation(obs, "i need a lamp"), "'Back to Search' [SEP] 'Page 1 (Total results: 12)' [SEP] 'Next >'");
  assert.equal(reformatObservation("WebShop [SEP] Instruction: [SEP] i need a lamp [SEP] Search", "i need a lamp"), "'Search'");
  assert.equal(reformatObservation("no task here", "i need a lamp"), "no task here");
});
