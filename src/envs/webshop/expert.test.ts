// The expert (search the goal's words, click the goal's product, choose its options, buy), its
// noisy mode, and the speed probe, on generated shops.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng, deriveSeed } from "../../core/rng.ts";
import { NoisyExpert, playEpisode } from "../expert.ts";
import { WebShopEnv } from "./env.ts";
import { goalQuery, webshopExpert, webshopRandomAction } from "./expert.ts";
import { cleanProducts, productPrices } from "./catalog.ts";
import { humanGoals } from "./goals.ts";
import { goalOptionsCreditable } from "./reward.ts";
import { Shop, generatedShop } from "./shop.ts";
import type { WebShopTaskPayload } from "./types.ts";
import { measureWebShopSpeed } from "./speed.ts";

test("goalQuery drops the request, price clause, option names and linking words", () => {
  assert.equal(goalQuery("i need a sulfate free shampoo with scent: lavender, and price lower than 30.00 dollars"), "sulfate free shampoo lavender");
  assert.equal(goalQuery("i am looking for some gluten free protein bars that are high protein with flavor: sea salt, and item package quantity: pack of 6"), "gluten free protein bars high protein sea salt pack 6");
  assert.equal(goalQuery("find me running shoes"), "running shoes");
});

test("the expert wins every winnable goal of generated shops (two seeds, all splits)", () => {
  for (const seed of [0, 1]) {
    const shop = generatedShop({ products: 100, seed });
    const env = new WebShopEnv(shop);
    let won = 0;
    const tasks = shop.tasks("all");
    // Goals whose option values upstream's tuple comparison can never credit (see reward.ts).
    const winnable = tasks.filter((t) => goalOptionsCreditable((t.payload as WebShopTaskPayload).goal)).length;
    assert.ok(winnable >= 0.95 * tasks.length, `${winnable}/${tasks.length} winnable`);
    for (const task of tasks) {
      const expert = webshopExpert(task, seed);
      const ep = playEpisode(env, task, seed, (obs) => expert.act(obs));
      if (ep.won) won++;
      else assert.equal(env.lastReward?.rType, 1, task.id);
      assert.ok(ep.steps.length <= 15);
    }
    assert.equal(won, winnable, `seed ${seed}: expert won ${won}/${tasks.length}`);
  }
});

test("on a human goal the expert picks the product's spelling of each goal option, as the reward compares them", () => {
  const products = cleanProducts([{
    asin: "B0LOAFER01", name: "Walkabout Leather Loafers", full_description: "Loafers with rubber soles.",
    small_description: ["Rubber sole"], pricing: "$40.00", product_category: "Shoes › Men › Loafers", category: "fashion", query: "loafers",
    customization_options: { Color: [{ value: "Brown2201" }, { value: "Black1901" }], Size: [{ value: "9" }, { value: "10.5" }] },
  }]);
  const prices = productPrices(products, 0);
  const human = new Map([["B0LOAFER01", [{
    asin: "B0LOAFER01", instruction: "i want black loafers with rubber soles in size 10.5.", instructionAttributes: ["rubber sole"],
    instructionOptions: ["black", "10.5"], productAttributes: [],
  }]]]);
  const shop = new Shop({ name: "loafers", products, prices, goals: humanGoals(products, prices, human, 0), layout: { testSize: 1, trainStart: 1 } });
  const task = shop.task(0);
  const expert = webshopExpert(task, 0);
  const ep = playEpisode(new WebShopEnv(shop), task, 0, (obs) => expert.act(obs));
  assert.deepEqual(ep.steps.map((s) => s.action).slice(1), ["click[b0loafer01]", "click[black1901]", "click[10.5]", "click[buy now]"]);
  assert.equal(ep.won, true);
});

test("the noisy expert is reproducible per seed and wins less often than the expert, but often", () => {
  const shop = generatedShop({ products: 60, seed: 2 });
  const env = new WebShopEnv(shop);
  const tasks = shop.tasks("all").slice(0, 80);
  const run = (epsilon: number): { actions: string[][]; won: number } => {
    const actions: string[][] = [];
    let won = 0;
    for (const [i, task] of tasks.entries()) {
      const noisy = new NoisyExpert(webshopExpert(task, i), { epsilon, rng: Rng.from(deriveSeed(9, "noise", i)), randomAction: webshopRandomAction });
      const ep = playEpisode(env, task, i, (obs) => noisy.act(obs));
      actions.push(ep.steps.map((s) => s.action));
      if (ep.won) won++;
    }
    return { actions, won };
  };
  const a = run(0.3);
  assert.deepEqual(run(0.3).actions, a.actions);
  assert.ok(a.won < tasks.length && a.won > tasks.length / 3, `noisy expert won ${a.won}/${tasks.length}`);
  // Random actions are available ones, except the search entry, which becomes a real query.
  for (const ep of a.actions) for (const act of ep) assert.ok(!act.includes("<your query>"), act);
});

// The probe's rate is a benchmark number (`seed bench envs`), never asserted here: machines are
// shared and noisy. The test checks that the probe plays real episodes and counts them.
test("the speed probe plays whole episodes on the default shop and reports a rate", () => {
  const s = measureWebShopSpeed({ seconds: 0.3 });
  assert.ok(s.steps > 0 && s.episodes > 0);
  assert.ok(Number.isFinite(s.stepsPerSecond) && s.stepsPerSecond > 0);
  assert.ok(s.winRate > 0 && s.winRate < 1);
});
