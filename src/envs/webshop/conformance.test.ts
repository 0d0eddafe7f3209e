// WebShop under the shared environment conformance suite, on a generated shop.
import { runEnvConformance } from "../../testing/env-conformance.ts";
import { WebShopEnv } from "./env.ts";
import { webshopExpert } from "./expert.ts";
import { generatedShop } from "./shop.ts";

const shop = generatedShop({ products: 40, seed: 3 });
// Goals with and without options, from both splits.
const tasks = [...shop.tasks("test", 3), ...shop.tasks("train", 3)];

runEnvConformance({
  name: "webshop",
  makeEnv: () => new WebShopEnv(shop),
  tasks,
  sampleActions: [
    "search[shampoo]", "search[black running shoes]", "click[back to search]", "click[next >]", "click[< prev]",
    "click[description]", "click[buy now]", "click[search]", "search[]", "Search[shoes]", "<action>click[buy now]</action>", "🙂",
  ],
  // Any unrecognised action leaves the page as it was (upstream returns the current observation).
  invalidObservation: (before) => before.text,
  expert: webshopExpert,
  expertMinWinRate: 1,
});
