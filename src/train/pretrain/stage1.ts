/**
 * Stage 1: hindsight-skill SFT (the paper's Stage 1; the authors' `zhangdw156/SEED:scripts/sft/`).
 *
 *   collect   M tasks × K0 rollouts of the base policy (paper: 180 × 8), full history, T = 0.4
 *   label     an external analyzer reads each serialized trajectory and its outcome: the rule-based
 *             hindsight analyzer (default, plays the paper's GLM), an LLM over an OpenAI-compatible
 *             endpoint, or the degraded analyzer (analyzer ablation)
 *   validate  the skill format check of `skills/` (parses, one string, 3+ words, ≤ 400 chars); the
 *             acceptance rate is reported (the paper does not)
 *   SFT       3 epochs of NLL on (analyzer prompt → skill answer), with exactly the prompt layout
 *             the policy's analyzer role uses in Stage 2 (skills/analyzer-role.ts); 10% held out; mixed
 *             with as many replayed Stage-0 demonstrations (`stage1.replay`), without which the
 *             tiny model forgets how to act (a departure a pretrained LLM does not need)
 *   check     the SFT policy analyses the held-out trajectories itself (its own skill validity
 *             rate) and acts on min(16, M) held-out games (success, valid actions)
 *
 * Output: `model/` (weights + tokenizer, no optimizer), `stage1.json`, `labels.jsonl`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Rng, deriveSeed } from "../../core/rng.ts";
import { Progress } from "../../core/progress.ts";
import { ChatFormat } from "../../policy/chat-format.ts";
import { rendererFor } from "../../agent/prompts/index.ts";
import { collectGroups } from "../../agent/rollout.ts";
import { saveCheckpoint } from "../../model/checkpoint.ts";
import { EmbeddedPolicy } from "../../policy/embedded.ts";
import { analysisMetrics } from "../../skills/analyzer.ts";
import { serializeTrajectory } from "../../skills/serialize.ts";
import { analyzerPrompt } from "../../skills/template.ts";
import { serializeForAnalyzer, sftRequest } from "../../skills/analyzer-role.ts";
import type { SeedConfig } from "../../config/config.ts";
import { trainingEnv } from "../../run/training-env.ts";
import { trainNll, stepsForEpochs, type NllTrainReport, type SftExample } from "./sft.ts";
import { analyzeWithPolicy, externalAnalyzer } from "../../skills/sources.ts";
import { playCorpus, SCORED_DEMONSTRATORS, STAGE_OUTPUT, writeStageOutput, type StageSettings } from "./stage0.ts";
import { assertReplaceable } from "../../core/fs.ts";
import { encodeDemo, heldOutSplit, STAGE0_ENVS } from "./demos.ts";
import { SEED as STAGE0_SEED } from "./clone.ts";

/** The Stage-1 report (`stage1.json`). */
export type Stage1Report = {
  readonly analyzer: string;
  readonly tasks: number;
  readonly rollouts: number;
  readonly trajectories: number;
  /** Success of the base policy in the collection. */
  readonly collectionSuccess: number;
  /** Valid labels / all labels. */
  readonly acceptanceRate: number;
  readonly accepted: number;
  /** Accepted labels whose answer would not fit the analyzer's token budget (dropped). */
  readonly droppedTooLong: number;
  readonly sftExamples: number;
  readonly heldOut: number;
  readonly sft: NllTrainReport;
  /** Stage-0 demonstrations replayed in the SFT (against forgetting how to act). */
  readonly replayExamples: number;
  /** The SFT policy acting on held-out games (T = 0.4): success and share of valid actions. */
  readonly actorAfter: { readonly success: number; readonly validActions: number; readonly episodes: number };
  /** Skill validity of the SFT policy analysing the held-out trajectories itself (greedy, one attempt). */
  readonly policySkillValidRate: number;
  /** Same for the base policy before SFT (the template is new to it). */
  readonly baseSkillValidRate: number;
  readonly labelMetrics: Record<string, number>;
  readonly seconds: number;
  /**
   * The environment and rollout settings the agent was built with, so that evaluating or serving
   * this model acts as it was trained (`eval/agent-settings.ts`). Absent in older reports.
   */
  readonly settings: StageSettings;
};

