/**
 * Stage 0 on the benchmarks scored per episode, WebShop and Search-QA: the embedded base agent.
 * The same steps as ALFWorld's (`stage0.ts`), with the environment's demonstrator
 * (`webshop-demos.ts`, `search-demos.ts`) and a report in the benchmark's terms:
 *
 *   1. corpus    noisy-expert episodes on training tasks, a share with the analyzer's hindsight
 *                hint that the demonstrator follows
 *   2-4.         BPE, tiny model, NLL behaviour cloning (`cloneBase`, shared with ALFWorld)
 *   5. report    mean score and success (score 1: a full-credit purchase, an exact-match answer)
 *                of the base agent on the held-out tasks without a hint, with the correct hint
 *                and with a misleading one (another task's), valid-action rate and turns
 *
 * Output: `model/` and `stage0.json`, as for ALFWorld, so `ensureBase` caches both alike.
 */
import { assertReplaceable } from "../../core/fs.ts";
import { deriveSeed } from "../../core/rng.ts";
import { Progress } from "../../core/progress.ts";
import type { TaskSpec } from "../../envs/env.ts";
import { rendererFor } from "../../agent/prompts/index.ts";
import { collectGroups } from "../../agent/rollout.ts";
import type { EmbeddedPolicy } from "../../policy/embedded.ts";
import type { ChatFormat } from "../../policy/chat-format.ts";
import { applySkill } from "../../skills/context.ts";
import type { SeedConfig } from "../../config/config.ts";
import { trainingEnv } from "../../run/training-env.ts";
import { heldOutSplit, type DemoWorld } from "./demos.ts";
import { cloneBase, corpusSummary, SEED, writeBase, type CorpusSummary } from "./clone.ts";
import { STAGE_OUTPUT } from "./stage-output.ts";
import type { Stage0Options, StageSettings } from "./stage0.ts";
import type { ScoredDemo } from "./play.ts";

/** What Stage 0 needs of an environment's demonstrator. */
export type Demonstrator = {
  readonly env: string;
  /** The demonstration corpus of the training tasks (a pure function of the config and seed). */
  corpus(config: SeedConfig, tasks: readonly TaskSpec[], world: DemoWorld, seed: number, quiet: boolean): Promise<ScoredDemo[]>;
  /** The hindsight hint of a task: the rule analyzer on the clean expert's episode. */
  hint(world: DemoWorld, task: TaskSpec, seed: number): Promise<string>;
  /** `hint` made misleading with another task's hint; undefined when the two cannot differ. */
  misleading(hint: string, other: string): string | undefined;
};

/** Score and success of a set of episodes. */
export type ShopOutcome = { readonly score: number; readonly success: number; readonly episodes: number };

/** The Stage-0 report of WebShop and Search-QA (`stage0.json`). */
export type ScoredStage0Report = CorpusSummary & {
  readonly env: string;
  readonly episodes: number;
  readonly hintedEpisodes: number;
  /** The demonstrations themselves (noisy expert), without and with hints. */
  readonly demo: { readonly plain: ShopOutcome; readonly hinted: ShopOutcome };
  /** Episodes cut at the model's context (their later steps are not trained). */
  readonly truncatedEpisodes: number;
  readonly evalSplit: string;
  /** Test goals evaluated (the first `stage0.evalGames` of the split). */
  readonly evalGames: number;
  /** The base agent without a hint: mean score, success (score 1). */
  readonly noHint: ShopOutcome;
  /** With the correct hindsight hint inserted by H. */
  readonly correctHint: ShopOutcome;
  /** With a misleading hint (another goal's query and options), over the goals that have one. */
  readonly misleadingHint: ShopOutcome;
  /** Same as `noHint.success`, under the key the ALFWorld report and the demo summary use. */
  readonly successNoHint: number;
  readonly successCorrectHint: number;
  readonly validActionsNoHint: number;
  readonly turnsNoHint: number;
  readonly seconds: number;
  readonly settings: StageSettings;
};

function outcome(xs: readonly { readonly score: number; readonly won?: boolean; readonly success?: boolean }[]): ShopOutcome {
  const n = xs.length;
  return {
    score: n === 0 ? 0 : xs.reduce((a, x) => a + x.score, 0) / n,
    success: n === 0 ? 0 : xs.filter((x) => x.won ?? x.success).length / n,
    episodes: n,
  };
}

