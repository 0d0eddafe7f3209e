/**
 * A byte-level BPE tokenizer (GPT-2 / Qwen2 family): text -> added-token split -> optional
 * Unicode normalisation -> regex pre-tokenization -> UTF-8 bytes -> merges by rank.
 * Encoding is exact Hugging Face semantics for the configurations we load (see `hf-json.ts`);
 * decoding concatenates bytes and decodes UTF-8 once per run of ordinary tokens, so a character
 * split across tokens decodes whole, and bytes that are not valid UTF-8 become U+FFFD.
 *
 * Structurally implements the `Tokenizer` interface of `policy/policy.ts` (the model layer may not
 * import the policy layer; `policy/embedded.ts` checks the assignment at compile time).
 * Not here: training (`train.ts`), file formats (`hf-json.ts`), chat templates (`chat.ts`).
 */
import { CheckpointError, ShapeError } from "../../core/errors.ts";
import { BYTE_TO_CHAR, symbolsToBytes } from "./byte-level.ts";
import { splitPieces, translateHfPattern } from "./pretokenize.ts";

/** A token matched on the raw text before pre-tokenization (chat markers, agent tags). */
export type AddedToken = {
  readonly id: number;
  readonly content: string;
  /**
   * Special tokens (`<|im_start|>`) are matched only when `encode` is called with
   * `allowSpecial`, so text from an environment can never forge a chat marker. Non-special added
   * tokens (`<action>`) are always matched.
   */
  readonly special: boolean;
};

/** Everything that defines a byte-level BPE tokenizer. */
export type BpeSpec = {
  /** Byte-level token strings (see `byte-level.ts`) -> ids. Must hold all 256 single bytes. */
  readonly vocab: ReadonlyMap<string, number>;
  /** Merge rules in rank order (rank 0 is applied first); both halves and their join are in `vocab`. */
  readonly merges: ReadonlyArray<readonly [string, string]>;
  readonly addedTokens: readonly AddedToken[];
  /** Pre-tokenizer regex in Hugging Face syntax (e.g. `QWEN2_PATTERN`). */
  readonly pattern: string;
  /**
   * Further `Split` pre-tokenizers (HF `Sequence`), each applied to every piece the previous
   * ones produced. Qwen2 has none; DeepSeek-style tokenizers chain several. @default []
   */
  readonly splitPatterns?: readonly string[];
  /** Emit a piece that is itself a vocab entry as that one token before trying merges (Llama 3). @default false */
  readonly ignoreMerges?: boolean;
  /** Unicode normalisation applied to text outside added tokens. Qwen2 uses NFC; ours none. */
  readonly normalizer: "NFC" | "NFKC" | null;
  /** Prepend a space to text that does not start with whitespace (GPT-2 option). */
  readonly addPrefixSpace: boolean;
  /** Content of the end-of-sequence token; defaults to `<|im_end|>`, else `<|endoftext|>`. */
  readonly eosToken?: string;
};

/**
 * Stands for a byte the vocabulary has no token for. As in llama.cpp, such a byte takes part in
 * no merge (it separates its neighbours) and is left out of the output. (Hugging Face instead
 * drops it before merging, so its neighbours may merge; the two differ only on text holding such
 * bytes, e.g. U+0004 for SmolLM2.)
 */
const MISSING_BYTE = -1;

/** Ids above this cannot be packed into a pair key; no real vocabulary comes close. */
const MAX_ID = 1 << 21;

/** Pair (a, b) as one number, a-major: comparing keys compares (a, b) lexicographically. */
export function pairKey(a: number, b: number): number {
  return a * MAX_ID + b;
}

const ENCODER = new TextEncoder();
// ignoreBOM: a leading U+FEFF is text here (a token, or a word-cache key), not a byte-order mark to strip.
const DECODER = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
/**
 * The word cache is bounded by the characters its keys hold (a piece of n UTF-16 units costs
 * about 2n bytes plus its ids), and pieces longer than `CACHE_MAX_PIECE` are never cached: they
 * are rare in real text, and a client sending megabytes of one "word" would otherwise fill it.
 */
