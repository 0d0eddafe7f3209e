/**
 * A quick steps-per-second probe of the WebShop environment for `bench/envs.ts`: a noisy expert
 * (seeded) plays episodes back to back on one core for a fixed wall time, so the mix of
 * searches, page turns, item pages and purchases is what training sees. Reports the time to
 * build the shop (catalogue, prices, goals, BM25 index) separately.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import { NoisyExpert } from "../expert.ts";
import { WebShopEnv } from "./env.ts";
import { webshopExpert, webshopRandomAction } from "./expert.ts";
import { generatedShop, type Shop } from "./shop.ts";

/** Result of `measureWebShopSpeed`. */
export type WebShopSpeed = {
  readonly stepsPerSecond: number;
  readonly steps: number;
  readonly episodes: number;
  /** Share of episodes won. */
  readonly winRate: number;
  readonly seconds: number;
  /** Milliseconds to build the shop, or 0 when one was passed in. */
  readonly buildMs: number;
  readonly products: number;
};

/**
 * Measure environment steps per second.
 * @param options.shop      the shop to step in @default generatedShop()
 * @param options.seconds   wall time to run @default 1
 * @param options.epsilon   random-action share of the noisy expert @default 0.3
 * @param options.seed      seed of the action noise @default 0
 */
export function measureWebShopSpeed(options: { shop?: Shop; seconds?: number; epsilon?: number; seed?: number } = {}): WebShopSpeed {
  const t0 = performance.now();
  const shop = options.shop ?? generatedShop();
  const buildMs = options.shop === undefined ? performance.now() - t0 : 0;
  const env = new WebShopEnv(shop);
  const tasks = shop.tasks("all");
  const budget = (options.seconds ?? 1) * 1000;
  const seed = options.seed ?? 0;
  let steps = 0, episodes = 0, won = 0;
  const start = performance.now();
  while (performance.now() - start < budget) {
    const task = tasks[episodes % tasks.length]!;
    const expert = new NoisyExpert(webshopExpert(task, seed), {
      epsilon: options.epsilon ?? 0.3,
      rng: Rng.from(deriveSeed(seed, "webshop-speed", episodes)),
      randomAction: webshopRandomAction,
    });
    let obs = env.reset(task, seed);
    for (;;) {
      const r = env.step(expert.act(obs));
      steps++;
      obs = r.observation;
      if (r.done) {
        if (r.won) won++;
        break;
      }
    }
    episodes++;
  }
  const seconds = (performance.now() - start) / 1000;
  return { stepsPerSecond: steps / seconds, steps, episodes, winRate: episodes > 0 ? won / episodes : 0, seconds, buildMs, products: shop.products.length };
}
