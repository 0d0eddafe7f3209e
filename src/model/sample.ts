/**
 * Sampling: turning next-token logits into tokens, one row at a time (`pickToken`), and the
 * batched decode loop over a KV-cache model (`sampleBatch`).
 *
 * The log-prob recorded for each token is that of the distribution actually sampled from:
 * logits restricted to the allowed ids (the constraint, and ids the tokenizer can decode), divided
 * by the temperature, cut by top-k then top-p, renormalised. With temperature 0 the token is the
 * argmax (lowest id on ties, so any seed gives the same tokens) and its log-prob is that of the
 * untempered, constrained distribution. All arithmetic on a row is in f64.
 *
 * Not here: text. Stop strings are checked through a `decode` callback the caller passes.
 */
import { ShapeError } from "../core/errors.ts";
import { Rng } from "../core/rng.ts";

/** How one row is sampled. */
export type SamplingParams = {
  /** 0 = greedy. @default 1 */
  readonly temperature: number;
  /** Nucleus mass in (0, 1]; 1 disables it. @default 1 */
  readonly topP: number;
  /** Keep the k most likely; 0 disables it. @default 0 */
  readonly topK: number;
};

/** A sampled token and its log-prob under the distribution it was drawn from. */
export type Pick = { readonly token: number; readonly logprob: number };

/** Reusable f64 buffers of one row, so the decode loop does not allocate per token. */
export class PickScratch {
  ids = new Int32Array(0);
  vals = new Float64Array(0);
  sorted = new Float64Array(0);
  /** Per-id stamp that drops duplicate ids from an allowed list (a duplicate must not double its mass). */
  seen = new Int32Array(0);
  stamp = 0;
  ensure(n: number, vocab: number): void {
    if (this.ids.length < n) {
      this.ids = new Int32Array(n);
      this.vals = new Float64Array(n);
      this.sorted = new Float64Array(n);
    }
    if (this.seen.length < vocab) this.seen = new Int32Array(vocab);
  }
}

/**
 * Keeps the `k` candidates of largest weight among the first `n` of `scratch.ids/vals`, ties at the
 * cut going to the smallest ids (so the kept set never depends on candidate order), compacted
 * in place in their original order. Uses a native numeric sort, not a comparator: this runs
 * once per sampled token over the whole vocabulary.
 */
function keepTop(scratch: PickScratch, n: number, k: number): number {
  const { ids, vals } = scratch;
  const sorted = scratch.sorted.subarray(0, n);
  sorted.set(vals.subarray(0, n));
  sorted.sort();
  const cut = sorted[n - k]!;
  let above = 0;
  const ties: number[] = [];
  for (let j = 0; j < n; j++) {
    if (vals[j]! > cut) above++;
    else if (vals[j] === cut) ties.push(ids[j]!);
  }
  ties.sort((a, b) => a - b);
  const lastTie = ties[k - above - 1]!;
  let m = 0;
  for (let j = 0; j < n; j++) {
    const v = vals[j]!;
    if (v > cut || (v === cut && ids[j]! <= lastTie)) {
      ids[m] = ids[j]!;
      vals[m] = v;
      m++;
    }
  }
  return m;
}

/** Checks a request's sampling knobs; a `ShapeError` names the bad one. */
export function checkSamplingParams(p: SamplingParams): void {
  if (!(p.temperature >= 0) || !Number.isFinite(p.temperature)) throw new ShapeError(`temperature must be a finite number >= 0, got ${p.temperature}`);
  if (!(p.topP > 0 && p.topP <= 1)) throw new ShapeError(`topP must be in (0, 1], got ${p.topP}`);
  if (!Number.isInteger(p.topK) || p.topK < 0) throw new ShapeError(`topK must be an integer >= 0, got ${p.topK}`);
}

/**
 * Draws one token from a row of logits.
 * @param logits [>= vocab] raw next-token logits; only ids < `vocab` are candidates
 * @param allowed candidate ids (the constraint), or null for all of [0, vocab)
 * @throws ShapeError when no candidate remains (empty allowed set) or a logit is NaN
 */
