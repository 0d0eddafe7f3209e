/**
 * The batched rollout engine: B tasks x N group members, all episodes stepped in lockstep, one
 * `policy.sample` call per step for every unfinished episode (as
 * `langfengQ/verl-agent:agent_system/multi_turn_rollout/rollout_loop.py` steps them).
 *
 * - Members of a group reset their own environment instance with the same task and seed.
 * - Every sample's seed is `deriveSeed(seed, "rollout", update, group, member, step)`, so a
 *   trajectory never depends on batch composition or call order.
 * - `window` mode rebuilds the prompt every step; when it does not fit the context with the
 *   full response budget, the oldest history records are dropped (down to one); if it still
 *   does not fit the episode ends with `endedBy: "context-limit"`.
 * - `full` mode grows one sequence (the first user message, then per step the sampled ids and a
 *   new user turn); when the next turn plus the response budget would pass the context, the
 *   episode ends with `endedBy: "context-limit"` before the policy is called.
 * - An episode the environment ends is `terminated` (also when the environment ends it at its
 *   own step limit); one stopped by this engine's step limit is `truncated`.
 *
 * - Environments with I/O get `await env.prepare?.(action)` for the whole batch, concurrently,
 *   before the synchronous `step` calls.
 *
 * What it does not do: rewards shaping (the invalid-action penalty is the trainer's),
 * prefix caching (a policy may cache the repeated prefix of full-mode prompts itself).
 */
import { deriveSeed } from "../core/rng.ts";
import { UsageError } from "../core/errors.ts";
import type { HistoryMode, Trajectory, Turn } from "../core/trajectory.ts";
import type { Env, Observation, TaskSpec } from "../envs/env.ts";
import type { Policy, Sample, SampleRequest, TokenConstraint } from "../policy/policy.ts";
import { buildActionMask, replayConstraint } from "./action-mask.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import type { HistoryRecord } from "./history.ts";
import type { ProjectedAction } from "./parse-action.ts";
import { rendererFor, type PromptRenderer, type PromptState } from "./prompts/index.ts";
import { protocolOf } from "./protocol.ts";

/** How the agent keeps history: a window of the last k steps, or the whole episode in one sequence. */
export type HistoryOption = { readonly mode: "window"; readonly k?: number } | { readonly mode: "full" };

/** Options of {@link collectGroups}. */
export type RolloutOptions = {
  /** Base seed of the run; every sample and (by default) every environment seed derive from it. */
  readonly seed: number;
  /** Index of the policy update this rollout belongs to (a seed component). @default 0 */
  readonly update?: number;
  /** Members per group (N). @default 8 */
  readonly groupSize?: number;
  /**
   * History mode. `window` uses the protocol's k (ALFWorld 5, WebShop 2, Search 4, Sokoban 2,
   * EZPoints 0) unless `k` is given.
   * @default { mode: "window" }
   */
  readonly history?: HistoryOption;
  /** Step limit. @default the environment's `maxSteps` */
  readonly maxSteps?: number;
  /** Most tokens per response. @default the protocol's response budget (512) */
  readonly maxActionTokens?: number;
  /** Largest prompt + response length. @default the policy's `maxContext` */
  readonly maxContext?: number;
  /** Sampling temperature. @default 1 */
  readonly temperature?: number;
  /** @default 1 */
  readonly topP?: number;
  /** @default 0 */
  readonly topK?: number;
  /** Strings that end a response (kept in it). @default none: the model ends its turn */
  readonly stopStrings?: readonly string[];
  /**
   * Restrict the action inside `<action>` tags to the admissible list (off in the paper). Only
   * environments with a literal action list and tag protocol are masked (ALFWorld, WebShop's
   * clicks, Sokoban); the mask is recorded on the turn so scoring applies it too.
   * @default false
   */
  readonly actionMask?: boolean;
  /**
   * Transform of the student's user-message text before templating (Skill-GRPO puts a skill in
   * the prompt this way, so the agent layer never imports skills/). In full mode it applies to
   * the first user message only. `Turn.promptText` records the text after the transform.
   */
  readonly promptTransform?: (promptText: string, trajectory: { readonly groupIndex: number; readonly memberIndex: number; readonly taskId: string }) => string;
  /**
   * Index of `tasks[0]`'s group in the whole batch, when one batch is rolled out in several calls:
   * group indices (and so sample seeds) are `groupOffset + position`. @default 0
   */
  readonly groupOffset?: number;
  /** Environment seed of each group, by position in `tasks`. @default deriveSeed(seed, "env", update, group index) */
  readonly envSeeds?: readonly number[];
  /** Most sequences per `policy.sample` call. @default all unfinished episodes */
  readonly sampleBatchSize?: number;
  /** Chat formatting. @default new ChatFormat(policy.tokenizer) */
  readonly chat?: ChatFormat;
  /** Prompt renderer. @default the renderer of the environment's id */
  readonly renderer?: PromptRenderer;
  /** Called after every lockstep step with the number of episodes still running. */
  readonly onStep?: (step: number, running: number) => void;
};

