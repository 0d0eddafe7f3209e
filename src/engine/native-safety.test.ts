// Regression tests of two ways the native engine corrupted the heap.
// 1. Signals (what `node --cpu-prof` exposed): oneDNN 2.6's f32 "nocopy" GEMM kernel points rsp
//    at a heap workspace when its K block is over 252 (K in 253..256 or >= 505 on AVX2), so a
//    signal arriving during it (SIGPROF of the profiler, any handled SIGUSR2/SIGCHLD/...) wrote its
//    frame over malloc's metadata. The addon now blocks asynchronous signals around every call and
//    in its OpenMP workers (native/src/signals.h).
// 2. Threads: the addon's process-wide caches were unsynchronised, so two Node worker threads
//    calling it at once corrupted them; calls are now serialised.
// Skipped, with the reason, where the addon is not built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Worker } from "node:worker_threads";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine } from "./engine.ts";
import { loadNative, nativeAddonPath, nativeShieldState } from "./native.ts";
import { relErr } from "../testing/rel-err.ts";

const loaded = loadNative();
const skip = loaded.ok ? false : `native addon unavailable: ${loaded.error.message}`;

test("native attention on the shapes that corrupted the heap (key counts 253..256 and past 505) equals the reference", { skip }, () => {
  const nat = createEngine({ kind: "native" }), ref = referenceEngine();
  const rng = Rng.from(40);
  const rand = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
  // [H, Hkv, hd, sequences as [nq, past]]: the embedded preset (GQA 4/2, head 32) with a prompt
  // block after 600 cached tokens, a block whose key counts run through 253..256, one crossing
  // 505, a decode row; then an odd head size.
  const cases = [
    [4, 2, 32, [[64, 600], [40, 215], [3, 502], [1, 700]]],
    [6, 3, 5, [[70, 520], [1, 255]]],
  ] as const;
  for (const [H, Hkv, hd, list] of cases) {
    const seqs = new Int32Array(4 * list.length);
    let rq = 0, rkv = 0;
    list.forEach(([nq, past], b) => {
      seqs.set([rq, nq, rkv, past], 4 * b);
      rq += nq;
      rkv += past + nq;
    });
    const q = rand(rq * H * hd), k = rand(rkv * Hkv * hd), v = rand(rkv * Hkv * hd), dout = rand(rq * H * hd);
    const outs = [nat, ref].map((e) => {
      const o = [new Float32Array(q.length), new Float32Array(rq * H), new Float32Array(q.length), new Float32Array(k.length), new Float32Array(v.length)] as const;
      e.attentionForward(o[0], o[1], q, k, v, seqs, H, Hkv, hd);
      e.attentionBackward(o[2], o[3], o[4], dout, q, k, v, o[0], o[1], seqs, H, Hkv, hd);
      return o;
    });
    outs[0]!.forEach((t, i) => {
      const err = relErr(t, outs[1]![i]!);
      assert.ok(err < 1e-4, `H=${H} Hkv=${Hkv} hd=${hd} output ${i}: ${err}`);
    });
  }
});

/** The signal mask of the main thread, from /proc (hex SigBlk), or null off Linux. */
function mainThreadMask(): string | null {
  try {
    return /^SigBlk:\s*(\S+)/m.exec(readFileSync(`/proc/self/task/${process.pid}/status`, "utf8"))?.[1] ?? null;
  } catch {
    return null;
  }
}

test("during a native call the caller and every OpenMP worker block asynchronous signals; after it the caller's mask is back", { skip }, () => {
  const before = mainThreadMask();
  const s = nativeShieldState()!;
  assert.equal(s.caller, true);
  assert.ok(s.team >= 1);
  assert.equal(s.blocked, s.team, `${s.blocked} of ${s.team} threads block signals`);
  if (before !== null) assert.equal(mainThreadMask(), before);
});

test("native attention and matmul survive SIGPROF (node --cpu-prof) and handled SIGUSR2 while their kernels run", { skip, timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-signals-"));
  try {
    const helper = fileURLToPath(new URL("./signal-child.helper.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", "--cpu-prof", "--cpu-prof-interval", "50", "--cpu-prof-dir", dir, helper, "700"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "", stderr = "", flood: NodeJS.Timeout | undefined;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      // Once the child has its SIGUSR2 handler and its inputs, signal it every 2 ms.
      if (flood === undefined && stdout.includes("ready\n")) flood = setInterval(() => child.kill("SIGUSR2"), 2);
      if (stdout.includes("}\n")) clearInterval(flood);
    });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("exit", (c, s) => resolve([c, s])));
    clearInterval(flood);
    assert.equal(code, 0, `child exited with ${code ?? signal}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`);
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { calls: number; handled: number; worst: number };
    assert.ok(result.calls >= 8, `only ${result.calls} native calls ran`);
    assert.ok(result.handled > 0, "no SIGUSR2 reached the child's handler");
    assert.ok(result.worst < 1e-4, `native results differ from the reference by ${result.worst}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Plain JavaScript, run in two workers at once (each loads the addon in its own environment, as
// a library user with worker_threads would): after a shared start line, matmuls of changing
// shapes (new primitive-cache entries) and RoPE over a few shared bases at growing positions
// (tables both threads extend) for `ms`, matmul results checked exactly (products of 1s and 2s).
// Posts [calls, wrong results].
const CONCURRENT = `
const { parentPort, workerData } = require("node:worker_threads");
const addon = require(workerData.path);
const ready = new Int32Array(workerData.ready);
Atomics.add(ready, 0, 1);
while (Atomics.load(ready, 0) < 2) {}
let wrong = 0, i = 0;
const t0 = Date.now();
for (; Date.now() - t0 < workerData.ms; i++) {
  const m = 3 + (i % 50), n = 17 + (i % 13), k = 29 + ((i * 7) % 300);
  const a = new Float32Array(m * k).fill(1), b = new Float32Array(k * n).fill(2), c = new Float32Array(m * n);
  addon.matmul(c, a, b, m, n, k, false, false, false, false);
  if (c.some((v) => v !== 2 * k)) wrong++;
  addon.rope(new Float32Array(64).fill(1), new Int32Array([i % 5000]), 1, 2, 32, 10000 + (i % 7), false);
}
parentPort.postMessage([i, wrong]);
`;

test("two JavaScript threads calling the addon at once get correct results and leave the heap intact", { skip }, async () => {
  const ready = new SharedArrayBuffer(4);
  const run = () => new Promise<[number, number]>((resolve, reject) => {
    const w = new Worker(CONCURRENT, { eval: true, workerData: { path: nativeAddonPath(), ms: 600, ready } });
    w.on("message", resolve);
    w.on("error", reject);
  });
  const [a, b] = await Promise.all([run(), run()]);
  assert.ok(a[0] > 10 && b[0] > 10, `too few calls ran: ${a[0]}, ${b[0]}`);
  assert.deepEqual([a[1], b[1]], [0, 0], "wrong matmul results");
});
