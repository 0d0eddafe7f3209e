// The native engine against the reference engine on seeded random inputs, kernel by kernel.
// Sizes are chosen to cross the native blockings (attention query blocks of 64, LM-head row
// chunks, multi-threaded GEMMs). Skipped, with the reason, where the addon is not built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine, type Engine } from "./engine.ts";
import { loadNative, nativeBf16Matmul } from "./native.ts";
import { roundBf16 } from "./ops/matmul.ts";
import type { AllowedSets, MatmulDtype } from "./kernels.ts";
import { relErr } from "../testing/rel-err.ts";

/** LM head forward, backward and the one-pass kernel, native vs reference, on random rows (a third restricted). */
function lmHeadCase(rng: Rng, rows: number, D: number, V: number): void {
  const h = rand(rng, rows * D), w = rand(rng, V * D, 0.5), weights = rand(rng, rows);
  weights[5] = 0;
  const targets = Int32Array.from({ length: rows }, () => rng.int(V));
  const restricted = Uint8Array.from({ length: rows }, (_, r) => (r % 3 === 0 ? 1 : 0));
  const ids: number[] = [], offsets = new Int32Array(rows + 1);
  for (let r = 0; r < rows; r++) {
    offsets[r] = ids.length;
    if (restricted[r]) ids.push(targets[r]!, (targets[r]! + 1) % V, (targets[r]! + 7) % V);
  }
  offsets[rows] = ids.length;
  const allowed: AllowedSets = { restricted, offsets, ids: Int32Array.from(ids) };
  for (const [dtype, al] of [["f32", allowed], ["bf16", null]] as const) {
    {
      const [o1, o2] = both(() => [new Float32Array(rows), new Float32Array(rows), new Float32Array(rows * D), new Float32Array(V * D)],
        (e, [logp, lse, dh, dw]) => {
          e.lmHeadForward(logp, lse, h, w, targets, rows, D, V, al, dtype);
          e.lmHeadBackward(dh, dw, h, w, targets, weights, lse, rows, D, V, al, dtype);
        });
      // bf16: the native backward also rounds the logit gradient to bf16, the reference does not
      const tol = dtype === "bf16" ? 1e-2 : 1e-4;
      o1.forEach((t, i) => assert.ok(relErr(t, o2[i]!) < tol, `${dtype} allowed=${al !== null} output ${i}: ${relErr(t, o2[i]!)}`));
      // the one-pass training kernel equals forward + backward
      const t1 = [new Float32Array(rows), new Float32Array(rows), new Float32Array(rows * D), new Float32Array(V * D)] as const;
      nat!.lmHeadTrain(t1[0], t1[1], t1[2], t1[3], h, w, targets, weights, rows, D, V, al, dtype);
      t1.forEach((t, i) => assert.ok(relErr(t, o1[i]!) < 1e-6, `lmHeadTrain ${dtype} output ${i}: ${relErr(t, o1[i]!)}`));
    }
  }
}

const loaded = loadNative();
const skip = loaded.ok ? false : `native addon unavailable: ${loaded.error.message}`;
const ref = referenceEngine();
const nat: Engine | null = loaded.ok ? createEngine({ kind: "native" }) : null;

const rand = (rng: Rng, n: number, scale = 1) => Float32Array.from({ length: n }, () => rng.normal() * scale);

/** Runs `f` on both engines with cloned outputs and returns both sets of outputs. */
function both<const T extends readonly Float32Array[]>(make: () => T, f: (e: Engine, outs: T) => void): [T, T] {
  const a = make(), b = a.map((x) => x.slice()) as unknown as T;
  f(nat!, a);
  f(ref, b);
  return [a, b];
}

