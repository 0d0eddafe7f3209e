/**
 * `ScriptedPolicy`: a test double that answers each sampling request with the next scripted
 * response (openai-agents-js's `ScriptedModel`). It throws on a call beyond the
 * script, checks every scripted token against an action mask when one is given (so a mask bug
 * surfaces as a failed test), and `assertConsumed()` fails if script steps are left over.
 *
 * Its probabilities are those of uniform logits: a sampled or scored token has log-prob
 * -ln(V), or -ln(|allowed|) under a mask, so sampling and scoring agree exactly.
 */
import type { Policy, Sample, SampleRequest, ScoreRequest, Tokenizer } from "../policy/policy.ts";
import { TinyTokenizer } from "./tiny-tokenizer.ts";

/** What a script step sees: the request and its prompt decoded to text. */
export type ScriptCall = { readonly request: SampleRequest; readonly promptText: string };

/** One scripted response: a fixed text, or a function of the call. */
export type ScriptStep = string | ((call: ScriptCall) => string);

/** A scripted policy misused by a test (call beyond the script, unconsumed steps, mask violation). */
export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScriptError";
  }
}

/** Options of {@link ScriptedPolicy}. */
export type ScriptedPolicyOptions = {
  /** @default new TinyTokenizer() */
  readonly tokenizer?: Tokenizer;
  /** @default 4096 */
  readonly maxContext?: number;
  /** End each response with the request's first stop token (as a model ending its turn). @default true */
  readonly appendStop?: boolean;
};

/** log(1/n), with +0 (not -0) for a single choice so JSON dumps round-trip. */
function uniformLogprob(n: number): number {
  return n === 1 ? 0 : -Math.log(n);
}

/** A policy whose responses come from a script, one step per sampled sequence. */
export class ScriptedPolicy implements Policy {
  readonly tokenizer: Tokenizer;
  readonly maxContext: number;
  /** Every call made so far, in order. */
  readonly calls: ScriptCall[] = [];
  private readonly script: ScriptStep[];
  private readonly appendStop: boolean;
  private next = 0;

  constructor(script: readonly ScriptStep[], options: ScriptedPolicyOptions = {}) {
    this.script = [...script];
    this.tokenizer = options.tokenizer ?? new TinyTokenizer();
    this.maxContext = options.maxContext ?? 4096;
    this.appendStop = options.appendStop ?? true;
  }

  /** `Policy.clearCaches`: a script caches nothing. */
  clearCaches(): void {}

  /** Script steps not yet used. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  /** Throws unless every script step was used. */
  assertConsumed(): void {
    if (this.remaining > 0) throw new ScriptError(`${this.remaining} of ${this.script.length} script step(s) were never used`);
  }

  async sample(requests: readonly SampleRequest[]): Promise<Sample[]> {
    return requests.map((request) => this.sampleOne(request));
  }

  private sampleOne(request: SampleRequest): Sample {
    const step = this.script[this.next];
    if (step === undefined) throw new ScriptError(`call ${this.next + 1} is beyond the script of ${this.script.length} step(s)`);
    this.next++;
    if (request.prompt.length + 1 > this.maxContext) throw new ScriptError(`prompt of ${request.prompt.length} tokens exceeds maxContext ${this.maxContext}`);
    const call = { request, promptText: this.tokenizer.decode(request.prompt) };
    this.calls.push(call);
    let text = typeof step === "string" ? step : step(call);
    let stoppedByString = false;
    for (const s of request.stopStrings ?? []) {
      const at = text.indexOf(s);
      if (at !== -1) {
        text = text.slice(0, at + s.length);
        stoppedByString = true;
      }
    }
    const stop = (request.stopTokens ?? [this.tokenizer.eosId])[0];
    let tokens = this.tokenizer.encode(text, { allowSpecial: true });
    if (!stoppedByString && this.appendStop && stop !== undefined) tokens.push(stop);
    let finishReason: Sample["finishReason"] = "stop";
    if (tokens.length > request.maxTokens) {
      tokens = tokens.slice(0, request.maxTokens);
      finishReason = "length";
    }
    const logprobs: number[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const allowed = request.constraint?.allowed(tokens.slice(0, i)) ?? null;
      if (allowed !== null && !allowed.includes(tokens[i]!)) {
        throw new ScriptError(`scripted token ${tokens[i]} at position ${i} is outside the action mask (${allowed.length} allowed)`);
      }
      logprobs.push(uniformLogprob(allowed === null ? this.tokenizer.vocabSize : allowed.length));
    }
    return { tokens, logprobs, finishReason };
  }

  async score(requests: readonly ScoreRequest[]): Promise<Float32Array[]> {
    return requests.map((r) => {
      const out = new Float32Array(r.tokens.length - r.start);
      for (let i = 0; i < out.length; i++) {
        const allowed = r.allowed?.[i] ?? null;
        out[i] = uniformLogprob(allowed === null ? this.tokenizer.vocabSize : allowed.length);
      }
      return out;
    });
  }
}
