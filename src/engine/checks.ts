/**
 * The argument checks of the `Engine` facade (engine.ts): array types and lengths, index
 * ranges, sequence tables and allowed-token sets, each throwing a `ShapeError` that names the
 * kernel (`op`) and the argument, so bad input never reaches native code; and the pair counts
 * the flop counter uses. Pure functions of their arguments.
 */
import { ShapeError } from "../core/errors.ts";
import type { AllowedSets, DecodeSeqTable, SeqTable } from "./kernels.ts";

/** Throws the `ShapeError` of kernel `op`. */
export function fail(op: string, msg: string): never {
  throw new ShapeError(`${op}: ${msg}`);
}

/** Largest dimension the kernels accept (the native addon checks the same bound again). */
const MAX_DIM = 2 ** 31 - 1;

/** Every named dimension is an integer in [1, MAX_DIM]. */
export function dims(op: string, d: Record<string, number>): void {
  for (const [name, v] of Object.entries(d)) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_DIM) fail(op, `${name} must be an integer in [1, ${MAX_DIM}], got ${v}`);
  }
}

/** `x` is a Float32Array of at least `len` elements. */
export function floats(op: string, name: string, x: unknown, len: number): void {
  if (!(x instanceof Float32Array)) fail(op, `${name} must be a Float32Array, got ${describe(x)}`);
  if (x.length < len) fail(op, `${name} has ${x.length} elements, needs ${len}`);
}

/** `x` is an Int32Array of at least `len` elements, each in [lo, hi). */
export function ints(op: string, name: string, x: unknown, len: number, lo: number, hi: number): void {
  if (!(x instanceof Int32Array)) fail(op, `${name} must be an Int32Array, got ${describe(x)}`);
  if (x.length < len) fail(op, `${name} has ${x.length} elements, needs ${len}`);
  for (let i = 0; i < len; i++) if (x[i]! < lo || x[i]! >= hi) fail(op, `${name}[${i}] = ${x[i]} is outside [${lo}, ${hi})`);
}

/** A matmul dtype: "f32" or "bf16". */
export function checkDtype(op: string, d: unknown): void {
  if (d !== "f32" && d !== "bf16") fail(op, `dtype must be "f32" or "bf16", got ${String(d)}`);
}

/**
 * Checks a sequence table against q and k/v. Query ranges must not overlap (each output row
 * belongs to one sequence; the native kernels write a sequence's rows from one thread); the
 * backward (`disjointKv`) also needs disjoint key ranges, since each sequence overwrites its
 * dk/dv rows. A forward may share key rows (a common cached prefix).
 */
export function seqTable(op: string, seqs: SeqTable, q: Float32Array, k: Float32Array, v: Float32Array, nHeads: number, nKvHeads: number,
                         headDim: number, disjointKv: boolean): void {
  dims(op, { nHeads, nKvHeads, headDim });
  if (nHeads % nKvHeads !== 0) fail(op, `nKvHeads (${nKvHeads}) must divide nHeads (${nHeads})`);
  if (!(seqs instanceof Int32Array) || seqs.length % 4 !== 0 || seqs.length === 0) fail(op, "seqs must be a non-empty Int32Array of [qStart, nq, kvStart, past] quadruples");
  const qRows = q.length / (nHeads * headDim), kvRows = Math.min(k.length, v.length) / (nKvHeads * headDim);
  for (let b = 0; b < seqs.length / 4; b++) {
    const qs = seqs[4 * b]!, nq = seqs[4 * b + 1]!, ks = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    if (qs < 0 || nq < 1 || ks < 0 || past < 0) fail(op, `sequence ${b} has a negative start, past or an empty query range`);
    if (qs + nq > qRows) fail(op, `sequence ${b} reads query rows up to ${qs + nq}, q has ${Math.floor(qRows)}`);
    if (ks + past + nq > kvRows) fail(op, `sequence ${b} reads key rows up to ${ks + past + nq}, k/v have ${Math.floor(kvRows)}`);
  }
  const n = seqs.length / 4;
  const overlap = (start: (b: number) => number, len: (b: number) => number): [number, number] | null => {
    const order = Array.from({ length: n }, (_, b) => b).sort((x, y) => start(x) - start(y));
    for (let i = 1; i < n; i++) {
      const a = order[i - 1]!, b = order[i]!;
      if (start(b) < start(a) + len(a)) return [a, b];
    }
    return null;
  };
  const qHit = overlap((b) => seqs[4 * b]!, (b) => seqs[4 * b + 1]!);
  if (qHit !== null) fail(op, `sequences ${qHit[0]} and ${qHit[1]} share query rows`);
  if (disjointKv) {
    const kHit = overlap((b) => seqs[4 * b + 2]!, (b) => seqs[4 * b + 3]! + seqs[4 * b + 1]!);
    if (kHit !== null) fail(op, `sequences ${kHit[0]} and ${kHit[1]} share key rows (the backward needs disjoint ones)`);
  }
}