test("native matmul equals the reference for every transpose, accumulation and dtype", { skip }, () => {
  const rng = Rng.from(21);
  // The last shape is large enough (2^23 multiply-adds) to run on the multi-threaded path; the
  // others (under 2^22) take the small-GEMM path for x·Wᵀ, with partial 4x4 tiles and k tails
  // (40x200x80: over 2^19, its column tiles split across threads).
  for (const [m, n, k, full] of [[67, 45, 33, true], [1, 300, 17, true], [32, 96, 96, false], [40, 200, 80, false], [512, 128, 128, false]] as const) {
    for (const dtype of (full ? ["f32", "bf16"] : ["f32"]) as MatmulDtype[]) {
      for (const ta of [false, true]) for (const tb of [false, true]) {
        const a = rand(rng, m * k), b = rand(rng, k * n), c0 = rand(rng, m * n);
        for (const acc of full ? [false, true] : [true]) {
          const [[x], [y]] = both(() => [c0.slice()], (e, [c]) => e.matmul(c, a, b, m, n, k, ta, tb, acc, dtype));
          const tol = dtype === "bf16" ? 1e-5 : 1e-5;
          assert.ok(relErr(x, y) < tol, `${m}x${n}x${k} ta=${ta} tb=${tb} acc=${acc} ${dtype}: ${relErr(x, y)}`);
        }
      }
    }
  }
});

test("the raw bf16 primitive path (or its exact f32 stand-in without bf16 hardware) equals bf16-rounded products", { skip }, () => {
  const mm = nativeBf16Matmul()!;
  const rng = Rng.from(26), bits = (x: Float32Array) => new Uint16Array(new Uint32Array(Float32Array.from(x, roundBf16).buffer).map((u) => u >>> 16));
  for (const [m, n, k] of [[33, 17, 40], [300, 64, 96]] as const) {
    for (const [ta, tb] of [[false, true], [true, false]] as const) {
      const a = rand(rng, m * k), b = rand(rng, k * n), c0 = rand(rng, m * n);
      const got = c0.slice(), want = c0.slice();
      mm(got, bits(a), bits(b), m, n, k, ta, tb, true);
      ref.matmul(want, a, b, m, n, k, ta, tb, true, "bf16");
      assert.ok(relErr(got, want) < 1e-5, `${m}x${n}x${k} ${ta} ${tb}: ${relErr(got, want)}`);
    }
  }
});

test("native rmsnorm, rope and swiglu (forward and backward) equal the reference", { skip }, () => {
  const rng = Rng.from(22), rows = 700, cols = 96;
  const x = rand(rng, rows * cols), w = rand(rng, cols), dout = rand(rng, rows * cols);
  const [o1, o2] = both(() => [new Float32Array(rows * cols), new Float32Array(rows), new Float32Array(rows * cols), new Float32Array(cols)],
    (e, [out, inv, dx, dw]) => {
      e.rmsnormForward(out, inv, x, w, rows, cols, 1e-6);
      e.rmsnormBackward(dx, dw, dout, x, w, inv, rows, cols);
    });
  o1.forEach((t, i) => assert.ok(relErr(t, o2[i]!) < 2e-5, `rmsnorm output ${i}: ${relErr(t, o2[i]!)}`));
  const pos = Int32Array.from({ length: rows }, (_, i) => (i * 37) % 4000);
  const [[r1], [r2]] = both(() => [x.slice()], (e, [y]) => e.rope(y, pos, rows, 3, 32, 1e6));
  assert.ok(relErr(r1, r2) < 1e-5, `rope ${relErr(r1, r2)}`);
  const [[b1], [b2]] = both(() => [r1.slice()], (e, [y]) => e.rope(y, pos, rows, 3, 32, 1e6, true));
  assert.ok(relErr(b1, b2) < 1e-5 && relErr(b1, x) < 1e-5);
  const n = rows * cols, gate = rand(rng, n, 3), up = rand(rng, n);
  const [s1, s2] = both(() => [new Float32Array(n), new Float32Array(n), new Float32Array(n)], (e, [h, dg, du]) => {
    e.swigluForward(h, gate, up, n);
    e.swigluBackward(dg, du, dout, gate, up, n);
  });
  s1.forEach((t, i) => assert.ok(relErr(t, s2[i]!) < 1e-5, `swiglu output ${i}: ${relErr(t, s2[i]!)}`));
});