/** Options of `runStage1`. */
export type Stage1Options = {
  /** The Stage-0 (or any) starting checkpoint. */
  readonly baseDir: string;
  readonly outDir: string;
  /** @default false */
  readonly quiet?: boolean;
};

const SEED = deriveSeed(0, "stage1");

/** `count` Stage-0 demonstrations (the same seeded corpus Stage 0 trained on), encoded for replay. */
async function replayDemos(config: SeedConfig, chat: ChatFormat, maxContext: number, count: number, quiet: boolean): Promise<SftExample[]> {
  if (count === 0 || !STAGE0_ENVS.includes(config.env.name)) return [];
  const env = trainingEnv(config);
  const scored = SCORED_DEMONSTRATORS[config.env.name];
  if (scored !== undefined) {
    const games = Math.min(config.stage0.games, Math.ceil(count / config.stage0.episodesPerGame));
    const episodes = await scored.corpus(config, env.tasks(config.env.split, games), { makeEnv: () => env.makeEnv(), maxSteps: env.maxSteps }, STAGE0_SEED, quiet);
    const renderer = rendererFor(config.env.name, config.rollout.prompt);
    return episodes.map((d) => encodeDemo(d, chat, maxContext, renderer)).filter((x) => x !== undefined).slice(0, count);
  }
  const world = { makeEnv: () => env.makeEnv(), maxSteps: env.maxSteps, ...(env.alfworldGen ? { gen: env.alfworldGen } : {}) };
  const games = Math.min(config.stage0.games, Math.ceil(count / config.stage0.episodesPerGame));
  const episodes = await playCorpus(config, env.tasks(config.env.split, games), world, quiet);
  const renderer = rendererFor("alfworld", config.rollout.prompt);
  return episodes.map((d) => encodeDemo(d, chat, maxContext, renderer)).filter((x) => x !== undefined).slice(0, count);
}

/**
 * Runs Stage 1 from `baseDir` (offline collection, external analyzer, format validation, then
 * Eq. (SFT) on the valid (x_τ → s_τ) pairs) and writes `outDir/{model, stage1.json, labels.jsonl}`.
 */
