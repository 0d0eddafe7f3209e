/**
 * The LLM analyzer: the analyzer template sent to any text-completion function, with the
 * parse/repair/retry state machine of `jinyangwu/OPID:opid/analysis.py`. The function is injected,
 * so this file
 * knows nothing of HTTP or of the policy: pass the OpenAI-compatible client's completion (Stage-1
 * external labeller) or a function that samples θ_old greedily on the templated prompt (the
 * Stage-2 analyzer role). Batched: every attempt sends all pending prompts in one call, so a
 * policy can sample them together; a single-prompt function is wrapped with bounded concurrency.
 *
 * The authors' Stage-2 path (`zhangdw156/SEED`, analysis backend `policy_vllm`) makes one greedy
 * attempt with no retry;
 * set `attempts: 1` for that. The default of 2 is the reference's external-analyzer setting.
 */
import { RemoteError } from "../core/errors.ts";
import type { Analysis, Analyzer } from "./analyzer.ts";
import { parseSkill, type SkillIssue } from "./parse-skill.ts";
import type { SerializedTrajectory } from "./serialize.ts";
import { analyzerPrompt, defaultSkillLimits, retryPrompt, type SkillLimits } from "./template.ts";

/** One prompt in, the model's answer text out. */
export type Complete = (prompt: string) => Promise<string>;

/** Many prompts in, one answer per prompt out, in order. */
export type BatchComplete = (prompts: readonly string[]) => Promise<string[]>;

/** Options of the LLM analyzer. */
export type LlmAnalyzerOptions = {
  /** Attempts per trajectory, the first included (retries carry the parse error). @default 2 */
  readonly attempts?: number;
  /** Format bounds of a valid skill. */
  readonly limits?: SkillLimits;
  /** Name recorded in runs. @default "llm" */
  readonly name?: string;
};

/**
 * Wraps a one-prompt function as a batch function with at most `concurrency` requests in flight.
 * @default concurrency 8
 */
export function batchOf(complete: Complete, concurrency = 8): BatchComplete {
  if (!(concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${concurrency}`);
  return async (prompts) => {
    const out = new Array<string>(prompts.length);
    let next = 0;
    const worker = async () => {
      while (next < prompts.length) {
        const i = next++;
        out[i] = await complete(prompts[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, prompts.length) }, worker));
    return out;
  };
}

/**
 * The analyzer over a one-prompt completion function (an OpenAI-compatible client), with at most
 * `concurrency` requests in flight.
 * @example llmAnalyzer((prompt) => client.complete(prompt, { temperature: 0 }), { attempts: 2 })
 */
export function llmAnalyzer(complete: Complete, options: LlmAnalyzerOptions & { readonly concurrency?: number } = {}): Analyzer {
  return batchLlmAnalyzer(batchOf(complete, options.concurrency ?? 8), options);
}

/** The analyzer over a batch completion function (e.g. the policy's analyzer role, `policyAnalyzer`, which samples all prompts together). */
export function batchLlmAnalyzer(complete: BatchComplete, options: LlmAnalyzerOptions = {}): Analyzer {
  const attempts = options.attempts ?? 2;
  const limits = options.limits ?? defaultSkillLimits;
  if (!(Number.isInteger(attempts) && attempts >= 1)) throw new RangeError(`attempts must be a positive integer, got ${attempts}`);
  return {
    name: options.name ?? "llm",
    async analyze(trajectories: readonly SerializedTrajectory[]): Promise<Analysis[]> {
      const base = trajectories.map((t) => analyzerPrompt(t, limits));
      const answers = trajectories.map((): string[] => []);
      const issues = trajectories.map((): SkillIssue[] => []);
      const results: Array<Analysis | undefined> = trajectories.map(() => undefined);
      const prompts = base.slice();
      for (let attempt = 1; attempt <= attempts; attempt++) {
        const pending = results.flatMap((r, i) => (r === undefined ? [i] : []));
        if (pending.length === 0) break;
        let replies: string[] | undefined;
        try {
          replies = await complete(pending.map((i) => prompts[i]!));
        } catch (e) {
          if (!(e instanceof RemoteError)) throw e;
          for (const i of pending) issues[i]!.push({ kind: "request-failed", message: e.message });
          continue;
        }
        pending.forEach((i, k) => {
          const answer = replies![k] ?? "";
          answers[i]!.push(answer);
          const parsed = parseSkill(answer, limits);
          if (parsed.ok) {
            results[i] = { ok: true, skill: parsed.value.skill, attempts: attempt, answers: answers[i]! };
            return;
          }
          issues[i]!.push(parsed.error);
          prompts[i] = retryPrompt(base[i]!, parsed.error.message, answer);
        });
      }
      return results.map((r, i) => r ?? { ok: false, issues: issues[i]!, attempts, answers: answers[i]! });
    },
  };
}
