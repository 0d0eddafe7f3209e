/**
 * Stage-0 demonstrations on ALFWorld-style games, in the agent's own prompt format.
 *
 * An episode is played by a noisy expert and rendered exactly as a `full`-history rollout would
 * see it: the renderer's first user message (with H's skill block when the episode carries a
 * hint), then per step the response `<think>short plan</think><action>cmd</action><|im_end|>` and
 * the renderer's next user turn, through the same `ChatFormat`. Only the expert's own responses
 * are trained (mask 1); random actions stay in the context with mask 0.
 *
 * Hints. A hinted episode first gets a hindsight hint: the clean expert plays the game, the
 * rule-based analyzer (the same one that labels Stage 1) reads that episode's serialized text and
 * writes its skill, e.g. "First find a mug (look on the countertop) and take it, then ...". The
 * demonstrator then follows the hint: its search prior is sharpened toward the places the hint
 * names, and it acts with less noise (`hintEpsilon`). A misleading hint is the same text with the
 * named place swapped for another receptacle kind in the room. Not here: tokenization and
 * training (`stage0.ts`).
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import { UsageError } from "../../core/errors.ts";
import type { Trajectory, Turn } from "../../core/trajectory.ts";
import type { ChatFormat } from "../../policy/chat-format.ts";
import type { HistoryRecord } from "../../agent/history.ts";
import { rendererFor, type PromptRenderer } from "../../agent/prompts/index.ts";
import type { Observation, TaskSpec } from "../../envs/env.ts";
import type { Env } from "../../envs/env.ts";
import { alfworldNoisyExpert, parseTaskSentence, priorsForTask, type AlfworldGenOptions, type AlfworldPriors } from "../../envs/alfworld/index.ts";
import { applySkill } from "../../skills/context.ts";
import { ruleAnalyzer } from "../../skills/rule-analyzer.ts";
import { serializeTrajectory } from "../../skills/serialize.ts";
import type { SftExample } from "./sft.ts";

/** One step of a played episode. */
export type DemoStep = {
  readonly action: string;
  /** The response the agent would write for it. */
  readonly response: string;
  /** True when the expert chose the action (trained); false for a random one. */
  readonly expert: boolean;
  readonly observation: Observation;
  readonly reward: number;
};

/** A played episode. */
export type DemoEpisode = {
  readonly task: TaskSpec;
  readonly initial: Observation;
  readonly steps: readonly DemoStep[];
  readonly won: boolean;
  /** The hint in its first prompt ("" for none). */
  readonly hint: string;
};

/** What a demonstrator needs about the environment. */
export type DemoWorld = {
  readonly makeEnv: () => Env;
  readonly maxSteps: number;
  /** Generator options of generated games (their expert priors), undefined for real games. */
  readonly gen?: AlfworldGenOptions;
};