export async function runStage1(config: SeedConfig, options: Stage1Options): Promise<Stage1Report> {
  const t0 = performance.now();
  // Refused before the work, not after it: a folder seed did not write is never replaced.
  assertReplaceable(options.outDir, STAGE_OUTPUT);
  const s = config.stage1;
  const quiet = options.quiet ?? false;
  const env = trainingEnv(config);
  const policy = await EmbeddedPolicy.load(options.baseDir);
  const chat = new ChatFormat(policy.tokenizer);
  const pool = env.tasks(config.env.split, config.env.data === "" ? config.env.generatedTasks : Number.MAX_SAFE_INTEGER);
  const order = Rng.from(deriveSeed(SEED, "tasks")).shuffle(pool.map((_, i) => i));
  const tasks = order.slice(0, Math.min(s.tasks, pool.length)).map((i) => pool[i]!);
  const bar = new Progress("stage1 collect", env.maxSteps, { silent: quiet });
  const trajectories = await collectGroups(policy, () => env.makeEnv(), tasks, {
    seed: deriveSeed(SEED, "collect"), groupSize: s.rollouts, history: { mode: "full" }, maxSteps: env.maxSteps,
    maxActionTokens: config.rollout.maxActionTokens, temperature: s.temperature, chat, renderer: rendererFor(env.name, config.rollout.prompt), actionMask: config.rollout.actionMask,
    onStep: (_step, running) => bar.tick(1, `${running} episodes running`),
  });
  bar.done();
  const analyzer = externalAnalyzer(config);
  // The external analyzer reads the whole episode; the policy's prompt is the compact form.
  const analyses = await analyzer.analyze(trajectories.map((t) => serializeTrajectory(t)));
  const role = { maxSkillTokens: config.skills.maxSkillTokens, maxContext: policy.maxContext };
  const labelled = trajectories.map((t, i) => ({ t, a: analyses[i]! }));
  const accepted = labelled.filter((x) => x.a.ok);
  const heldOutIdx = new Set(Rng.from(deriveSeed(SEED, "held-out")).shuffle(accepted.map((_, i) => i)).slice(0, Math.floor(accepted.length / 10)));
  const examples: SftExample[] = [];
  let droppedTooLong = 0;
  accepted.forEach((x, i) => {
    if (heldOutIdx.has(i) || !x.a.ok) return;
    const request = sftRequest(chat, analyzerPrompt(serializeForAnalyzer(x.t, role)), x.a.skill, role);
    if (request === undefined) {
      droppedTooLong++;
      return;
    }
    const mask = new Uint8Array(request.tokens.length - request.start).fill(1);
    examples.push({ request, mask });
  });
  const analyzerExamples = examples.length;
  const replay = await replayDemos(config, chat, policy.maxContext, Math.round(s.replay * analyzerExamples), quiet);
  examples.push(...replay);
  const heldOut = accepted.filter((_, i) => heldOutIdx.has(i)).map((x) => x.t);
  const base = heldOut.length === 0 ? [] : await analyzeWithPolicy(policy, chat, heldOut, { ...role, attempts: 1, seed: SEED });
  const sft = await trainNll(policy, examples, { steps: stepsForEpochs(examples.length, s.batch, s.epochs), batch: s.batch, lr: s.lr, seed: deriveSeed(SEED, "sft"), label: "stage1 sft", quiet });
  const own = heldOut.length === 0 ? [] : await analyzeWithPolicy(policy, chat, heldOut, { ...role, attempts: 1, seed: SEED });
  const actorTasks = env.tasks(heldOutSplit(config.env.name), Math.min(16, s.tasks));
  const acted = await collectGroups(policy, () => env.makeEnv(), actorTasks, {
    seed: deriveSeed(SEED, "actor-check"), groupSize: 1, history: { mode: "full" }, maxSteps: env.maxSteps,
    maxActionTokens: config.rollout.maxActionTokens, temperature: 0.4, chat, renderer: rendererFor(env.name, config.rollout.prompt), actionMask: config.rollout.actionMask,
  });
  const turns = acted.reduce((a, t) => a + t.turns.length, 0);
  const actorAfter = {
    success: acted.length === 0 ? 0 : acted.filter((t) => t.success).length / acted.length,
    validActions: turns === 0 ? 0 : acted.reduce((a, t) => a + t.turns.filter((x) => x.valid).length, 0) / turns,
    episodes: acted.length,
  };
  const validRate = (xs: readonly { ok: boolean }[]) => (xs.length === 0 ? 0 : xs.filter((a) => a.ok).length / xs.length);
  const report: Stage1Report = {
    analyzer: analyzer.name,
    tasks: tasks.length,
    rollouts: s.rollouts,
    trajectories: trajectories.length,
    collectionSuccess: trajectories.length === 0 ? 0 : trajectories.filter((t) => t.success).length / trajectories.length,
    acceptanceRate: validRate(analyses),
    accepted: accepted.length,
    droppedTooLong,
    sftExamples: analyzerExamples,
    replayExamples: replay.length,
    actorAfter,
    heldOut: heldOut.length,
    sft,
    policySkillValidRate: validRate(own),
    baseSkillValidRate: validRate(base),
    labelMetrics: analysisMetrics(analyses),
    seconds: (performance.now() - t0) / 1000,
    settings: { env: config.env, rollout: config.rollout },
  };
  writeStageOutput(options.outDir, (tmp) => {
    saveCheckpoint(join(tmp, "model"), { config: policy.config, params: policy.params, tokenizer: policy.tokenizer });
    writeFileSync(join(tmp, "stage1.json"), JSON.stringify(report, null, 2) + "\n");
    writeFileSync(join(tmp, "labels.jsonl"), labelled.map(({ t, a }) => JSON.stringify({ taskId: t.taskId, member: t.memberIndex, success: t.success, turns: t.turns.length, ok: a.ok, skill: a.ok ? a.skill : null, issue: a.ok ? null : (a.issues.at(-1)?.message ?? null) })).join("\n") + "\n");
  });
  return report;
}
