/**
 * Loader and adapter of the native addon (`native/`, built by `npm run build:native`): finds the
 * compiled module, sets the OpenMP wait policy before it loads (a bounded spin, then sleep: an
 * endless spin would hold the second core while Node works alone), and exposes its functions as
 * `Kernels`. Never throws on a missing or broken addon: the failure comes back as a value with a
 * reason a user can act on.
 */
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { availableParallelism } from "node:os";
import { SeedError, UsageError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { AdamWHyper, AllowedSets, DecodeSeqTable, Kernels, MatmulDtype, SeqTable } from "./kernels.ts";

/** What the addon reports about itself. */
export type NativeInfo = {
  readonly onednn: string;
  readonly threads: number;
  /** A bf16 matmul primitive exists (else bf16 is emulated through f32). */
  readonly bf16Supported: boolean;
  /** bf16 runs on a dedicated fast kernel (AMX or AVX-512 BF16), not a reference loop. */
  readonly bf16Fast: boolean;
  readonly bf16Impl: string | null;
  readonly f32Impl: string | null;
};

/**
 * Signal masks seen from inside a native call: whether the calling thread blocks asynchronous
 * signals, and how many of an OpenMP team of the configured size do (native/src/signals.h).
 */
export type ShieldState = { readonly caller: boolean; readonly team: number; readonly blocked: number };

type F = Float32Array;
type Addon = {
  info(): { onednn: string; threads: number; bf16Supported: boolean; bf16Impl: string; f32Impl: string; isa: number };
  setThreads(n: number): void;
  shieldState(): ShieldState;
  matmul(c: F, a: F, b: F, m: number, n: number, k: number, ta: boolean, tb: boolean, acc: boolean, bf16: boolean): void;
  matmulBf16Bits(c: F, a: Uint16Array, b: Uint16Array, m: number, n: number, k: number, ta: boolean, tb: boolean, acc: boolean): void;
  rmsnormForward(out: F, inv: F, x: F, w: F, rows: number, cols: number, eps: number): void;
  rmsnormBackward(dx: F, dw: F, dout: F, x: F, w: F, inv: F, rows: number, cols: number): void;
  rope(x: F, pos: Int32Array, rows: number, heads: number, hd: number, theta: number, inverse: boolean): void;
  swigluForward(h: F, g: F, u: F, n: number): void;
  swigluBackward(dg: F, du: F, dh: F, g: F, u: F, n: number): void;
  attentionForward(out: F, lse: F | null, q: F, k: F, v: F, seqs: Int32Array, h: number, hkv: number, hd: number): void;
  attentionBackward(dq: F, dk: F, dv: F, dout: F, q: F, k: F, v: F, out: F, lse: F, seqs: Int32Array, h: number, hkv: number, hd: number): void;
  kvWrite(kc: F, vc: F, k: F, v: F, seqs: Int32Array, kvDim: number, cap: number): void;
  attentionDecode(out: F, q: F, kc: F, vc: F, seqs: Int32Array, h: number, hkv: number, hd: number, cap: number): void;
  decoderForward(logits: F, ids: Int32Array, positions: Int32Array, seqs: Int32Array, embed: F, finalNorm: F, head: F,
                 layers: readonly (F | null)[], caches: readonly F[], d: number, f: number, h: number, hkv: number, hd: number,
                 v: number, cap: number, eps: number, theta: number): void;
  lmHeadForward(logp: F, lse: F, h: F, w: F, t: Int32Array, rows: number, d: number, v: number,
                restricted: Uint8Array | null, offsets: Int32Array | null, ids: Int32Array | null, bf16: boolean): void;
  lmHeadBackward(dh: F, dw: F, h: F, w: F, t: Int32Array, weights: F, lse: F, rows: number, d: number, v: number,
                 restricted: Uint8Array | null, offsets: Int32Array | null, ids: Int32Array | null, bf16: boolean): void;
  lmHeadTrain(logp: F, lse: F, dh: F, dw: F, h: F, w: F, t: Int32Array, weights: F, rows: number, d: number, v: number,
              restricted: Uint8Array | null, offsets: Int32Array | null, ids: Int32Array | null, bf16: boolean): void;
  adamw(p: F, g: F, m: F, v: F, lr: number, b1: number, b2: number, eps: number, wd: number, step: number, gradScale: number): void;
  sumSquares(x: F): number;
};

/** Path of the compiled addon (the production build of `npm run build:native`). */
export const NATIVE_PATH = fileURLToPath(new URL("../../native/build/Release/seed_native.node", import.meta.url));

/**
 * The addon this process loads: `SEED_NATIVE_ADDON` when set (a sanitizer build made by
 * `native/build-asan.sh`, so the whole test suite can run against it), else `NATIVE_PATH`.
 */
export function nativeAddonPath(): string {
  const override = process.env["SEED_NATIVE_ADDON"];
  return override !== undefined && override !== "" ? override : NATIVE_PATH;
}

let loaded: Result<{ kernels: Kernels; info: NativeInfo; addon: Addon }, SeedError> | undefined;

const setByLoader: string[] = [];

/**
 * The environment variables this loader set for libgomp (none the user had set). A benchmark peer
 * (PyTorch, which also reads them) must not inherit them: it runs with its own defaults.
 */
export function loaderEnv(): readonly string[] {
  return setByLoader;
}

/**
 * The native kernels, or why they cannot be used. Loaded once per process. `threads` caps the
 * OpenMP threads of large GEMMs and large elementwise kernels (small ones always use one).
 * @default threads = min(2, available cores), or SEED_THREADS when set
 */
export function loadNative(threads?: number): Result<{ kernels: Kernels; info: NativeInfo }, SeedError> {
  if (threads !== undefined && !validThreads(threads)) {
    throw new UsageError(`threads must be an integer in [1, ${MAX_THREADS}], got ${threads}`);
  }
  if (loaded === undefined) loaded = load();
  if (loaded.ok && threads !== undefined) loaded.value.addon.setThreads(threads);
  return loaded;
}

/** Most OpenMP threads the addon accepts (it checks the same bound). */
export const MAX_THREADS = 1024;

function validThreads(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_THREADS;
}

/**
 * The raw bf16 matmul of the addon (bf16 bit patterns in, f32 out; unvalidated), for tests of the
 * bf16 primitive path on any CPU: where oneDNN has no bf16 kernel it must fall back to exact f32.
 */
export function nativeBf16Matmul(): Addon["matmulBf16Bits"] | null {
  if (loaded === undefined) loaded = load();
  return loaded.ok ? loaded.value.addon.matmulBf16Bits.bind(loaded.value.addon) : null;
}

/**
 * The signal masks inside a native call (null without the addon), for the test that every thread
 * that can run a oneDNN kernel blocks asynchronous signals while it does.
 */
export function nativeShieldState(): ShieldState | null {
  if (loaded === undefined) loaded = load();
  return loaded.ok ? loaded.value.addon.shieldState() : null;
}

function load(): Result<{ kernels: Kernels; info: NativeInfo; addon: Addon }, SeedError> {
  const path = nativeAddonPath();
  if (!existsSync(path)) {
    return err(new SeedError(`the native addon is not built (${path} missing; run 'npm run build:native', which needs libdnnl-dev and g++)`));
  }
  const missing = missingCpuFeatures(path.replace(/\.node$/, ".cpu.json"), readCpuFlags());
  if (missing.length > 0) {
    return err(new SeedError(`the native addon was compiled (-march=native) on a CPU with features this one lacks (${missing.join(", ")}); ` +
      "it must be built on the machine that runs it: run 'npm run build:native'"));
  }
  // Read by libgomp when the addon pulls it in. An idle OpenMP worker spins GOMP_SPINCOUNT times,
  // then sleeps: a decode step calls the kernels every few hundred microseconds, and waking a
  // sleeping worker for every parallel region (the earlier OMP_WAIT_POLICY=passive) cost batch-32
  // decoding a third of its speed (5.1k vs 7.5k tok/s, docs/PERFORMANCE.md), while a bounded spin
  // still frees the core between updates. A user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins.
  if (process.env["OMP_WAIT_POLICY"] === undefined && process.env["GOMP_SPINCOUNT"] === undefined) {
    process.env["GOMP_SPINCOUNT"] = "100000";
    setByLoader.push("GOMP_SPINCOUNT");
  }
  let addon: Addon;
  try {
    addon = createRequire(import.meta.url)(path) as Addon;
  } catch (e) {
    return err(new SeedError(`the native addon failed to load: ${(e as Error).message.split("\n")[0]}`));
  }
  const envThreads = Number(process.env["SEED_THREADS"]);
  const cores = availableParallelism();
  addon.setThreads(validThreads(envThreads) ? envThreads : Math.min(2, cores));
  const raw = addon.info();
  // oneDNN names its reference loops "ref:..."; only a jit/brgemm kernel makes bf16 worth it.
  const bf16Fast = raw.bf16Supported && raw.bf16Impl !== "" && !raw.bf16Impl.startsWith("ref");
  const info: NativeInfo = {
    onednn: raw.onednn, threads: raw.threads, bf16Supported: raw.bf16Supported, bf16Fast,
    bf16Impl: raw.bf16Impl || null, f32Impl: raw.f32Impl || null,
  };
  return ok({ kernels: adapt(addon), info, addon });
}

/** The feature flags of this CPU from /proc/cpuinfo, or null where there is none (not Linux). */
function readCpuFlags(): Set<string> | null {
  let text: string;
  try {
    text = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return null;
  }
  const line = text.split("\n").find((l) => /^flags\s*:/.test(l));
  return line === undefined ? null : new Set(line.slice(line.indexOf(":") + 1).trim().split(/\s+/));
}

/**
 * The CPU features an addon build needs (its `.cpu.json`, written by native/cpu-features.mjs at
 * build time) that `flags` lacks. Empty when either side is unknown: an old build without the
 * file, or a system without /proc/cpuinfo flags, loads as before.
 */
export function missingCpuFeatures(featuresFile: string, flags: ReadonlySet<string> | null): string[] {
  if (flags === null || !existsSync(featuresFile)) return [];
  let requires: unknown;
  try {
    requires = (JSON.parse(readFileSync(featuresFile, "utf8")) as { requires?: unknown }).requires;
  } catch {
    return [];
  }
  if (!Array.isArray(requires)) return [];
  return requires.filter((f): f is string => typeof f === "string" && !flags.has(f));
}

function allowedArgs(a: AllowedSets | null): [Uint8Array | null, Int32Array | null, Int32Array | null] {
  return a === null ? [null, null, null] : [a.restricted, a.offsets, a.ids];
}

function adapt(n: Addon): Kernels {
  const bf = (d: MatmulDtype) => d === "bf16";
  return {
    matmul: (c, a, b, m, nn, k, ta, tb, acc, dt) => n.matmul(c, a, b, m, nn, k, ta, tb, acc, bf(dt)),
    rmsnormForward: (out, inv, x, w, rows, cols, eps) => n.rmsnormForward(out, inv, x, w, rows, cols, eps),
    rmsnormBackward: (dx, dw, dout, x, w, inv, rows, cols) => n.rmsnormBackward(dx, dw, dout, x, w, inv, rows, cols),
    rope: (x, pos, rows, heads, hd, theta, inverse) => n.rope(x, pos, rows, heads, hd, theta, inverse),
    swigluForward: (h, g, u, len) => n.swigluForward(h, g, u, len),
    swigluBackward: (dg, du, dh, g, u, len) => n.swigluBackward(dg, du, dh, g, u, len),
    attentionForward: (out, lse, q, k, v, seqs: SeqTable, h, hkv, hd) => n.attentionForward(out, lse, q, k, v, seqs, h, hkv, hd),
    attentionBackward: (dq, dk, dv, dout, q, k, v, out, lse, seqs, h, hkv, hd) =>
      n.attentionBackward(dq, dk, dv, dout, q, k, v, out, lse, seqs, h, hkv, hd),
    kvWrite: (kc, vc, k, v, seqs: DecodeSeqTable, kvDim, cap) => n.kvWrite(kc, vc, k, v, seqs, kvDim, cap),
    attentionDecode: (out, q, kc, vc, seqs, h, hkv, hd, cap) => n.attentionDecode(out, q, kc, vc, seqs, h, hkv, hd, cap),
    decoderForward: (logits, ids, positions, seqs, w, d) => n.decoderForward(logits, ids, positions, seqs, w.embed, w.finalNorm, w.head,
      w.layers, w.caches, d.dModel, d.ffnSize, d.nHeads, d.nKvHeads, d.headDim, d.vocab, d.cap, d.eps, d.theta),
    lmHeadForward: (logp, lse, h, w, t, rows, d, v, allowed, dt) => n.lmHeadForward(logp, lse, h, w, t, rows, d, v, ...allowedArgs(allowed), bf(dt)),
    lmHeadBackward: (dh, dw, h, w, t, weights, lse, rows, d, v, allowed, dt) =>
      n.lmHeadBackward(dh, dw, h, w, t, weights, lse, rows, d, v, ...allowedArgs(allowed), bf(dt)),
    lmHeadTrain: (logp, lse, dh, dw, h, w, t, weights, rows, d, v, allowed, dt) =>
      n.lmHeadTrain(logp, lse, dh, dw, h, w, t, weights, rows, d, v, ...allowedArgs(allowed), bf(dt)),
    adamw: (p, g, m, v, hp: AdamWHyper) => n.adamw(p, g, m, v, hp.lr, hp.beta1, hp.beta2, hp.eps, hp.weightDecay, hp.step, hp.gradScale),
    sumSquares: (x) => n.sumSquares(x),
  };
}
