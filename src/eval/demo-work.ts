/**
 * The progress weights of `seed demo`: each stage's and each run's work in reference seconds,
 * from rates measured on an idle 2-core machine per benchmark (generated and real ALFWorld,
 * WebShop, Search-QA). The demo's progress bar rescales them by the rate it measures, so only
 * their proportions matter; they are what makes its ETA right from the first finished stage.
 */
import { planMethod } from "../config/method.ts";
import type { PlannedRun } from "./experiment.ts";

/** Reference seconds per unit of work, measured on one machine; see {@link demoWork}. */
type DemoRates = {
  /** Per Stage-0 sequence (steps × batch). */
  readonly stage0: number;
  /** Per Stage-1 rollout (tasks × rollouts). */
  readonly stage1: number;
  /** Per training episode-step, for a method with a teacher (SEED) and without (GRPO). */
  readonly teacherStep: number;
  readonly plainStep: number;
  /** Per evaluation episode-step. */
  readonly evalStep: number;
};

// Generated games: the idle 2-core AVX2 machine of docs/RESULTS.md §2 (Stage 0 5.2 min for 2,400
// steps of 4 sequences, Stage 1 4.5 min for 96 × 4 rollouts, per seed SEED ≈ 52 s and GRPO ≈ 35 s
// for 5 updates of 4 × 8 episodes of 20 steps and 2 × 64 evaluation games).
const GENERATED_RATES: DemoRates = { stage0: 312 / 9600, stage1: 270 / 384, teacherStep: 0.0125, plainStep: 0.0072, evalStep: 0.0047 };
// Real games (the idle 2-core AVX-512 machine, docs/RESULTS.md §2): Stage 0 26.7 min for 6,500
// steps of 4 sequences, Stage 1 218 s for 48 × 4 rollouts, and per seed SEED 118 s, GRPO 98 s and
// Vanilla 14.5 s for 5 updates of 4 × 8 episodes of 30 steps and 2 × 64 evaluation games. Rooms
// list 7-54 receptacles, so a step's prompt is several times longer than a generated room's.
const REAL_RATES: DemoRates = { stage0: 1602 / 26000, stage1: 218 / 192, teacherStep: 0.0216, plainStep: 0.0171, evalStep: 0.0038 };
// The generated WebShop shop (demo-webshop, the same idle AVX-512 machine, 13 min 52 s in all):
// Stage 0 354 s for 800 steps of 4 sequences, Stage 1 199 s for 96 × 4 rollouts, per seed SEED
// 52 s and GRPO 41 s with 4.7 s of it evaluating the 128 test goals. Episodes end after about 4
// pages, so per budgeted step (30) a WebShop step costs far less than an ALFWorld one; the table
// is fitted to the same formula, which is what the proportions need. Before it the bar used the
// generated-ALFWorld rates and said 37:48 left after Stage 0 with 8 minutes to go.
const WEBSHOP_RATES: DemoRates = { stage0: 354 / 3200, stage1: 199 / 384, teacherStep: 47.4 / 4800, plainStep: 36.3 / 4800, evalStep: 4.65 / 3840 };
// The generated Search-QA world (demo-search, same machine, 7 min 48 s in all): Stage 0 285 s for
// 3,600 steps of 4 sequences, Stage 1 55 s for 96 × 4 rollouts, per seed SEED 16 s, GRPO 11 s and
// each untrained checkpoint 4.5 s of evaluating 500 questions (episodes end after 2-3 turns).
const SEARCH_RATES: DemoRates = { stage0: 285 / 14400, stage1: 55 / 384, teacherStep: 11.8 / 4800, plainStep: 6.5 / 4800, evalStep: 4.5 / 15000 };

/** The measured rates that fit a config's benchmark. */
function ratesFor(c: PlannedRun["config"] | undefined): DemoRates {
  if (c === null || c === undefined) return GENERATED_RATES;
  if (c.env.name === "webshop") return WEBSHOP_RATES;
  if (c.env.name === "search") return SEARCH_RATES;
  return c.env.data !== "" ? REAL_RATES : GENERATED_RATES;
}

/**
 * The demo's work in reference seconds: each item's size times a measured rate (generated or real
 * games). A Stage 0 given as a finished base (`policy.base`) is no work. The progress bar measures
 * the real rate on what ran, so only the proportions matter: they keep a long Stage 0 from making
 * every run look as long.
 */
export function demoWork(plans: readonly PlannedRun[], evalEpisodes: number): { stage0: number; stage1: number; runs: number[]; report: number } {
  const c = plans.find((p) => p.config !== null)?.config;
  const rates = ratesFor(c);
  const stage0 = c && c.policy.base === "" ? rates.stage0 * c.stage0.steps * c.stage0.batch : 0;
  const stage1 = c && c.policy.sftBase === "" && plans.some((p) => p.config?.policy.sft) ? rates.stage1 * c.stage1.tasks * c.stage1.rollouts : 0;
  const runs = plans.map((p) => {
    const k = p.config;
    if (k === null) return 1;
    const steps = k.env.maxSteps > 0 ? k.env.maxSteps : 30;
    const perEpisodeStep = planMethod(k).teacher !== null ? rates.teacherStep : rates.plainStep;
    const train = planMethod(k).trains ? k.run.updates * k.rollout.tasksPerUpdate * k.rollout.groupSize * steps * perEpisodeStep : 0;
    return Math.max(1, train + evalEpisodes * steps * rates.evalStep);
  });
  return { stage0: Math.max(1, stage0), stage1: Math.max(1, stage1), runs, report: 5 };
}
