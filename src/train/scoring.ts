/**
 * Batched scoring and back-propagation in bounded chunks: requests are grouped in their given
 * order into chunks of at most `maxTokens` tokens (a single longer request is its own chunk), so
 * memory stays bounded and the chunking, hence the numerics, depend only on the request list.
 */
import type { Policy, ScoreRequest, TrainablePolicy } from "../policy/policy.ts";

/** Default token budget of one `score` / `backward` call. */
export const CHUNK_TOKENS = 16384;

/** Index ranges [start, end) of consecutive requests whose tokens fit the budget. */
export function chunks(requests: readonly ScoreRequest[], maxTokens: number = CHUNK_TOKENS): [number, number][] {
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
