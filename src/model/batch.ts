/**
 * Packing of a batch of scored sequences into the flat layout the transformer runs on: all input
 * tokens of all rows back to back (no padding), their positions, the attention sequence table,
 * and the rows whose hidden states predict a scored token. Validation of the rows happens here,
 * with errors that name the row.
 */
import { ContextLimitError, ShapeError } from "../core/errors.ts";
import type { AllowedSets } from "../engine/kernels.ts";

/**
 * One sequence to score: the log-prob of every token from `start` on given all tokens before it
 * (the shape of `ScoreRequest` in policy.ts). `allowed[i]`, when given and not null, restricts the
 * softmax at scored position `start + i` to those ids.
 */
export type ScoreRow = {
  readonly tokens: ArrayLike<number>;
  readonly start: number;
  readonly allowed?: ReadonlyArray<readonly number[] | null>;
};

/** A packed batch. N input rows (every token but each row's last), M scored rows. */
export type PackedBatch = {
  /** [N] input token ids. */
  readonly ids: Int32Array;
  /** [N] position of each input token within its row. */
  readonly positions: Int32Array;
  /** Attention table, 4 ints per row (see `SeqTable`). */
  readonly seqs: Int32Array;
  /** [M] index into the N input rows of the hidden state that predicts each scored token. */
  readonly scoredRows: Int32Array;
  /** [M] the scored tokens. */
  readonly targets: Int32Array;
  /** Restrictions of the scored rows, or null when no row has one. */
  readonly allowed: AllowedSets | null;
  /** Offset of each row's scores in the [M] vector; length rows + 1. */
  readonly scoreOffsets: Int32Array;
  readonly n: number;
  readonly m: number;
};

/** Validate and pack a batch. Throws `ShapeError` or `ContextLimitError` naming the row. */
export function packBatch(rows: readonly ScoreRow[], vocab: number, maxContext: number): PackedBatch {
  if (rows.length === 0) throw new ShapeError("empty batch: nothing to score");
  let n = 0, m = 0, anyAllowed = false;
  rows.forEach((r, b) => {
    const len = r.tokens.length;
    if (len < 2) throw new ShapeError(`row ${b}: needs at least 2 tokens (a context and a scored token), got ${len}`);
    if (len > maxContext) throw new ContextLimitError(maxContext, len);
    if (!Number.isInteger(r.start) || r.start < 1 || r.start >= len) throw new ShapeError(`row ${b}: start must be an integer in [1, ${len - 1}], got ${r.start}`);
    for (let i = 0; i < len; i++) {
      const t = r.tokens[i]!;
      if (!Number.isInteger(t) || t < 0 || t >= vocab) throw new ShapeError(`row ${b}: token ${i} is ${t}, outside the vocabulary [0, ${vocab})`);
    }
    if (r.allowed !== undefined) {
      if (r.allowed.length !== len - r.start) throw new ShapeError(`row ${b}: allowed has ${r.allowed.length} entries, expected one per scored token (${len - r.start})`);
      if (r.allowed.some((a) => a !== null)) anyAllowed = true;
    }
    n += len - 1;
    m += len - r.start;
  });
  const ids = new Int32Array(n), positions = new Int32Array(n), seqs = new Int32Array(4 * rows.length);
  const scoredRows = new Int32Array(m), targets = new Int32Array(m), scoreOffsets = new Int32Array(rows.length + 1);
  let base = 0, s = 0;
  rows.forEach((r, b) => {
    const len = r.tokens.length;
    for (let i = 0; i < len - 1; i++) {
      ids[base + i] = r.tokens[i]!;
      positions[base + i] = i;
    }
    seqs.set([base, len - 1, base, 0], 4 * b);
    scoreOffsets[b] = s;
    for (let t = r.start; t < len; t++, s++) {
      scoredRows[s] = base + t - 1;
      targets[s] = r.tokens[t]!;
    }
    base += len - 1;
  });
  scoreOffsets[rows.length] = s;
  const allowed = anyAllowed ? packAllowed(rows, m, vocab) : null;
  return { ids, positions, seqs, scoredRows, targets, allowed, scoreOffsets, n, m };
}

function packAllowed(rows: readonly ScoreRow[], m: number, vocab: number): AllowedSets {
  const restricted = new Uint8Array(m), offsets = new Int32Array(m + 1);
  const ids: number[] = [];
  let s = 0;
  rows.forEach((r, b) => {
    for (let i = 0; i < r.tokens.length - r.start; i++, s++) {
      offsets[s] = ids.length;
      const a = r.allowed?.[i] ?? null;
      if (a === null) continue;
      restricted[s] = 1;
      const seen = new Set<number>();
      for (const id of a) {
        if (!Number.isInteger(id) || id < 0 || id >= vocab) throw new ShapeError(`row ${b}: allowed id ${id} at scored position ${i} is outside [0, ${vocab})`);
        if (!seen.has(id)) ids.push(id);
        seen.add(id);
      }
      const target = r.tokens[r.start + i]!;
      if (!seen.has(target)) throw new ShapeError(`row ${b}: scored token ${target} at position ${r.start + i} is not in its allowed set`);
    }
  });
  offsets[m] = ids.length;
  return { restricted, offsets, ids: Int32Array.from(ids) };
}
