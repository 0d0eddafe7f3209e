/**
 * The one chunker: requests are grouped in their given order into chunks of at most `maxTokens`
 * tokens (a single longer request is its own chunk), so memory stays bounded and the chunking,
 * hence the numerics, depend only on the request list. The trainer scores and back-propagates
 * through `scoreAll` / `backwardAll` (16k-token chunks, the same for every `TrainablePolicy`);
 * the embedded policy cuts each call again at its own activation budget with the same function.
 */
import type { Policy, ScoreRequest, TrainablePolicy } from "./policy.ts";

/** Default token budget of one `score` / `backward` call. */
export const CHUNK_TOKENS = 16384;

/** Index ranges [start, end) of consecutive requests whose tokens fit the budget. */
export function chunks(requests: readonly { readonly tokens: ArrayLike<number> }[], maxTokens: number = CHUNK_TOKENS): [number, number][] {
  const out: [number, number][] = [];
  let start = 0, tokens = 0;
  requests.forEach((r, i) => {
    if (i > start && tokens + r.tokens.length > maxTokens) {
      out.push([start, i]);
      start = i;
      tokens = 0;
    }
    tokens += r.tokens.length;
  });
  if (start < requests.length) out.push([start, requests.length]);
  return out;
}

/**
 * Where each request's scored positions lie in the flat layout: `[M]` with request r at
 * `[offsets[r], offsets[r + 1])`, the layout of the packed batch the transformer scores
 * (`model/batch.ts`'s `scoreOffsets`). The losses' flat arrays use this same layout, so
 * weights go to `backward` as views of one array, never re-laid out row by row.
 */
export function scoredOffsets(requests: readonly ScoreRequest[]): number[] {
  const out = [0];
  for (const r of requests) out.push(out[out.length - 1]! + r.tokens.length - r.start);
  return out;
}

/** A flat `[M]` array as one `Float32Array` per request (views of a single f32 copy). */
export function splitScored(flat: ArrayLike<number>, offsets: readonly number[]): Float32Array[] {
  const all = Float32Array.from(flat);
  return offsets.slice(0, -1).map((start, r) => all.subarray(start, offsets[r + 1]!));
}

/** `policy.score` over chunks; one array per request, in order. */
export async function scoreAll(policy: Policy, requests: readonly ScoreRequest[], maxTokens: number = CHUNK_TOKENS): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const [a, b] of chunks(requests, maxTokens)) out.push(...(await policy.score(requests.slice(a, b))));
  return out;
}

/** `policy.backward` over chunks (gradients accumulate across calls until `step`). */
export async function backwardAll(policy: TrainablePolicy, requests: readonly ScoreRequest[], weights: readonly Float32Array[], maxTokens: number = CHUNK_TOKENS): Promise<void> {
  for (const [a, b] of chunks(requests, maxTokens)) await policy.backward(requests.slice(a, b), weights.slice(a, b));
}
