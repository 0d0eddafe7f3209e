/**
 * The policy in its analyzer role, and the one prompt layout it is trained on and asked with.
 * The Stage-2 analyzer works only if its prompt is the Stage-1 SFT prompt token for token
 * (the authors' code, too, builds both with one function of `zhangdw156/SEED:seed/analysis.py`), so
 * both stages build it here: the analyzer template of `skills/template.ts`
 * as one ChatML user turn, fitted to `maxContext − maxSkillTokens` by keeping the first third and
 * the last two thirds of the ids when too long (the outcome and the last steps sit at the end;
 * the instructions at the start). The reference truncates from the left instead, which cuts the
 * instructions first.
 *
 * Generation is greedy (the paper: temperature 0), one attempt by default (no retry on the
 * paper's Stage-2 path). Not here: which weights analyse (the update decides: θ_old, a snapshot,
 * or the starting checkpoint).
 */
import { deriveSeed } from "../core/rng.ts";
import type { ChatFormat } from "../policy/chat-format.ts";
import type { Policy, ScoreRequest } from "../policy/policy.ts";
import type { Analyzer } from "./analyzer.ts";
import { batchLlmAnalyzer } from "./llm-analyzer.ts";
import { serializeTrajectory, type SerializedTrajectory } from "./serialize.ts";
import { skillTarget } from "./template.ts";
import type { Trajectory } from "../core/trajectory.ts";

/** How the analyzer role is asked. */
export type AnalyzerRoleOptions = {
  /** Most tokens of one answer. */
  readonly maxSkillTokens: number;
  /** Context of the policy (prompt + answer). */
  readonly maxContext: number;
  /** Attempts per trajectory (1 on the paper's Stage-2 path). @default 1 */
  readonly attempts?: number;
  /** Seed of the request streams (greedy decoding ignores it; kept for completeness). @default 0 */
  readonly seed?: number;
  /** Most prompts per `sample` call. @default 32 */
  readonly batchSize?: number;
};

/**
 * A trajectory as the analyzer role reads it, in both stages: observations cut at 300 characters
 * and the whole text kept near the prompt budget (about 3 characters per token of our BPE), so
 * the first step and the last steps survive and an `Omitted:` line replaces the middle.
 */
export function serializeForAnalyzer(trajectory: Trajectory, options: Pick<AnalyzerRoleOptions, "maxSkillTokens" | "maxContext">): SerializedTrajectory {
  const budgetTokens = Math.max(64, options.maxContext - options.maxSkillTokens - 220);
  return serializeTrajectory(trajectory, { maxObservationChars: 300, maxChars: 3 * budgetTokens });
}

/** Ids of the analyzer's prompt for `promptText`, fitted to `budget` tokens (first third + last two thirds). */
export function fitPromptIds(ids: readonly number[], budget: number): number[] {
  if (ids.length <= budget) return [...ids];
  const head = Math.floor(budget / 3);
  return [...ids.slice(0, head), ...ids.slice(ids.length - (budget - head))];
}

/** The analyzer prompt ids as both stages build them. */
export function analyzerPromptIds(chat: ChatFormat, promptText: string, options: Pick<AnalyzerRoleOptions, "maxSkillTokens" | "maxContext">): number[] {
  return fitPromptIds(chat.prompt(promptText), options.maxContext - options.maxSkillTokens);
}

/**
 * One Stage-1 SFT example: the analyzer prompt, then the skill answer (`skillTarget`, compact
 * JSON) and `<|im_end|>`; the loss covers the answer and the end marker only. Undefined when the
 * answer is longer than `maxSkillTokens` (Stage 2 could never generate it).
 */
export function sftRequest(chat: ChatFormat, promptText: string, skill: string, options: Pick<AnalyzerRoleOptions, "maxSkillTokens" | "maxContext">): ScoreRequest | undefined {
  const answer = [...chat.tokenizer.encode(skillTarget(skill)), chat.imEnd];
  if (answer.length > options.maxSkillTokens) return undefined;
  const prompt = analyzerPromptIds(chat, promptText, options);
  return { tokens: [...prompt, ...answer], start: prompt.length };
}

/**
 * The policy as an `Analyzer` (skills/llm-analyzer.ts with a greedy batched completion over the
 * policy), so its answers go through the same parse/validate rules as every other analyzer.
 */
export function policyAnalyzer(policy: Policy, chat: ChatFormat, options: AnalyzerRoleOptions): Analyzer {
  const batchSize = options.batchSize ?? 32;
  let call = 0;
  const complete = async (prompts: readonly string[]): Promise<string[]> => {
    const c = call++;
    const out: string[] = [];
    for (let i = 0; i < prompts.length; i += batchSize) {
      const requests = prompts.slice(i, i + batchSize).map((p, k) => ({
        prompt: analyzerPromptIds(chat, p, options),
        maxTokens: options.maxSkillTokens,
        temperature: 0,
        stopTokens: chat.stopTokens,
        seed: deriveSeed(options.seed ?? 0, "analyzer", c, i + k),
      }));
      const samples = await policy.sample(requests);
      out.push(...samples.map((s) => chat.responseText(s.tokens)));
    }
    return out;
  };
  return batchLlmAnalyzer(complete, { attempts: options.attempts ?? 1, name: "policy" });
}