test("native attention (GQA, several query blocks, cached past) equals the reference, forward and backward", { skip }, () => {
  const rng = Rng.from(23), H = 4, Hkv = 2, hd = 16;
  // seq 0: 150 packed tokens; seq 1: 70 new tokens after 30 cached at kv rows 150..250; seq 2: one decode step
  const seqs = new Int32Array([0, 150, 0, 0, 150, 70, 150, 30, 220, 1, 250, 99]);
  const rq = 221, rkv = 350;
  const q = rand(rng, rq * H * hd), k = rand(rng, rkv * Hkv * hd), v = rand(rng, rkv * Hkv * hd), dout = rand(rng, rq * H * hd);
  const [a1, a2] = both(
    () => [new Float32Array(rq * H * hd), new Float32Array(rq * H), new Float32Array(q.length), new Float32Array(k.length), new Float32Array(v.length)],
    (e, [out, lse, dq, dk, dv]) => {
      e.attentionForward(out, lse, q, k, v, seqs, H, Hkv, hd);
      e.attentionBackward(dq, dk, dv, dout, q, k, v, out, lse, seqs, H, Hkv, hd);
    });
  a1.forEach((t, i) => assert.ok(relErr(t, a2[i]!) < 1e-4, `attention output ${i}: ${relErr(t, a2[i]!)}`));
});

test("native LM head (allowed sets, f32 and bf16, one-pass training kernel) equals the reference", { skip }, () => {
  lmHeadCase(Rng.from(24), 150, 8, 3000);
});

test("native AdamW and sum of squares equal the reference", { skip }, () => {
  const rng = Rng.from(25), n = 300000;
  const g = rand(rng, n), p0 = rand(rng, n), m0 = rand(rng, n, 0.1), v0 = Float32Array.from(rand(rng, n, 0.1), (x) => x * x);
  const hp = { lr: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, step: 7, gradScale: 0.5 };
  const [a1, a2] = both(() => [p0.slice(), m0.slice(), v0.slice()], (e, [p, m, v]) => e.adamw(p, g, m, v, hp));
  a1.forEach((t, i) => assert.ok(relErr(t, a2[i]!) < 1e-6, `adamw output ${i}: ${relErr(t, a2[i]!)}`));
  const s1 = nat!.sumSquares(g), s2 = ref.sumSquares(g);
  assert.ok(Math.abs(s1 - s2) / s2 < 1e-12);
});

test("the loader sets GOMP_SPINCOUNT only when the user set neither OpenMP variable, and says so (loaderEnv) for peers to drop", async () => {
  const { spawnSync } = await import("node:child_process");
  const code = `const n = await import(${JSON.stringify(new URL("./native.ts", import.meta.url).href)}); const r = n.loadNative(); ` +
    `console.log(JSON.stringify({ ok: r.ok, set: n.loaderEnv(), spin: process.env.GOMP_SPINCOUNT ?? null }));`;
  const run = (extra: Record<string, string>) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env["OMP_WAIT_POLICY"];
    delete env["GOMP_SPINCOUNT"];
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8", env: { ...env, ...extra } });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split("\n").pop()!) as { ok: boolean; set: string[]; spin: string | null };
  };
  const plain = run({});
  if (!plain.ok) return; // no addon on this machine: nothing is loaded, nothing is set
  assert.deepEqual(plain, { ok: true, set: ["GOMP_SPINCOUNT"], spin: "100000" });
  assert.deepEqual(run({ GOMP_SPINCOUNT: "7" }), { ok: true, set: [], spin: "7" });
  assert.deepEqual(run({ OMP_WAIT_POLICY: "passive" }), { ok: true, set: [], spin: null });
});