/** Runs Stage 0 with `demonstrator` and writes `outDir/model` and `outDir/stage0.json`. */
export async function runScoredStage0(config: SeedConfig, options: Stage0Options, demonstrator: Demonstrator): Promise<ScoredStage0Report> {
  assertReplaceable(options.outDir, STAGE_OUTPUT);
  const t0 = performance.now();
  const s = config.stage0;
  const quiet = options.quiet ?? false;
  const env = trainingEnv(config);
  const world: DemoWorld = { makeEnv: () => env.makeEnv(), maxSteps: env.maxSteps };
  const tasks = env.tasks(config.env.split, s.games);
  const episodes = await demonstrator.corpus(config, tasks, world, SEED, quiet);
  const renderer = rendererFor(demonstrator.env, config.rollout.prompt);
  const base = await cloneBase(config, episodes, renderer, quiet);
  const { chat, policy } = base;
  const ev = await scoredStage0Eval(config, policy, chat, world, env.tasks(heldOutSplit(demonstrator.env), s.evalGames), quiet, demonstrator);
  const report: ScoredStage0Report = {
    env: demonstrator.env,
    episodes: episodes.length,
    hintedEpisodes: episodes.filter((d) => d.hint !== "").length,
    demo: { plain: outcome(episodes.filter((d) => d.hint === "")), hinted: outcome(episodes.filter((d) => d.hint !== "")) },
    ...corpusSummary(config, base),
    truncatedEpisodes: base.examples.filter((e) => e.request.tokens.length >= base.maxContext).length,
    ...ev,
    seconds: (performance.now() - t0) / 1000,
    settings: { env: config.env, rollout: config.rollout },
  };
  writeBase(options.outDir, base, report);
  return report;
}

/** The base agent on held-out tasks without a hint, with the correct hint and with a misleading one. */
export async function scoredStage0Eval(config: SeedConfig, policy: EmbeddedPolicy, chat: ChatFormat, world: DemoWorld, tasks: readonly TaskSpec[], quiet: boolean, demonstrator: Demonstrator) {
  const s = config.stage0;
  const env = demonstrator.env;
  const renderer = rendererFor(env, config.rollout.prompt);
  const hints = await Promise.all(tasks.map((t, i) => demonstrator.hint(world, t, deriveSeed(SEED, `${env}-eval`, i))));
  // Each task's misleading hint is its neighbour's (the next task whose hint differs).
  const misleading = hints.map((hint, i) => {
    for (let k = 1; k < hints.length; k++) {
      const m = demonstrator.misleading(hint, hints[(i + k) % hints.length]!);
      if (m !== undefined) return m;
    }
    return undefined;
  });
  const rollout = {
    seed: deriveSeed(SEED, `${env}-eval-rollout`), groupSize: 1, history: { mode: "full" } as const, maxSteps: world.maxSteps,
    maxActionTokens: config.rollout.maxActionTokens, temperature: s.evalTemperature, chat, renderer, actionMask: config.rollout.actionMask,
  };
  const withHint = (pick: (i: number) => string) => ({ ...rollout, promptTransform: (text: string, where: { readonly groupIndex: number }) => applySkill(text, pick(where.groupIndex), "insert") });
  const bar = new Progress("stage0 eval", 3, { silent: quiet });
  const plain = await collectGroups(policy, world.makeEnv, tasks, rollout);
  bar.tick();
  const hinted = await collectGroups(policy, world.makeEnv, tasks, withHint((i) => hints[i]!));
  bar.tick();
  const misled = tasks.filter((_, i) => misleading[i] !== undefined);
  const misledHints = misleading.filter((h) => h !== undefined);
  const wrong = await collectGroups(policy, world.makeEnv, misled, withHint((i) => misledHints[i]!));
  bar.tick();
  bar.done();
  const turns = plain.reduce((a, t) => a + t.turns.length, 0);
  const noHint = outcome(plain);
  const correctHint = outcome(hinted);
  return {
    evalSplit: heldOutSplit(env),
    evalGames: tasks.length,
    noHint,
    correctHint,
    misleadingHint: outcome(wrong),
    successNoHint: noHint.success,
    successCorrectHint: correctHint.success,
    validActionsNoHint: turns === 0 ? 0 : plain.reduce((a, t) => a + t.turns.filter((x) => x.valid).length, 0) / turns,
    turnsNoHint: plain.length === 0 ? 0 : turns / plain.length,
  };
}