export function pickToken(logits: Float32Array, vocab: number, p: SamplingParams, allowed: readonly number[] | null,
                          rng: Rng, scratch = new PickScratch()): Pick {
  scratch.ensure(allowed === null ? vocab : allowed.length, allowed === null ? 0 : vocab);
  const ids = scratch.ids, vals = scratch.vals;
  let n = 0;
  if (allowed === null) {
    for (let i = 0; i < vocab; i++) ids[n++] = i;
  } else {
    const seen = scratch.seen, stamp = ++scratch.stamp;
    for (const id of allowed) {
      if (!Number.isInteger(id) || id < 0 || id >= vocab || seen[id] === stamp) continue;
      seen[id] = stamp;
      ids[n++] = id;
    }
  }
  if (n === 0) throw new ShapeError("the constraint allows no token the model can emit");
  // arg starts at a real candidate: reading ids[-1] of a typed array would deoptimise this loop.
  let arg = 0, max = logits[ids[0]!]!;
  for (let j = 0; j < n; j++) {
    const z = logits[ids[j]!]!;
    if (!Number.isFinite(z)) throw new ShapeError(`logit of token ${ids[j]} is ${z}`);
    if (z > max || (z === max && ids[j]! < ids[arg]!)) {
      max = z;
      arg = j;
    }
  }
  if (p.temperature === 0) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += Math.exp(logits[ids[j]!]! - max);
    return { token: ids[arg]!, logprob: -Math.log(sum) };
  }
  // Tempered log-weights relative to the max, so exp never overflows.
  const invT = 1 / p.temperature;
  for (let j = 0; j < n; j++) vals[j] = (logits[ids[j]!]! - max) * invT;
  let keep = n;
  if (p.topK > 0 && p.topK < keep) keep = keepTop(scratch, keep, p.topK);
  if (p.topP < 1) {
    // The smallest set of most likely candidates whose mass reaches topP of the total.
    const sorted = scratch.sorted.subarray(0, keep);
    sorted.set(vals.subarray(0, keep));
    sorted.sort();
    let total = 0;
    for (let j = 0; j < keep; j++) total += Math.exp(vals[j]!);
    let cum = 0, count = keep;
    for (let j = keep - 1; j >= 0; j--) {
      cum += Math.exp(sorted[j]!);
      if (cum >= p.topP * total) {
        count = keep - j;
        break;
      }
    }
    if (count < keep) keep = keepTop(scratch, keep, count);
  }
  // One exp per kept candidate; the cumulative pass below reuses them.
  let total = 0;
  for (let j = 0; j < keep; j++) {
    const w = Math.exp(vals[j]!);
    vals[j] = w;
    total += w;
  }
  const u = rng.float() * total;
  let cum = 0, chosen = keep - 1;
  for (let j = 0; j < keep; j++) {
    cum += vals[j]!;
    if (u < cum) {
      chosen = j;
      break;
    }
  }
  const id = ids[chosen]!;
  return { token: id, logprob: (logits[id]! - max) * invT - Math.log(total) };
}

/**
 * A batch of KV caches the decode loop drives. `append` feeds each listed row its tokens (the
 * whole prompt first, then one token per step) and returns the logits after each row's last
 * token, row after row: [rows.length, vocab]. Rows are indices into the batch, in any subset.
 */
export interface DecodeSession {
  append(rows: readonly number[], tokens: readonly (readonly number[])[]): Float32Array;
}

/** One row to sample: the request fields the loop needs (see `SampleRequest` in policy.ts). */
export type DecodeRequest = SamplingParams & {
  readonly prompt: readonly number[];
  readonly maxTokens: number;
  readonly stopTokens: readonly number[];
  readonly stopStrings: readonly string[];
  readonly seed: number;
  /** Allowed next ids given the tokens sampled so far, or null for no restriction. */
  readonly allowed: ((generated: readonly number[]) => readonly number[] | null) | null;
};

/** What one row produced. */
export type DecodeResult = {
  readonly tokens: number[];
  readonly logprobs: number[];
  readonly finishReason: "stop" | "length" | "context";
};

