/**
 * A KV-cache pool that outlives one `sample` call. Each slot remembers the tokens its cache
 * holds; a new request takes the free slot sharing the longest prefix with its prompt and only
 * the rest of the prompt is fed. In the agent's `full` history mode a turn's prompt extends the
 * previous turn's prompt + response, so each turn costs its new tokens instead of the whole
 * episode; in `window` mode the shared system prompt is reused.
 *
 * Valid only while the weights do not change: the owner calls `invalidate()` after every
 * optimizer step. Numerics: a reused prefix was computed in chunks of different sizes than a
 * fresh prefill would use; with the reference engine the logits are bit-identical, with the
 * native engine they may differ in the last bits (see the policy test that measures it).
 */
import { KvCache } from "../model/kv-cache.ts";
import type { Transformer } from "../model/transformer.ts";

/** Where each request of a batch runs, and how many of its prompt tokens are already cached. */
export type SlotAssignment = { readonly cache: KvCache; readonly slots: number[]; readonly cached: number[] };

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** A pool of KV-cache rows keyed by the token sequence each holds. */
export class PrefixCache {
  private readonly model: Transformer;
  private cache: KvCache | null = null;
  private contents: number[][] = [];
  /** Prompt tokens served from the cache and fed fresh, since creation (for metrics and tests). */
  reusedTokens = 0;
  fedTokens = 0;

  constructor(model: Transformer) {
    this.model = model;
  }

  /** Forget every cached sequence (after the weights changed). Keeps the memory for reuse. */
  invalidate(): void {
    this.contents = this.contents.map(() => []);
    if (this.cache !== null) for (let r = 0; r < this.cache.batch; r++) this.cache.reset(r);
  }

  /** Release the cache memory. */
  clear(): void {
    this.cache = null;
    this.contents = [];
  }

  /**
   * Assigns a distinct slot to every prompt (longest shared prefix first) and truncates each slot
   * to the reusable prefix; at least the last prompt token is always left to feed, so the decode
   * loop gets fresh logits. Prompts longer than the context reuse nothing (they are not fed).
   */
  assign(prompts: readonly (readonly number[])[]): SlotAssignment {
    const need = prompts.length;
    if (this.cache === null || this.cache.batch < need) {
      // Rows cannot move between caches, so growing drops what is cached; rounding the row count
      // up to a power of two makes that rare (at most 2x the rows a batch needs).
      const rows = 2 ** Math.ceil(Math.log2(need));
      this.cache = new KvCache(this.model, rows);
      this.contents = Array.from({ length: rows }, () => []);
    }
    const free = new Set(this.contents.keys());
    const slots: number[] = [], cached: number[] = [];
    // Longest matches first, so a short prompt does not steal the slot of a long episode.
    const matches = prompts.map((p, i) => {
      let best = -1, bestLen = -1;
      this.contents.forEach((c, s) => {
        const l = commonPrefix(c, p);
        if (l > bestLen || (l === bestLen && c.length < this.contents[best]!.length)) [best, bestLen] = [s, l];
      });
      return { i, bestLen };
    });
    matches.sort((a, b) => b.bestLen - a.bestLen || a.i - b.i);
    for (const { i } of matches) {
      const p = prompts[i]!;
      let best = -1, bestLen = -1;
      for (const s of free) {
        const l = commonPrefix(this.contents[s]!, p);
        if (l > bestLen || (l === bestLen && this.contents[s]!.length < this.contents[best]!.length)) [best, bestLen] = [s, l];
      }
      free.delete(best);
      const keep = p.length >= this.model.config.maxContext ? 0 : Math.min(bestLen, p.length - 1);
      this.cache.truncate(best, keep);
      this.contents[best] = this.contents[best]!.slice(0, keep);
      slots[i] = best;
      cached[i] = keep;
      this.reusedTokens += keep;
      if (p.length < this.model.config.maxContext) this.fedTokens += p.length - keep;
    }
    return { cache: this.cache, slots, cached };
  }

  /** Records what a slot now holds: the first `cache.length(slot)` tokens of `sequence`. */
  record(slot: number, sequence: readonly number[]): void {
    this.contents[slot] = sequence.slice(0, this.cache!.length(slot));
  }
}
