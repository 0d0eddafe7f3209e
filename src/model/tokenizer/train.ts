/**
 * Deterministic byte-level BPE training. Text is split on added tokens (so chat markers and
 * agent tags never take part in merges), pre-tokenized with the Qwen2 regex and counted per
 * distinct piece; then the most frequent adjacent pair is merged until the vocabulary is full.
 *
 * Tie rule: among pairs of equal count, the smallest (left id, right id) wins. Ids are assigned
 * in creation order (bytes 0..255 first, then merges), so the result depends only on the input
 * texts and options, never on hash or iteration order.
 *
 * Speed: a max-heap of pair counts with lazy invalidation, and per-merge updates that touch only
 * the distinct pieces containing the merged pair; a few MB of text trains in seconds.
 */
import { UsageError } from "../../core/errors.ts";
import { BYTE_TO_CHAR } from "./byte-level.ts";
import { BpeTokenizer, pairKey, type AddedToken } from "./bpe.ts";
import { QWEN2_PATTERN, splitPieces, translateHfPattern } from "./pretokenize.ts";

/**
 * The added tokens of every tokenizer we train. Chat markers are special (matched only when
 * encoding with `allowSpecial`); the agent tags are ordinary added tokens, always one token each,
 * so a tiny model emits `<action>` in one step and an action mask can name it by id.
 */
export const DEFAULT_ADDED_TOKENS: ReadonlyArray<{ content: string; special: boolean }> = [
  { content: "<|endoftext|>", special: true },
  { content: "<|im_start|>", special: true },
  { content: "<|im_end|>", special: true },
  ...["think", "action", "search", "answer", "information", "skill"].flatMap((tag) => [
    { content: `<${tag}>`, special: false },
    { content: `</${tag}>`, special: false },
  ]),
];

/** Options of `trainBpe`. */
export type BpeTrainOptions = {
  /** Total vocabulary: 256 bytes + merges + added tokens. */
  readonly vocabSize: number;
  /** A pair seen fewer times than this is never merged (training may stop below `vocabSize`). @default 2 */
  readonly minFrequency?: number;
  /** Added tokens, given ids after the merges in this order. @default DEFAULT_ADDED_TOKENS */
  readonly addedTokens?: ReadonlyArray<{ content: string; special: boolean }>;
  /** Pre-tokenizer pattern (Hugging Face syntax). @default QWEN2_PATTERN */
  readonly pattern?: string;
};

