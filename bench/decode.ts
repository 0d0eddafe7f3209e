/**
 * Batched greedy KV-cache decoding, the sampling measurement `seed bench update` and `seed bench
 * pretrained` share: `batch` seeded random prompts of `promptLen` tokens are prefilled together,
 * then `newTokens` greedy tokens are appended per row, one batched cache append per step.
 */
import { Rng } from "../src/core/rng.ts";
import { KvCache } from "../src/model/kv-cache.ts";
import type { Transformer } from "../src/model/transformer.ts";

/** Greedy batched decoding with a KV cache: tokens per second over prefill + decode (best of reps). */
export function decodeTokS(model: Transformer, batch: number, promptLen: number, newTokens: number, reps: number): number {
  const V = model.config.vocabSize, rng = Rng.from(7);
  const prompts = Array.from({ length: batch }, () => Array.from({ length: promptLen }, () => rng.int(V)));
  const rows = Array.from({ length: batch }, (_, i) => i);
  const once = () => {
    const cache = new KvCache(model, batch, promptLen + newTokens);
    let logits = cache.append(rows, prompts);
    for (let t = 0; t < newTokens; t++) {
      const next = rows.map((i) => {
        let arg = 0;
        for (let j = 1; j < V; j++) if (logits[i * V + j]! > logits[i * V + arg]!) arg = j;
        return [arg];
      });
      logits = cache.append(rows, next);
    }
  };
  once();
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    once();
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  return (batch * newTokens) / best;
}