/** Context of a decode loop. */
export type DecodeOptions = {
  /** Logits width of the model. */
  readonly modelVocab: number;
  /** Ids at or above this are never sampled (e.g. padding rows of a real Qwen2 embedding). */
  readonly vocab: number;
  /** Longest prompt + response. */
  readonly maxContext: number;
  /** Text of some ids; needed only when a request has stop strings. */
  readonly decode?: (ids: readonly number[]) => string;
  /**
   * Tokens already in the session's cache per row (a reused prefix): only `prompt.slice(cached)`
   * is fed. Must be a prefix length of that row's prompt. @default all 0
   */
  readonly cached?: readonly number[];
};

/**
 * The batched decode loop: prefill every row, then one token per live row per step until each
 * row stops (stop token or string: "stop"), reaches `maxTokens` ("length") or the context limit
 * ("context"). Each row draws from its own `Rng.from(seed)`, so results do not depend on the
 * batch composition. A prompt that fills the context returns no tokens and "context".
 * @throws ShapeError for an empty prompt, bad sampling knobs or a constraint that allows nothing
 */
export function decodeBatch(session: DecodeSession, requests: readonly DecodeRequest[], options: DecodeOptions): DecodeResult[] {
  const { modelVocab, vocab, maxContext } = options;
  const results = requests.map((): { tokens: number[]; logprobs: number[]; finishReason: DecodeResult["finishReason"] } => ({ tokens: [], logprobs: [], finishReason: "length" }));
  const rngs = requests.map((r) => Rng.from(r.seed));
  const budget = requests.map((r) => Math.min(r.maxTokens, maxContext - r.prompt.length));
  const texts = requests.map(() => "");
  const maxStop = requests.map((r) => Math.max(0, ...r.stopStrings.map((s) => s.length)));
  let live: number[] = [];
  requests.forEach((r, i) => {
    checkSamplingParams(r);
    if (r.prompt.length === 0) throw new ShapeError(`request ${i}: the prompt is empty (a model needs at least one token of context)`);
    if (!Number.isInteger(r.maxTokens) || r.maxTokens < 0) throw new ShapeError(`request ${i}: maxTokens must be an integer >= 0, got ${r.maxTokens}`);
    if (r.stopStrings.length > 0 && options.decode === undefined) throw new ShapeError("stop strings need a decode function");
    if (r.prompt.length >= maxContext) results[i]!.finishReason = "context";
    else if (r.maxTokens > 0) live.push(i);
  });
  if (live.length === 0) return results;
  const scratch = new PickScratch();
  let logits = session.append(live, live.map((i) => requests[i]!.prompt.slice(options.cached?.[i] ?? 0)));
  while (live.length > 0) {
    const next: number[] = [], fed: number[][] = [];
    live.forEach((i, j) => {
      const r = requests[i]!, out = results[i]!;
      const row = logits.subarray(j * modelVocab, (j + 1) * modelVocab);
      const pick = pickToken(row, vocab, r, r.allowed === null ? null : r.allowed(out.tokens), rngs[i]!, scratch);
      out.tokens.push(pick.token);
      out.logprobs.push(pick.logprob);
      let stopped = r.stopTokens.includes(pick.token);
      if (!stopped && r.stopStrings.length > 0) {
        // Search only the tail a new stop string could have completed in.
        const prevLen = texts[i]!.length;
        texts[i] = options.decode!(out.tokens);
        const from = Math.max(0, prevLen - maxStop[i]! - 1);
        stopped = r.stopStrings.some((s) => s.length > 0 && texts[i]!.indexOf(s, from) >= 0);
      }
      if (stopped) out.finishReason = "stop";
      else if (out.tokens.length >= r.maxTokens) out.finishReason = "length";
      else if (out.tokens.length >= budget[i]!) out.finishReason = "context";
      else {
        next.push(i);
        fed.push([pick.token]);
      }
    });
    live = next;
    if (live.length > 0) logits = session.append(live, fed);
  }
  return results;
}