/** A max-heap of (count, pair key): larger count first, then smaller key (the tie rule). */
class PairHeap {
  private counts: number[] = [];
  private keys: number[] = [];
  get size(): number {
    return this.counts.length;
  }
  private above(i: number, j: number): boolean {
    const ci = this.counts[i]!, cj = this.counts[j]!;
    return ci > cj || (ci === cj && this.keys[i]! < this.keys[j]!);
  }
  private swap(i: number, j: number): void {
    [this.counts[i], this.counts[j]] = [this.counts[j]!, this.counts[i]!];
    [this.keys[i], this.keys[j]] = [this.keys[j]!, this.keys[i]!];
  }
  push(count: number, key: number): void {
    this.counts.push(count);
    this.keys.push(key);
    for (let i = this.counts.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.above(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  pop(): [number, number] {
    const top: [number, number] = [this.counts[0]!, this.keys[0]!];
    const lastC = this.counts.pop()!, lastK = this.keys.pop()!;
    if (this.counts.length > 0) {
      this.counts[0] = lastC;
      this.keys[0] = lastK;
      for (let i = 0; ; ) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < this.counts.length && this.above(l, m)) m = l;
        if (r < this.counts.length && this.above(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Distinct pre-tokenized pieces of the texts and how often each occurs (added tokens removed). */
function countPieces(texts: readonly string[], pattern: string, added: readonly string[]): Map<string, number> {
  const regex = translateHfPattern(pattern);
  const addedRe = added.length === 0 ? null : new RegExp([...added].sort((a, b) => b.length - a.length).map(escapeRegex).join("|"), "g");
  const counts = new Map<string, number>();
  const pieces: string[] = [];
  for (const text of texts) {
    const segments = addedRe === null ? [text] : text.split(addedRe);
    for (const seg of segments) {
      pieces.length = 0;
      for (const p of splitPieces(seg, regex, pieces)) counts.set(p, (counts.get(p) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * Trains a byte-level BPE tokenizer on `texts`.
 * @example const tok = trainBpe(corpus, { vocabSize: 2048 }); tok.decode(tok.encode("hi")) === "hi"
 * @throws UsageError when `vocabSize` cannot hold the 256 bytes and the added tokens
 */
export function trainBpe(texts: string | readonly string[], options: BpeTrainOptions): BpeTokenizer {
  const added = options.addedTokens ?? DEFAULT_ADDED_TOKENS;
  const pattern = options.pattern ?? QWEN2_PATTERN;
  const minFrequency = options.minFrequency ?? 2;
  const targetMerges = options.vocabSize - 256 - added.length;
  if (!Number.isInteger(options.vocabSize) || targetMerges < 0) {
    throw new UsageError(`vocabSize ${options.vocabSize} is too small: it must hold 256 bytes and ${added.length} added tokens`);
  }
  const counts = countPieces(typeof texts === "string" ? [texts] : texts, pattern, added.map((t) => t.content));

  const encoder = new TextEncoder();
  const words: number[][] = [];
  const freq: number[] = [];
  for (const [piece, n] of counts) {
    words.push(Array.from(encoder.encode(piece)));
    freq.push(n);
  }

  const tokens: string[] = [...BYTE_TO_CHAR]; // id -> byte-level string
  const idOf = new Map<string, number>(tokens.map((t, i) => [t, i]));
  const merges: [string, string][] = [];
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, number[]>(); // may hold stale or repeated word indices
  const heap = new PairHeap();
  words.forEach((w, wi) => {
    for (let i = 0; i + 1 < w.length; i++) {
      const k = pairKey(w[i]!, w[i + 1]!);
      pairCount.set(k, (pairCount.get(k) ?? 0) + freq[wi]!);
      let list = pairWords.get(k);
      if (list === undefined) pairWords.set(k, (list = []));
      if (list[list.length - 1] !== wi) list.push(wi);
    }
  });
  for (const [k, n] of pairCount) heap.push(n, k);

  const seen = new Int32Array(words.length).fill(-1);
  const delta = new Map<number, number>();
  while (tokens.length < 256 + targetMerges && heap.size > 0) {
    const [count, key] = heap.pop();
    if (pairCount.get(key) !== count) continue; // stale entry; the current count was pushed too
    if (count < minFrequency) break;
    const a = Math.floor(key / (1 << 21)), b = key % (1 << 21);
    // Two merges can spell the same string ("ab"+"c", "a"+"bc"); they share one id, as in HF.
    const joined = tokens[a]! + tokens[b]!;
    let c = idOf.get(joined);
    if (c === undefined) {
      c = tokens.length;
      tokens.push(joined);
      idOf.set(joined, c);
    }
    const stamp = merges.length;
    merges.push([tokens[a]!, tokens[b]!]);

    delta.clear();
    const bump = (k: number, d: number) => delta.set(k, (delta.get(k) ?? 0) + d);
    for (const wi of pairWords.get(key) ?? []) {
      if (seen[wi] === stamp) continue;
      seen[wi] = stamp;
      const w = words[wi]!, f = freq[wi]!;
      let found = false;
      for (let i = 0; i + 1 < w.length && !found; i++) found = w[i] === a && w[i + 1] === b;
      if (!found) continue;
      for (let i = 0; i + 1 < w.length; i++) bump(pairKey(w[i]!, w[i + 1]!), -f);
      const merged: number[] = [];
      for (let i = 0; i < w.length; i++) {
        if (i + 1 < w.length && w[i] === a && w[i + 1] === b) {
          merged.push(c);
          i++;
        } else merged.push(w[i]!);
      }
      for (let i = 0; i + 1 < merged.length; i++) {
        const k = pairKey(merged[i]!, merged[i + 1]!);
        bump(k, f);
        if (merged[i] === c || merged[i + 1] === c) {
          let list = pairWords.get(k);
          if (list === undefined) pairWords.set(k, (list = []));
          if (list[list.length - 1] !== wi) list.push(wi);
        }
      }
      words[wi] = merged;
    }
    for (const [k, d] of delta) {
      if (d === 0) continue;
      const n = (pairCount.get(k) ?? 0) + d;
      if (n > 0) {
        pairCount.set(k, n);
        heap.push(n, k);
      } else pairCount.delete(k);
    }
    pairWords.delete(key);
  }

  const vocab = new Map<string, number>();
  tokens.forEach((t, id) => vocab.set(t, id));
  const addedTokens: AddedToken[] = added.map((t, i) => ({ id: tokens.length + i, content: t.content, special: t.special }));
  return new BpeTokenizer({ vocab, merges, addedTokens, pattern, normalizer: null, addPrefixSpace: false });
}