const CACHE_MAX_CHARS = 2_000_000;
const CACHE_MAX_PIECE = 64;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** A byte-level BPE tokenizer; build one with `trainBpe`, `loadTokenizer` or from a `BpeSpec`. */
export class BpeTokenizer {
  /** One past the largest id (vocab and added tokens). */
  readonly vocabSize: number;
  /** End-of-sequence id (the default stop token). */
  readonly eosId: number;
  /** The definition this tokenizer was built from (what `hf-json.ts` saves). */
  readonly spec: BpeSpec;

  /** Id of each single byte, `MISSING_BYTE` for bytes the vocabulary lacks. */
  private readonly byteIds = new Int32Array(256);
  /** How many of the 256 bytes have no token (0 for GPT-2, Qwen2; 21 for SmolLM2). */
  private missingBytes = 0;
  /** pairKey(a, b) -> rank of the merge; `mergedId[rank]` is the id it produces. */
  private readonly ranks = new Map<number, number>();
  private readonly mergedId: Int32Array;
  /** Per id: its UTF-8 bytes (ordinary tokens) or its literal text (added tokens). */
  private readonly tokenBytes: (Uint8Array | undefined)[];
  private readonly addedText: (string | undefined)[];
  private readonly addedByContent = new Map<string, AddedToken>();
  private readonly regex: RegExp;
  private readonly moreRegexes: RegExp[];
  private readonly allAddedRe: RegExp | null;
  private readonly plainAddedRe: RegExp | null;
  private readonly cache = new Map<string, readonly number[]>();
  private cacheChars = 0;

