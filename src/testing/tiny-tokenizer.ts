/**
 * A tiny deterministic tokenizer for tests: one id per byte (0-255), the ChatML special tokens,
 * and optional multi-byte "pieces" matched greedily (longest first), which is enough to exercise
 * token boundaries the way BPE merges do (a piece such as `>go` crosses the `<action>` boundary).
 * Round-trips any UTF-8 text. Not a BPE trainer and not the embedded model's tokenizer.
 */
import type { Tokenizer } from "../policy/policy.ts";

/** Special tokens of the tiny tokenizer, in id order after the 256 bytes. */
export const TINY_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] as const;

/** Options of {@link TinyTokenizer}. */
export type TinyTokenizerOptions = {
  /** Multi-byte pieces, each one id, matched greedily (longest first). @default [] */
  readonly pieces?: readonly string[];
  /** Extra special tokens (e.g. `<action>`), ids after the ChatML ones. @default [] */
  readonly specials?: readonly string[];
};

/** Byte-level tokenizer with ChatML specials and optional greedy pieces. */
export class TinyTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly eosId: number;
  private readonly specials: readonly string[];
  private readonly pieces: readonly Uint8Array[];
  private readonly pieceBase: number;
  private readonly enc = new TextEncoder();
  private readonly dec = new TextDecoder();

  constructor(options: TinyTokenizerOptions = {}) {
    this.specials = [...TINY_SPECIALS, ...(options.specials ?? [])];
    this.pieceBase = 256 + this.specials.length;
    this.pieces = (options.pieces ?? []).map((p) => this.enc.encode(p));
    this.vocabSize = this.pieceBase + this.pieces.length;
    this.eosId = 256;
  }

  specialTokenId(token: string): number | undefined {
    const i = this.specials.indexOf(token);
    return i === -1 ? undefined : 256 + i;
  }

  encode(text: string, options: { allowSpecial?: boolean } = {}): number[] {
    const out: number[] = [];
    if (!options.allowSpecial) {
      this.encodePlain(text, out);
      return out;
    }
    let rest = text;
    while (rest.length > 0) {
      let best = -1;
      let bestAt = rest.length;
      this.specials.forEach((s, i) => {
        const at = rest.indexOf(s);
        if (at !== -1 && (at < bestAt || (at === bestAt && s.length > this.specials[best]!.length))) {
          best = i;
          bestAt = at;
        }
      });
      this.encodePlain(rest.slice(0, bestAt), out);
      if (best === -1) break;
      out.push(256 + best);
      rest = rest.slice(bestAt + this.specials[best]!.length);
    }
    return out;
  }

  private encodePlain(text: string, out: number[]): void {
    const bytes = this.enc.encode(text);
    let i = 0;
    while (i < bytes.length) {
      let bestPiece = -1;
      let bestLen = 1;
      this.pieces.forEach((p, k) => {
        if (p.length > bestLen && i + p.length <= bytes.length && p.every((b, j) => bytes[i + j] === b)) {
          bestPiece = k;
          bestLen = p.length;
        }
      });
      out.push(bestPiece === -1 ? bytes[i]! : this.pieceBase + bestPiece);
      i += bestLen;
    }
  }

  decode(ids: readonly number[]): string {
    let text = "";
    let bytes: number[] = [];
    const flush = () => {
      text += this.dec.decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      if (id < 256) bytes.push(id);
      else if (id < this.pieceBase) {
        flush();
        text += this.specials[id - 256] ?? "";
      } else bytes.push(...(this.pieces[id - this.pieceBase] ?? []));
    }
    flush();
    return text;
  }
}
