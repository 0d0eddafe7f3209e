// Decode attention against the channel-major KV cache: the reference kernel equals the training
// attention (row-major keys) on the same numbers, and the native kernel equals the reference, for
// single queries and prefills whose lengths cross the native blocks (4 queries, 16 and 32 keys),
// GQA and MHA. Also the cache write, and the facade's refusal of bad sequence tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { ShapeError } from "../core/errors.ts";
import { createEngine, referenceEngine } from "./engine.ts";
import { loadNative } from "./native.ts";
import { relErr } from "../testing/rel-err.ts";

const loaded = loadNative();
const skip = loaded.ok ? false : `native addon unavailable: ${loaded.error.message}`;
const ref = referenceEngine();

type Case = { H: number; Hkv: number; hd: number; cap: number; seqs: [row: number, past: number, nq: number][] };

/** Random q and caches, and the same keys/values row-major for `attentionForward`. */
function setup(c: Case, seed: number) {
  const rng = Rng.from(seed), KV = c.Hkv * c.hd, batch = Math.max(...c.seqs.map((s) => s[0])) + 1;
  const kc = new Float32Array(batch * KV * c.cap), vc = new Float32Array(batch * KV * c.cap);
  for (let i = 0; i < kc.length; i++) {
    kc[i] = rng.normal();
    vc[i] = rng.normal();
  }
  const nq = c.seqs.reduce((s, x) => s + x[2], 0);
  const q = Float32Array.from({ length: nq * c.H * c.hd }, () => rng.normal());
  const table = new Int32Array(4 * c.seqs.length), rowTable = new Int32Array(4 * c.seqs.length);
  const kRow = new Float32Array(c.seqs.reduce((s, x) => s + x[1] + x[2], 0) * KV), vRow = new Float32Array(kRow.length);
  let qs = 0, ks = 0;
  c.seqs.forEach(([row, past, n], b) => {
    table.set([qs, n, row, past], 4 * b);
    rowTable.set([qs, n, ks, past], 4 * b);
    for (let p = 0; p < past + n; p++) {
      for (let ch = 0; ch < KV; ch++) {
        kRow[(ks + p) * KV + ch] = kc[(row * KV + ch) * c.cap + p]!;
        vRow[(ks + p) * KV + ch] = vc[(row * KV + ch) * c.cap + p]!;
      }
    }
    qs += n;
    ks += past + n;
  });
  return { kc, vc, q, table, rowTable, kRow, vRow, KV, nq };
}

const CASES: Case[] = [
  { H: 4, Hkv: 2, hd: 24, cap: 80, seqs: [[0, 0, 1], [2, 17, 1], [1, 63, 1], [3, 40, 1]] },
  { H: 4, Hkv: 2, hd: 24, cap: 96, seqs: [[1, 0, 37], [0, 20, 7], [2, 33, 3]] },
  { H: 2, Hkv: 2, hd: 16, cap: 64, seqs: [[0, 5, 2], [1, 31, 33]] },
];

test("reference decode attention equals the training attention on the same keys and values", () => {
  CASES.forEach((c, i) => {
    const s = setup(c, 100 + i);
    const a = new Float32Array(s.q.length), b = new Float32Array(s.q.length);
    ref.attentionDecode(a, s.q, s.kc, s.vc, s.table, c.H, c.Hkv, c.hd, c.cap);
    ref.attentionForward(b, null, s.q, s.kRow, s.vRow, s.rowTable, c.H, c.Hkv, c.hd);
    assert.ok(relErr(a, b) < 1e-6, `case ${i}: ${relErr(a, b)}`);
  });
});

test("native decode attention and cache write equal the reference", { skip }, () => {
  const nat = createEngine({ kind: "native" });
  CASES.forEach((c, i) => {
    const s = setup(c, 200 + i);
    const a = new Float32Array(s.q.length), b = new Float32Array(s.q.length);
    nat.attentionDecode(a, s.q, s.kc, s.vc, s.table, c.H, c.Hkv, c.hd, c.cap);
    ref.attentionDecode(b, s.q, s.kc, s.vc, s.table, c.H, c.Hkv, c.hd, c.cap);
    assert.ok(relErr(a, b) < 1e-5, `case ${i}: ${relErr(a, b)}`);
    const rng = Rng.from(300 + i);
    const k = Float32Array.from({ length: s.nq * s.KV }, () => rng.normal()), v = Float32Array.from({ length: k.length }, () => rng.normal());
    const [k1, v1, k2, v2] = [s.kc.slice(), s.vc.slice(), s.kc.slice(), s.vc.slice()];
    nat.kvWrite(k1, v1, k, v, s.table, s.KV, c.cap);
    ref.kvWrite(k2, v2, k, v, s.table, s.KV, c.cap);
    assert.deepEqual(k1, k2);
    assert.deepEqual(v1, v2);
    assert.notDeepEqual(k1, s.kc, "the write changed the cache");
  });
});

test("decode sequence tables out of range or sharing a cache row are refused before any kernel runs", () => {
  for (const e of loaded.ok ? [ref, createEngine({ kind: "native" })] : [ref]) {
    const c = CASES[0]!, s = setup(c, 1);
    const out = new Float32Array(s.q.length);
    const bad = (t: number[], msg: RegExp) => assert.throws(() => e.attentionDecode(out, s.q, s.kc, s.vc, Int32Array.from(t), c.H, c.Hkv, c.hd, c.cap), (x: unknown) => x instanceof ShapeError && msg.test(x.message));
    bad([0, 1, 9, 0], /cache row 9/);
    bad([0, 1, 0, 80], /positions up to 81/);
    bad([0, 1, 0, 0, 1, 1, 0, 3], /two sequences use cache row 0/);
    bad([0, 9, 0, 0], /query rows up to 9/);
    assert.throws(() => e.kvWrite(s.kc.subarray(1), s.vc, s.q, s.q, s.table, s.KV, c.cap), ShapeError);
  }
});
