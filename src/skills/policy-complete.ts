/**
 * The policy in its analyzer role (SEED Stage 2): a `BatchComplete` that chat-templates each
 * analyzer prompt as one user turn (the same ChatML template the actor's prompts use), samples
 * the policy greedily (temperature 0, as the reference's analyzer), and decodes the response.
 * Pass the result to `batchLlmAnalyzer` with the Stage-1 template and you have A_θold. Uses only the
 * `Policy` interface, so the embedded engine and a remote server serve alike.
 *
 * A prompt whose ids leave no room for `maxTokens` new tokens within the policy's context is not
 * sent: it gets an empty answer (so no skill, v_τ = 0) and is counted in `overLength`. The
 * serializer's `maxChars` / `maxObservationChars` keep prompts inside a small model's context.
 */
import { deriveSeed } from "../core/rng.ts";
import type { Policy } from "../policy/policy.ts";
import type { ChatFormat } from "../policy/chat-format.ts";
import type { BatchComplete } from "./llm-analyzer.ts";

/** Options of `policyComplete`. */
export type PolicyCompleteOptions = {
  /** Most tokens of one analysis. The reference allows 4,096; a short JSON skill needs far fewer. @default 256 */
  readonly maxTokens?: number;
  /** Sampling temperature; 0 is greedy (the reference's analyzer). @default 0 */
  readonly temperature?: number;
  /** Base seed of the sampling streams (irrelevant when greedy, still explicit). */
  readonly seed: number;
};

/** A batch completion over a policy, with a count of prompts too long to send. */
export type PolicyCompletion = { readonly complete: BatchComplete; readonly stats: { overLength: number; calls: number } };

/**
 * @example
 * const { complete, stats } = policyComplete(oldPolicy, chat, { seed: deriveSeed(run.seed, "analyze", update) });
 * const analyses = await batchLlmAnalyzer(complete, { attempts: 1 }).analyze(serialized);
 */
export function policyComplete(policy: Policy, chat: ChatFormat, options: PolicyCompleteOptions): PolicyCompletion {
  const maxTokens = options.maxTokens ?? 256;
  const temperature = options.temperature ?? 0;
  const stats = { overLength: 0, calls: 0 };
  const complete: BatchComplete = async (prompts) => {
    const call = stats.calls++;
    const ids = prompts.map((p) => chat.prompt(p));
    const fits = ids.map((p) => p.length + maxTokens <= policy.maxContext);
    stats.overLength += fits.filter((f) => !f).length;
    const sendable = ids.flatMap((p, i) => (fits[i] ? [{ prompt: p, i }] : []));
    const samples = await policy.sample(
      sendable.map(({ prompt, i }) => ({ prompt, maxTokens, temperature, stopTokens: chat.stopTokens, seed: deriveSeed(options.seed, "analyzer", call, i) })),
    );
    const answers = prompts.map(() => "");
    sendable.forEach(({ i }, k) => (answers[i] = chat.responseText(samples[k]!.tokens)));
    return answers;
  };
  return { complete, stats };
}