  /** @throws CheckpointError naming `source` and the first inconsistency found */
  constructor(spec: BpeSpec, source = "tokenizer") {
    this.spec = spec;
    const fail = (problem: string): never => {
      throw new CheckpointError(source, problem);
    };
    let maxId = -1;
    const byId = new Map<number, string>();
    for (const [token, id] of spec.vocab) {
      if (!Number.isInteger(id) || id < 0 || id >= MAX_ID) fail(`vocab id ${id} of ${JSON.stringify(token)} is not an integer in [0, ${MAX_ID})`);
      const prev = byId.get(id);
      if (prev !== undefined) fail(`vocab id ${id} is used by both ${JSON.stringify(prev)} and ${JSON.stringify(token)}`);
      byId.set(id, token);
      maxId = Math.max(maxId, id);
    }
    for (let b = 0; b < 256; b++) {
      const id = spec.vocab.get(BYTE_TO_CHAR[b]!);
      // Some real vocabularies (SmolLM2) lack a few rare bytes (controls, 0xC0, 0xF1...); space and printable ASCII must be there.
      if (id === undefined && b >= 0x20 && b <= 0x7e) fail(`vocab lacks the single-byte token for byte ${b} (not a byte-level BPE vocabulary?)`);
      this.byteIds[b] = id ?? MISSING_BYTE;
      if (id === undefined) this.missingBytes++;
    }
    for (const t of spec.addedTokens) {
      if (!Number.isInteger(t.id) || t.id < 0 || t.id >= MAX_ID) fail(`added token ${JSON.stringify(t.content)} has bad id ${t.id}`);
      if (t.content.length === 0) fail(`added token ${t.id} is empty`);
      const clash = byId.get(t.id);
      // An added token may also sit in the vocab (GPT-2 does this), but only under its own id.
      if (clash !== undefined && clash !== bytesToLevelString(t.content)) fail(`added token ${JSON.stringify(t.content)} reuses vocab id ${t.id}`);
      if (this.addedByContent.has(t.content)) fail(`added token ${JSON.stringify(t.content)} appears twice`);
      this.addedByContent.set(t.content, t);
      maxId = Math.max(maxId, t.id);
    }
    this.vocabSize = maxId + 1;
    this.tokenBytes = new Array(this.vocabSize);
    this.addedText = new Array(this.vocabSize);
    for (const [token, id] of spec.vocab) {
      const bytes = symbolsToBytes(token);
      if (bytes === null) fail(`vocab token ${JSON.stringify(token)} has characters outside the byte-level alphabet`);
      this.tokenBytes[id] = bytes!;
    }
    for (const t of spec.addedTokens) this.addedText[t.id] = t.content;

    this.mergedId = new Int32Array(spec.merges.length);
    spec.merges.forEach(([l, r], rank) => {
      const a = spec.vocab.get(l), b = spec.vocab.get(r), c = spec.vocab.get(l + r);
      if (a === undefined || b === undefined || c === undefined) fail(`merge ${rank} (${JSON.stringify(l)} ${JSON.stringify(r)}) uses a token missing from the vocab`);
      const key = pairKey(a!, b!);
      if (!this.ranks.has(key)) this.ranks.set(key, rank); // HF keeps the first rank of a duplicate
      this.mergedId[rank] = c!;
    });

    try {
      this.regex = translateHfPattern(spec.pattern);
      this.moreRegexes = (spec.splitPatterns ?? []).map(translateHfPattern);
    } catch (e) {
      throw new CheckpointError(source, `pre-tokenizer pattern not supported: ${(e as Error).message}`);
    }
    const alt = (ts: readonly AddedToken[]) =>
      ts.length === 0 ? null : new RegExp([...ts].sort((x, y) => y.content.length - x.content.length).map((t) => escapeRegex(t.content)).join("|"), "g");
    this.allAddedRe = alt(spec.addedTokens);
    this.plainAddedRe = alt(spec.addedTokens.filter((t) => !t.special));

    const eosContent = spec.eosToken ?? (this.addedByContent.has("<|im_end|>") ? "<|im_end|>" : "<|endoftext|>");
    const eos = this.addedByContent.get(eosContent)?.id ?? spec.vocab.get(bytesToLevelString(eosContent));
    if (eos === undefined) fail(`no end-of-sequence token (${JSON.stringify(eosContent)} is not in the vocabulary)`);
    this.eosId = eos!;
  }