type Episode = {
  readonly traj: Trajectory;
  readonly env: Env;
  observation: Observation;
  readonly history: HistoryRecord[];
  step: number;
  done: boolean;
  /** Full mode: every token so far. */
  sequence: number[];
  lastSampled: number[];
};

type Prepared = { readonly appended: number[]; readonly prompt: number[]; readonly promptText: string };

function now(): number {
  return performance.now() / 1000;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Play `groupSize` episodes of every task and return their trajectories, group-major
 * (`tasks[0]` members 0..N-1, then `tasks[1]`, ...). Never throws on a long episode: context
 * overflow ends it with `endedBy: "context-limit"`.
 * @param makeEnv builds one environment instance; called once per episode.
 * @example
 * const trajs = await collectGroups(policy, () => new AlfworldEnv(), tasks, { seed: 1, update: 3, groupSize: 8 });
 */
export async function collectGroups(policy: Policy, makeEnv: () => Env, tasks: readonly TaskSpec[], options: RolloutOptions): Promise<Trajectory[]> {
  const update = options.update ?? 0;
  const groupSize = positive("groupSize", options.groupSize ?? 8);
  const chat = options.chat ?? new ChatFormat(policy.tokenizer);
  const history = options.history ?? { mode: "window" };
  const mode: HistoryMode = history.mode;

  const episodes: Episode[] = [];
  const offset = options.groupOffset ?? 0;
  tasks.forEach((task, position) => {
    const g = offset + position;
    const envSeed = options.envSeeds?.[position] ?? deriveSeed(options.seed, "env", update, g);
    for (let m = 0; m < groupSize; m++) {
      const env = makeEnv();
      const t0 = now();
      const observation = env.reset(task, envSeed);
      episodes.push({
        traj: {
          envId: env.id, taskId: task.id, groupIndex: g, memberIndex: m, seed: envSeed, historyMode: mode, task: observation.task,
          turns: [], return: 0, success: false, score: 0, endedBy: "truncated", timings: { sampleSeconds: 0, envSeconds: now() - t0 },
        },
        env, observation, history: [], step: 0, done: false, sequence: [], lastSampled: [],
      });
    }
  });
  if (episodes.length === 0) return [];

  const envId = episodes[0]!.env.id;
  const renderer = options.renderer ?? rendererFor(envId);
  const protocol = protocolOf(envId);
  const maxSteps = positive("maxSteps", options.maxSteps ?? episodes[0]!.env.maxSteps);
  const maxActionTokens = positive("maxActionTokens", options.maxActionTokens ?? protocol?.responseTokens ?? 512);
  const maxContext = positive("maxContext", options.maxContext ?? policy.maxContext);
  const k = history.mode === "window" ? (history.k ?? protocol?.window ?? 2) : 0;
  const batchSize = options.sampleBatchSize ?? Number.POSITIVE_INFINITY;

  const transform = (text: string, e: Episode): string =>
    options.promptTransform ? options.promptTransform(text, { groupIndex: e.traj.groupIndex, memberIndex: e.traj.memberIndex, taskId: e.traj.taskId }) : text;
  const fits = (promptLength: number) => promptLength + maxActionTokens <= maxContext;

  /** The prompt of an episode's next step, or undefined when it cannot fit the context. */
  const prepare = (e: Episode): Prepared | undefined => {
    const state: PromptState = { task: e.traj.task, step: e.step, observation: e.observation, history: e.history };
    if (mode === "window") {
      const most = Math.min(k, e.history.length);
      for (let shown = most; shown >= Math.min(1, most); shown--) {
        const promptText = transform(renderer.window(state, shown), e);
        const prompt = chat.prompt(promptText);
        if (fits(prompt.length)) return { appended: prompt, prompt, promptText };
      }
      return undefined;
    }
    if (e.step === 0) {
      const promptText = transform(renderer.first(state), e);
      const prompt = chat.prompt(promptText);
      return fits(prompt.length) ? { appended: prompt, prompt, promptText } : undefined;
    }
    const promptText = renderer.next(state);
    const appended = chat.continuation(promptText, e.lastSampled);
    const length = e.sequence.length + appended.length;
    return fits(length) ? { appended, prompt: [...e.sequence, ...appended], promptText } : undefined;
  };

  for (let step = 0; step < maxSteps; step++) {
    const calls: { e: Episode; p: Prepared; request: SampleRequest }[] = [];
    for (const e of episodes) {
      if (e.done) continue;
      const p = prepare(e);
      if (p === undefined) {
        e.done = true;
        e.traj.endedBy = "context-limit";
        continue;
      }
      let constraint: TokenConstraint | undefined;
      if (options.actionMask && renderer.actionTags) {
        const entries = renderer.maskEntries(e.observation);
        if (entries !== undefined) constraint = buildActionMask(policy.tokenizer, entries, chat.stopTokens);
      }
      const request: SampleRequest = {
        prompt: p.prompt,
        maxTokens: maxActionTokens,
        temperature: options.temperature ?? 1,
        topP: options.topP ?? 1,
        topK: options.topK ?? 0,
        stopTokens: chat.stopTokens,
        seed: deriveSeed(options.seed, "rollout", update, e.traj.groupIndex, e.traj.memberIndex, step),
        ...(options.stopStrings ? { stopStrings: options.stopStrings } : {}),
        ...(constraint ? { constraint } : {}),
      };
      calls.push({ e, p, request });
    }
    if (calls.length === 0) break;

    const samples: Sample[] = [];
    for (let i = 0; i < calls.length; i += batchSize) {
      const chunk = calls.slice(i, i + batchSize);
      const t0 = now();
      samples.push(...(await policy.sample(chunk.map((c) => c.request))));
      const share = (now() - t0) / chunk.length;
      for (const c of chunk) c.e.traj.timings.sampleSeconds += share;
    }

    // Environments with I/O (a remote retriever) prepare every step of the batch concurrently.
    const responses = samples.map((s) => chat.responseText(s.tokens));
    const projected = responses.map((r) => renderer.project(r));
    const t1 = now();
    await Promise.all(calls.map(({ e }, i) => e.env.prepare?.(projected[i]!.action)));
    const prepareShare = (now() - t1) / calls.length;
    calls.forEach(({ e, p, request }, i) => {
      e.traj.timings.envSeconds += prepareShare;
      applyStep(e, p, request, samples[i]!, responses[i]!, projected[i]!, renderer);
      if (!e.done && e.step >= maxSteps) {
        e.done = true;
        e.traj.endedBy = "truncated";
      }
    });
    options.onStep?.(step, episodes.filter((e) => !e.done).length);
  }
  return episodes.map((e) => e.traj);
}

/** Record one sampled response, step the environment, and update the episode. */
function applyStep(e: Episode, p: Prepared, request: SampleRequest, sample: Sample, responseText: string, projected: ProjectedAction, renderer: PromptRenderer): void {
  const sampled = [...sample.tokens];
  const { action, valid } = projected;
  const t0 = now();
  const result = e.env.step(action);
  e.traj.timings.envSeconds += now() - t0;

  const turn: Turn = {
    promptTokens: p.appended,
    sampledTokens: sampled,
    sampledLogprobs: [...sample.logprobs],
    promptText: p.promptText,
    observation: e.observation.text,
    responseText,
    actionText: action,
    valid,
    reward: result.reward,
    masked: request.constraint !== undefined,
  };
  if (request.constraint) turn.allowedTokens = replayConstraint(request.constraint, sampled);
  e.traj.turns.push(turn);

  e.history.push({
    step: e.step + 1,
    observation: renderer.viewObservation(e.observation),
    action: renderer.viewAction(action),
    after: renderer.viewObservation(result.observation),
  });
  if (e.traj.historyMode === "full") {
    e.sequence = [...p.prompt, ...sampled];
    e.lastSampled = sampled;
  }
  e.observation = result.observation;
  e.step++;
  e.traj.return += result.reward;
  e.traj.success = result.won;
  e.traj.score = result.score;
  if (result.done) {
    e.done = true;
    e.traj.endedBy = "terminated";
  }
}
