/**
 * Child process of the signal-safety test (native-safety.test.ts): runs the native attention
 * and matmul on shapes whose oneDNN f32 GEMM takes the kernel path that puts its stack pointer on
 * the heap (K >= 505 on AVX2), in a loop, while signals arrive: the parent starts it under
 * `node --cpu-prof --cpu-prof-interval 50` (SIGPROF to this thread) and also sends SIGUSR2, which
 * this process handles. Before the fix this died of glibc heap corruption within a fraction of a
 * second. Prints one JSON line: calls made, signals handled, and the largest difference from the
 * reference engine. Usage:
 *   node --import tsx src/engine/signal-child.helper.ts <milliseconds>
 * Not part of the library: nothing in src/ imports it.
 */
import { Rng } from "../core/rng.ts";
import { createEngine, referenceEngine } from "./engine.ts";

const ms = Number(process.argv[2] ?? "700");
let handled = 0;
process.on("SIGUSR2", () => { handled++; });

const nat = createEngine({ kind: "native" }), ref = referenceEngine();
const rng = Rng.from(41);
const rand = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
/** max |got − want| / max(1, max |want|). */
const relDiff = (got: Float32Array, want: Float32Array) =>
  got.reduce((d, x, i) => Math.max(d, Math.abs(x - want[i]!)), 0) / want.reduce((s, x) => Math.max(s, Math.abs(x)), 1);

// The embedded preset's attention (4 heads over 2 kv heads of 32): 64 new rows after 600 cached.
const H = 4, Hkv = 2, hd = 32, nq = 64, past = 600;
const q = rand(nq * H * hd), k = rand((past + nq) * Hkv * hd), v = rand((past + nq) * Hkv * hd);
const seqs = new Int32Array([0, nq, 0, past]);
const attWant = new Float32Array(q.length), attGot = new Float32Array(q.length);
ref.attentionForward(attWant, null, q, k, v, seqs, H, Hkv, hd);
// A thin product with a long inner dimension: the same kernel path, through the matmul primitive.
const m = 8, n = 32, kk = 1024;
const a = rand(m * kk), b = rand(kk * n), mmWant = new Float32Array(m * n), mmGot = new Float32Array(m * n);
ref.matmul(mmWant, a, b, m, n, kk);

process.stdout.write("ready\n");
let calls = 0, worst = 0;
const t0 = Date.now();
// Yield to the event loop between rounds so the SIGUSR2 handler runs during the test.
const round = (): void => {
  for (let i = 0; i < 4; i++) {
    nat.attentionForward(attGot, null, q, k, v, seqs, H, Hkv, hd);
    nat.matmul(mmGot, a, b, m, n, kk);
    worst = Math.max(worst, relDiff(attGot, attWant), relDiff(mmGot, mmWant));
    calls += 2;
  }
  if (Date.now() - t0 < ms) {
    setImmediate(round);
  } else {
    process.stdout.write(JSON.stringify({ calls, handled, worst }) + "\n");
    // The parent stops signalling when it reads the line; stay (handler installed) until the
    // signals already sent have arrived, since one landing during exit would end the process.
    setTimeout(() => {}, 300);
  }
};
round();