  /** Encode text. Special-token strings map to their ids only if `allowSpecial`. */
  encode(text: string, options?: { allowSpecial?: boolean }): number[] {
    const out: number[] = [];
    const re = options?.allowSpecial ? this.allAddedRe : this.plainAddedRe;
    if (re === null) {
      this.encodeOrdinary(text, out);
      return out;
    }
    let last = 0;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m.index > last) this.encodeOrdinary(text.slice(last, m.index), out);
      out.push(this.addedByContent.get(m[0])!.id);
      last = m.index + m[0].length;
    }
    if (last < text.length) this.encodeOrdinary(text.slice(last), out);
    return out;
  }

  /** Decode ids to text (added and special tokens rendered as their strings). */
  decode(ids: readonly number[]): string {
    let text = "";
    let buf = new Uint8Array(256);
    let n = 0;
    for (const id of ids) {
      const added = this.addedText[id];
      if (added !== undefined) {
        if (n > 0) text += DECODER.decode(buf.subarray(0, n));
        n = 0;
        text += added;
        continue;
      }
      const bytes = this.tokenBytes[id];
      if (bytes === undefined) throw new ShapeError(`token id ${id} is not in the vocabulary (size ${this.vocabSize})`);
      if (n + bytes.length > buf.length) {
        const bigger = new Uint8Array(Math.max(buf.length * 2, n + bytes.length));
        bigger.set(buf.subarray(0, n));
        buf = bigger;
      }
      buf.set(bytes, n);
      n += bytes.length;
    }
    if (n > 0) text += DECODER.decode(buf.subarray(0, n));
    return text;
  }

  /** Id of an added (special or agent-tag) token by its string, or undefined. */
  specialTokenId(token: string): number | undefined {
    return this.addedByContent.get(token)?.id;
  }

  /** The added tokens, in id order. */
  addedTokens(): AddedToken[] {
    return [...this.spec.addedTokens].sort((a, b) => a.id - b.id);
  }

  /** Whether `id` is an added token (never produced by merges). */
  isAdded(id: number): boolean {
    return this.addedText[id] !== undefined;
  }

  private encodeOrdinary(segment: string, out: number[]): void {
    let text = this.spec.normalizer === null ? segment : segment.normalize(this.spec.normalizer);
    if (this.spec.addPrefixSpace && text.length > 0 && !/^\s/u.test(text)) text = " " + text;
    // The loop of `splitPieces`, inlined: no array of pieces per segment (encode is hot).
    const re = this.regex;
    re.lastIndex = 0;
    let last = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      if (m.index > last) this.encodePiece(text.slice(last, m.index), out);
      this.encodePiece(m[0], out);
      last = m.index + m[0].length;
    }
    if (last < text.length) this.encodePiece(text.slice(last), out);
  }

  private encodePiece(piece: string, out: number[]): void {
    if (this.moreRegexes.length > 0) {
      let pieces = [piece];
      for (const re of this.moreRegexes) pieces = pieces.flatMap((p) => splitPieces(p, re));
      for (const p of pieces) this.encodeWord(p, out);
    } else this.encodeWord(piece, out);
  }

  /** Entries and key characters of the word cache (for tests of its bound). */
  cacheSize(): { entries: number; chars: number } {
    return { entries: this.cache.size, chars: this.cacheChars };
  }

  private encodeWord(piece: string, out: number[]): void {
    let ids = this.cache.get(piece);
    if (ids === undefined) {
      const whole = this.spec.ignoreMerges ? this.spec.vocab.get(bytesToLevelString(piece)) : undefined;
      const bytes = ENCODER.encode(piece);
      ids = whole !== undefined ? [whole] : this.bpe(bytes);
      if (piece.length <= CACHE_MAX_PIECE) {
        if (this.cacheChars + piece.length > CACHE_MAX_CHARS) {
          this.cache.clear();
          this.cacheChars = 0;
        }
        // The key is a fresh copy: `piece` is a slice of the caller's text, and V8 keeps a slice's
        // whole source string alive, so caching it would pin every prompt ever encoded.
        this.cache.set(DECODER.decode(bytes), ids);
        this.cacheChars += piece.length;
      }
    }
    for (let i = 0; i < ids.length; i++) out.push(ids[i]!);
  }

  /** Applies merges by rank: repeatedly merge every occurrence of the lowest-ranked pair. */
  private bpe(bytes: Uint8Array): number[] {
    let ids = Array.from(bytes, (b) => this.byteIds[b]!);
    while (ids.length > 1) {
      let best = Infinity;
      for (let i = 0; i + 1 < ids.length; i++) {
        const a = ids[i]!, b = ids[i + 1]!;
        if (a < 0 || b < 0) continue;
        const r = this.ranks.get(pairKey(a, b));
        if (r !== undefined && r < best) best = r;
      }
      if (best === Infinity) break;
      const c = this.mergedId[best]!;
      const next: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        if (i + 1 < ids.length && ids[i]! >= 0 && ids[i + 1]! >= 0 && this.ranks.get(pairKey(ids[i]!, ids[i + 1]!)) === best) {
          next.push(c);
          i++;
        } else next.push(ids[i]!);
      }
      ids = next;
    }
    return this.missingBytes === 0 ? ids : ids.filter((id) => id !== MISSING_BYTE);
  }
}

/** The byte-level spelling of a text (how it would appear as a vocab key). */
export function bytesToLevelString(text: string): string {
  const bytes = ENCODER.encode(text);
  let s = "";
  for (const b of bytes) s += BYTE_TO_CHAR[b]!;
  return s;
}