/**
 * Checks a decode sequence table against `qRows` query rows and a cache of `batch` rows of `cap`
 * positions: in range, distinct query ranges and distinct cache rows.
 */
export function decodeSeqTable(op: string, seqs: DecodeSeqTable, qRows: number, batch: number, cap: number): void {
  if (!(seqs instanceof Int32Array) || seqs.length % 4 !== 0 || seqs.length === 0) fail(op, "seqs must be a non-empty Int32Array of [qStart, nq, row, past] quadruples");
  const n = seqs.length / 4, rows = new Set<number>();
  for (let b = 0; b < n; b++) {
    const qs = seqs[4 * b]!, nq = seqs[4 * b + 1]!, row = seqs[4 * b + 2]!, past = seqs[4 * b + 3]!;
    if (qs < 0 || nq < 1 || past < 0) fail(op, `sequence ${b} has a negative start, past or an empty query range`);
    if (qs + nq > qRows) fail(op, `sequence ${b} reads query rows up to ${qs + nq}, there are ${qRows}`);
    if (row < 0 || row >= batch) fail(op, `sequence ${b} uses cache row ${row}, the cache has ${batch}`);
    if (past + nq > cap) fail(op, `sequence ${b} fills positions up to ${past + nq}, the cache holds ${cap} per row`);
    if (rows.has(row)) fail(op, `two sequences use cache row ${row}`);
    rows.add(row);
    if (b > 0 && qs < seqs[4 * (b - 1)]! + seqs[4 * (b - 1) + 1]!) fail(op, `sequence ${b} starts before the end of sequence ${b - 1} (query ranges must be increasing and disjoint)`);
  }
}

/** Rows of a KV cache pair of `kvDim * cap` floats per row (both the same size). */
export function cacheRows(op: string, kCache: unknown, vCache: unknown, kvDim: number, cap: number): number {
  floats(op, "kCache", kCache, kvDim * cap);
  floats(op, "vCache", vCache, kvDim * cap);
  const len = (kCache as Float32Array).length;
  if (len % (kvDim * cap) !== 0) fail(op, `kCache has ${len} elements, not a multiple of kvDim * cap = ${kvDim * cap}`);
  if ((vCache as Float32Array).length !== len) fail(op, `vCache has ${(vCache as Float32Array).length} elements, kCache ${len}`);
  return len / (kvDim * cap);
}

/** Allowed-token sets of `rows` rows: well formed, in the vocabulary, each target in its set. */
export function allowedSets(op: string, allowed: AllowedSets | null, targets: Int32Array, rows: number, vocab: number): void {
  if (allowed === null) return;
  const { restricted, offsets, ids } = allowed;
  if (!(restricted instanceof Uint8Array) || restricted.length < rows) fail(op, `allowed.restricted must be a Uint8Array of ${rows}`);
  if (!(offsets instanceof Int32Array) || offsets.length < rows + 1) fail(op, `allowed.offsets must be an Int32Array of ${rows + 1}`);
  ints(op, "allowed.ids", ids, offsets[rows]!, 0, vocab);
  for (let r = 0; r < rows; r++) {
    if (restricted[r] === 0) continue;
    const a = offsets[r]!, b = offsets[r + 1]!;
    if (a < 0 || b < a || b > ids.length) fail(op, `allowed.offsets are not increasing at row ${r}`);
    if (b === a) fail(op, `row ${r} is restricted to an empty set`);
    let found = false;
    for (let i = a; i < b; i++) if (ids[i] === targets[r]) found = true;
    if (!found) fail(op, `target token ${targets[r]} of row ${r} is not in its allowed set`);
  }
}

/**
 * Query-key pairs a causal attention call over `seqs` computes: each query sees its past and
 * itself. Prefill and decode tables both hold (nq, past) at offsets 1 and 3.
 */
export function causalPairs(seqs: SeqTable | DecodeSeqTable): number {
  let n = 0;
  for (let b = 0; b < seqs.length / 4; b++) {
    const nq = seqs[4 * b + 1]!, past = seqs[4 * b + 3]!;
    n += nq * past + (nq * (nq + 1)) / 2;
  }
  return n;
}

/** A value's type for an error message. */
function describe(x: unknown): string {
  if (x === null) return "null";
  if (typeof x === "object") return (x as object).constructor?.name ?? "object";
  return typeof x;
}