/** The places a hint names for finding objects: `(look in the fridge` → `fridge`. */
export function hintPlaces(hint: string): string[] {
  return [...hint.matchAll(/\(look (?:in|on) the ([a-z]+)/g)].map((m) => m[1]!);
}

/** Priors sharpened toward the places a hint names for the task's object (the demonstrator following the hint). */
export function followHint(priors: AlfworldPriors, object: string, places: readonly string[]): AlfworldPriors {
  if (places.length === 0) return priors;
  const row: Record<string, readonly [number, number]> = { ...(priors.contain[object] ?? {}) };
  for (const p of places) row[p] = [1000, 1000];
  return { ...priors, contain: { ...priors.contain, [object]: row } };
}

/** A short plan for the think block, from the action and what is held. */
function plan(action: string, object: string, holding: boolean): string {
  const verb = action.split(" ")[0] ?? "";
  if (verb === "take") return `take the ${object}`;
  if (verb === "heat" || verb === "cool" || verb === "clean") return `${verb} the ${object}`;
  if (verb === "move") return `put the ${object} there`;
  if (verb === "use") return "turn on the light";
  if (verb === "open") return "look inside";
  if (verb === "go") return holding ? `carry the ${object}` : `find the ${object}`;
  return "look around";
}

/** The response text of an action: `<think>plan</think><action>cmd</action>`. */
export function responseFor(action: string, object: string, holding: boolean): string {
  return `<think>${plan(action, object, holding)}</think><action>${action}</action>`;
}

/**
 * Plays one episode with a (noisy) expert.
 * @param priors the expert's search priors (sharpened by `followHint` for a hinted episode)
 */
export function playDemo(world: DemoWorld, task: TaskSpec, seed: number, epsilon: number, priors: AlfworldPriors, hint: string): DemoEpisode {
  const env = world.makeEnv();
  const initial = env.reset(task, seed);
  const expert = alfworldNoisyExpert(task, seed, { epsilon, priors });
  const object = parseTaskSentence(initial.task)?.object ?? "object";
  let obs = initial;
  let holding = false;
  const steps: DemoStep[] = [];
  let won = false;
  for (let t = 0; t < world.maxSteps; t++) {
    const action = expert.act(obs);
    const random = expert.lastActionRandom;
    const r = env.step(action);
    steps.push({ action, response: responseFor(action, object, holding), expert: !random, observation: obs, reward: r.reward });
    if (action.startsWith("take ") && r.observation.text.startsWith("You pick up")) holding = true;
    if (action.startsWith("move ") && r.observation.text.startsWith("You move")) holding = false;
    obs = r.observation;
    won = r.won;
    if (r.done) break;
  }
  return { task, initial, steps, won, hint };
}

/** A played episode as a `Trajectory` with the fields the serializer reads (for the analyzer). */
export function demoTrajectory(d: DemoEpisode, envId = "alfworld"): Trajectory {
  const turns: Turn[] = d.steps.map((s) => ({
    promptTokens: [], sampledTokens: [], sampledLogprobs: [], promptText: "", observation: s.observation.text, responseText: s.response,
    actionText: s.action, valid: true, reward: s.reward, masked: false,
  }));
  const ret = d.steps.reduce((a, s) => a + s.reward, 0);
  return {
    envId, taskId: d.task.id, groupIndex: 0, memberIndex: 0, seed: 0, historyMode: "full", task: d.initial.task, turns, return: ret,
    success: d.won, score: d.won ? 1 : 0, endedBy: d.won ? "terminated" : "truncated", timings: { sampleSeconds: 0, envSeconds: 0 },
  };
}

/** The hindsight hint of a task: the clean expert's episode, analysed by the rule-based analyzer. */
export async function hindsightHint(world: DemoWorld, task: TaskSpec, seed: number): Promise<{ hint: string; oracle: DemoEpisode }> {
  const oracle = playDemo(world, task, seed, 0, priorsForTask(task, world.gen ?? {}), "");
  const [analysis] = await ruleAnalyzer().analyze([serializeTrajectory(demoTrajectory(oracle))]);
  return { hint: analysis !== undefined && analysis.ok ? analysis.skill : "", oracle };
}

/**
 * A hint of the kind the analyzer writes about an agent's own rollout: the rule analyzer on a
 * noisy episode (random-action rate `epsilon`) of the task, an avoidance rule when it failed, a
 * workflow (with its "go straight" note after detours) when it won. `oracle` is that episode.
 */
export async function selfHint(world: DemoWorld, task: TaskSpec, seed: number, epsilon: number): Promise<{ hint: string; oracle: DemoEpisode }> {
  const noisy = playDemo(world, task, deriveSeed(seed, "self-hint"), epsilon, priorsForTask(task, world.gen ?? {}), "");
  const [analysis] = await ruleAnalyzer().analyze([serializeTrajectory(demoTrajectory(noisy))]);
  return { hint: analysis !== undefined && analysis.ok ? analysis.skill : "", oracle: noisy };
}

/** The receptacle kinds of a room, from the reset text ("you see a countertop 1, a drawer 3, ..."). */
function roomKinds(initial: Observation): string[] {
  const m = /you see (.+?)\.\n/.exec(initial.text) ?? /you see (.+)\./.exec(initial.text);
  if (m === null) return [];
  return [...new Set([...m[1]!.matchAll(/an? ([a-z]+) \d+/g)].map((x) => x[1]!))].sort();
}

/** A misleading version of a hint: the first place it names swapped for another kind in the room; undefined when it names none. */
export function misleadingHint(hint: string, initial: Observation, seed: number): string | undefined {
  const places = hintPlaces(hint);
  const first = places[0];
  if (first === undefined) return undefined;
  const others = roomKinds(initial).filter((k) => !places.includes(k));
  if (others.length === 0) return undefined;
  const other = Rng.from(deriveSeed(seed, "misleading")).choice(others);
  return hint.replace(new RegExp(`\\(look (in|on) the ${first}\\b`), `(look $1 the ${other}`);
}

/**
 * The user texts of an episode as a `full`-mode rollout renders them: the first message (with
 * the hint inserted by H) and, after each step that did not end the episode, the next turn.
 * @param renderer the agent's ALFWorld renderer (`rendererFor("alfworld", config.rollout.prompt)`)
 */
export function renderDemo(d: DemoEpisode, renderer: PromptRenderer = rendererFor("alfworld")): { first: string; next: (string | null)[] } {
  const history: HistoryRecord[] = [];
  const first = applySkill(renderer.first({ task: d.initial.task, step: 0, observation: d.initial, history }), d.hint, "insert");
  const next: (string | null)[] = [];
  d.steps.forEach((s, i) => {
    const after = d.steps[i + 1]?.observation;
    history.push({ step: i + 1, observation: renderer.viewObservation(s.observation), action: renderer.viewAction(s.action), after: after === undefined ? "" : renderer.viewObservation(after) });
    next.push(after === undefined ? null : renderer.next({ task: d.initial.task, step: i + 1, observation: after, history }));
  });
  return { first, next };
}

/** Every text of an episode (for tokenizer training). */
export function demoTexts(d: DemoEpisode, renderer: PromptRenderer = rendererFor("alfworld")): string[] {
  const r = renderDemo(d, renderer);
  return [r.first, ...d.steps.map((s) => s.response), ...r.next.filter((x): x is string => x !== null)];
}

/**
 * The token ids of an episode exactly as a `full`-mode rollout builds them, cut at `maxContext`,
 * with mask 1 on the expert's response ids (the closing `<|im_end|>` included; with `trainNoise`
 * on the random actions' too); `contextWeight` > 0 is carried for `trainNll` to weigh the rest.
 * @returns undefined when not even the first response fits
 */
export function encodeDemo(d: DemoEpisode, chat: ChatFormat, maxContext: number, renderer: PromptRenderer = rendererFor("alfworld"), options: { readonly trainNoise?: boolean; readonly contextWeight?: number } = {}): SftExample | undefined {
  const trainAll = options.trainNoise ?? false;
  const r = renderDemo(d, renderer);
  const tokens = chat.prompt(r.first);
  const start = tokens.length;
  const mask: number[] = [];
  d.steps.forEach((s, i) => {
    const sampled = [...chat.tokenizer.encode(s.response), chat.imEnd];
    tokens.push(...sampled);
    for (let k = 0; k < sampled.length; k++) mask.push(s.expert || trainAll ? 1 : 0);
    const nextText = r.next[i];
    if (nextText !== null && nextText !== undefined) {
      const appended = chat.continuation(nextText, sampled);
      tokens.push(...appended);
      for (let k = 0; k < appended.length; k++) mask.push(0);
    }
  });
  const keep = Math.min(tokens.length, maxContext);
  if (keep <= start) return undefined;
  const m = Uint8Array.from(mask.slice(0, keep - start));
  if (!m.some((x) => x === 1)) return undefined;
  const w = options.contextWeight ?? 0;
  return { request: { tokens: tokens.slice(0, keep), start }, mask: m, ...(w > 0 ? { contextWeight: w } : {}) };
}

/** The environments Stage 0 has a demonstrator and hint format for. */
export const STAGE0_ENVS: readonly string[] = ["alfworld", "webshop", "search"];

/** The held-out split a base agent is checked on: ALFWorld's seen-validation games, WebShop's and Search-QA's test tasks. */
export function heldOutSplit(envName: string): string {
  return envName === "webshop" || envName === "search" ? "test" : "valid_seen";
}

/** Stage 0 needs a demonstrator and the analyzer's hint format: ALFWorld, WebShop or Search-QA. */
export function requireStage0Env(envName: string): void {
  if (!STAGE0_ENVS.includes(envName)) throw new UsageError(`Stage 0 builds base agents on ${STAGE0_ENVS.join(", ")} only; env.name is '${envName}'. Pass a pretrained checkpoint with --policy.init instead.`);
}
