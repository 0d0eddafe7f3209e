/**
 * The conformance suite every `Policy` runs (hono's `runTest` pattern,
 * `honojs/hono:src/router/common.case.test.ts`): one call
 * registers node:test tests of the contract in `src/policy/policy.ts`.
 *
 * - `shapes`: at most `maxTokens` ids, one finite log-prob <= 0 per id, a stop token only last;
 * - `seeded`: the same request sampled twice gives the same ids;
 * - `greedy`: temperature 0 gives the same ids for any seed;
 * - `batch-independent`: a request gives the same ids alone and inside a batch;
 * - `score-shape`: `score` returns `tokens.length - start` finite log-probs <= 0;
 * - `sample-score`: at temperature 1 (no top-k/top-p) the sampled log-probs equal `score` of the
 *   sampled ids, the identity every ratio of training relies on;
 * - `constraint`: under a `TokenConstraint` only allowed ids are sampled, and their log-probs
 *   equal `score` with the same `allowed` sets.
 * A skipped check must say why.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Policy, Sample, SampleRequest, TokenConstraint } from "../policy/policy.ts";

/** Names of the checks, for `skip`. */
export type PolicyConformanceCheck = "shapes" | "seeded" | "greedy" | "batch-independent" | "score-shape" | "sample-score" | "constraint";

/** One policy under test. */
export type PolicyConformanceCase = {
  readonly name: string;
  /** Builds the policy (once for the suite). */
  readonly make: () => Promise<Policy>;
  /** Called after the suite (stop a server, delete files). */
  readonly cleanup?: () => Promise<void>;
  /** Text of the prompts (encoded with the policy's tokenizer). @default a short sentence */
  readonly promptText?: string;
  /** Tolerance of log-prob comparisons. @default 1e-3 */
  readonly tolerance?: number;
  /** Checks that do not apply, each with the reason. */
  readonly skip?: readonly { readonly check: PolicyConformanceCheck; readonly reason: string }[];
};

/** A constraint allowing the same few ids everywhere (the first ids of the prompt, deduplicated). */
function fixedSet(ids: readonly number[]): TokenConstraint {
  return { allowed: () => ids };
}

/** Register the suite for one policy. */
export function runPolicyConformance(c: PolicyConformanceCase): void {
  const tol = c.tolerance ?? 1e-3;
  const skipped = (check: PolicyConformanceCheck) => c.skip?.find((s) => s.check === check)?.reason ?? false;
  let policy: Policy;
  let prompt: number[];
  let stops: number[];
  const request = (over: Partial<SampleRequest> = {}): SampleRequest => ({ prompt, maxTokens: 8, seed: 17, temperature: 1, stopTokens: stops, ...over });

  describe(`Policy conformance: ${c.name}`, () => {
    test("setup", async () => {
      policy = await c.make();
      prompt = policy.tokenizer.encode(c.promptText ?? "The agent reads the room and acts.");
      stops = [policy.tokenizer.eosId];
      assert.ok(prompt.length >= 2 && prompt.length < policy.maxContext);
    });

    test("shapes", { skip: skipped("shapes") }, async () => {
      const samples = await policy.sample([request({ maxTokens: 1 }), request({ maxTokens: 6, seed: 3 }), request({ maxTokens: 6, temperature: 0.7, topK: 5, topP: 0.9 })]);
      [1, 6, 6].forEach((max, i) => {
        const s = samples[i]!;
        assert.ok(s.tokens.length >= 1 && s.tokens.length <= max);
        assert.equal(s.logprobs.length, s.tokens.length);
        assert.ok(s.logprobs.every((x) => Number.isFinite(x) && x <= 1e-6));
        s.tokens.slice(0, -1).forEach((t) => assert.ok(!stops.includes(t), "a stop token ends the response"));
        if (stops.includes(s.tokens[s.tokens.length - 1]!)) assert.equal(s.finishReason, "stop");
        else if (s.tokens.length === max) assert.equal(s.finishReason, "length");
      });
    });

    test("seeded", { skip: skipped("seeded") }, async () => {
      const [a] = await policy.sample([request()]);
      const [b] = await policy.sample([request()]);
      assert.deepEqual(b!.tokens, a!.tokens);
    });

    test("greedy", { skip: skipped("greedy") }, async () => {
      const [a] = await policy.sample([request({ temperature: 0, seed: 1 })]);
      const [b] = await policy.sample([request({ temperature: 0, seed: 2 })]);
      assert.deepEqual(b!.tokens, a!.tokens);
    });

    test("batch-independent", { skip: skipped("batch-independent") }, async () => {
      const [alone] = await policy.sample([request({ seed: 5 })]);
      const batch = await policy.sample([request({ seed: 9, prompt: prompt.slice(1) }), request({ seed: 5 }), request({ seed: 6 })]);
      assert.deepEqual(batch[1]!.tokens, alone!.tokens);
    });

    test("score-shape", { skip: skipped("score-shape") }, async () => {
      const [a, b] = await policy.score([{ tokens: prompt, start: 1 }, { tokens: prompt, start: prompt.length - 1 }]);
      assert.equal(a!.length, prompt.length - 1);
      assert.equal(b!.length, 1);
      assert.ok([...a!, ...b!].every((x) => Number.isFinite(x) && x <= 1e-6));
      assert.ok(Math.abs(a![a!.length - 1]! - b![0]!) < tol, "a token's log-prob does not depend on where scoring starts");
    });

    const agree = async (s: Sample, allowed?: readonly number[]) => {
      const [scored] = await policy.score([{ tokens: [...prompt, ...s.tokens], start: prompt.length, ...(allowed ? { allowed: s.tokens.map(() => allowed) } : {}) }]);
      s.logprobs.forEach((lp, i) => assert.ok(Math.abs(lp - scored![i]!) < tol, `token ${i}: sampled ${lp}, scored ${scored![i]}`));
    };

    test("sample-score", { skip: skipped("sample-score") }, async () => {
      for (const s of await policy.sample([request({ seed: 21 }), request({ seed: 22 })])) await agree(s);
    });

    test("constraint", { skip: skipped("constraint") }, async () => {
      const allowed = [...new Set([...prompt.slice(0, 3), ...stops])];
      const [s] = await policy.sample([request({ seed: 4, constraint: fixedSet(allowed) })]);
      assert.ok(s!.tokens.every((t) => allowed.includes(t)));
      await agree(s!, allowed);
    });

    test("cleanup", async () => {
      await c.cleanup?.();
    });
  });
}
