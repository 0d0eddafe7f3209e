/**
 * `seed bench engine [--json]`: the engine benchmark of issue 2, measured against a PyTorch CPU
 * peer (bench/peers/torch_peer.py, the same architecture) in the same run. Workloads: a training
 * step (forward + backward + AdamW, batch 16 x 512, the `bench` config) in f32 and bf16, scoring
 * throughput, greedy KV-cache sampling at batch 1 and 32, a large f32 matmul against the CPU's
 * fp32 peak, peak RSS, and forward + backward of a Qwen2.5-0.5B-shaped model on one 512-token
 * sequence (in a child process, so its memory is its own). Times are the best of `--reps`
 * repetitions after a warm-up, for us and for the peer alike: on a shared machine contention only
 * ever adds time. Our workloads run once before and once after the peer's, each side keeping its
 * best, and the process CPU time of the training step is reported for both sides: on a loaded
 * machine the wall-clock ratio mostly measures scheduling luck, the CPU-time ratio does not. The
 * load average before and after is reported so noisy runs can be recognised.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Rng } from "../src/core/rng.ts";
import { numberOption, parseOptions, printJson } from "../src/cli/args.ts";
import { cpuInfo, fp32PeakGflops } from "../src/engine/cpu.ts";
import { getEngine } from "../src/engine/engine.ts";
import { presetConfig } from "../src/model/config.ts";
import { ParamStore } from "../src/model/params.ts";
import { Transformer } from "../src/model/transformer.ts";
import { AdamW } from "../src/model/adamw.ts";
import { decodeTokS } from "./decode.ts";
import { peerPython, runPeer } from "./peer.ts";

type Out = Record<string, number | string | boolean | null | string[] | number[]>;

/** Best wall time (s) of `reps` runs after a warm-up, and the process CPU time (s) of that run. */
function timed(reps: number, f: () => void): { s: number; cpu: number } {
  f(); // warm-up: primitive creation, first-touch of buffers
  let b = { s: Infinity, cpu: NaN };
  for (let i = 0; i < reps; i++) {
    const t = performance.now(), c = process.cpuUsage();
    f();
    const s = (performance.now() - t) / 1000, u = process.cpuUsage(c);
    if (s < b.s) b = { s, cpu: (u.user + u.system) / 1e6 };
  }
  return b;
}

function best(reps: number, f: () => void): number {
  return timed(reps, f).s;
}

/** GFLOP/s of an n³ matmul (best wall time), and GFLOP per CPU-second of that run. */
function matmulGflops(dtype: "f32" | "bf16", n: number, reps: number): { wall: number; perCpuSecond: number } {
  const e = getEngine();
  const a = Float32Array.from({ length: n * n }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
  const c = new Float32Array(n * n);
  const t = timed(reps, () => e.matmul(c, a, a, n, n, n, false, true, false, dtype));
  return { wall: (2 * n ** 3) / t.s / 1e9, perCpuSecond: (2 * n ** 3) / t.cpu / 1e9 };
}

function qwenChild(seqLen: number, timeoutS: number, notes: string[]): { best_s: number; peak_rss_mb: number; dtype: string } | null {
  const file = fileURLToPath(new URL("./qwen-child.ts", import.meta.url));
  const r = spawnSync(process.execPath, ["--import", "tsx", file, String(seqLen), "2"], { encoding: "utf8", timeout: timeoutS * 1000, maxBuffer: 1 << 20 });
  if (r.error || r.status !== 0) {
    notes.push(`qwen2.5-0.5b run failed: ${r.error?.message ?? r.stderr.trim().split("\n").pop()}`);
    return null;
  }
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as { best_s: number; peak_rss_mb: number; dtype: string };
}

const ratio = (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number" && b > 0 ? Number((a / b).toFixed(3)) : null);
const num = (x: unknown) => (typeof x === "number" ? x : null);

/** Entry point of `seed bench engine`. */
export async function run(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    json: { type: "boolean" }, reps: { type: "string" }, "no-peer": { type: "boolean" }, "no-qwen": { type: "boolean" },
    "peer-timeout": { type: "string" }, batch: { type: "string" }, "seq-len": { type: "string" },
  }, false);
  const reps = numberOption(values.reps, "reps", 3);
  const B = numberOption(values.batch, "batch", 16), T = numberOption(values["seq-len"], "seq-len", 512);
  const peerTimeout = numberOption(values["peer-timeout"], "peer-timeout", 1800);
  const log = (s: string) => { if (!values.json) console.log(s); };
  const notes: string[] = [];
  const engine = getEngine(), cpu = cpuInfo();
  const out: Out = {
    engine: engine.kind, onednn: engine.info.onednn, threads: engine.info.threads, cpu: cpu.model,
    avx512: cpu.avx512, amx: cpu.amx, load_average_start: loadavg()[0]!, batch: B, seq_len: T, reps,
  };
  log(`engine ${engine.kind} (oneDNN ${engine.info.onednn}), ${engine.info.threads} threads, ${cpu.model}; load ${loadavg()[0]!.toFixed(1)}`);

  const peak = fp32PeakGflops(cpu, Math.min(cpu.cores, engine.info.threads));
  out["fp32_peak_gflops"] = Number(peak.toFixed(1));
  const mm = matmulGflops("f32", 2048, 5);
  out["matmul_gflops"] = Number(mm.wall.toFixed(1));
  out["matmul_pct_of_peak"] = Number(((100 * mm.wall) / peak).toFixed(1));
  // Per CPU-second: the kernel's efficiency on the cores it actually got (contention-robust).
  const corePeak = fp32PeakGflops(cpu, 1);
  out["matmul_gflops_per_cpu_s"] = Number(mm.perCpuSecond.toFixed(1));
  out["matmul_pct_of_core_peak"] = Number(((100 * mm.perCpuSecond) / corePeak).toFixed(1));
  out["bf16_matmul_gflops"] = engine.info.bf16Fast ? Number(matmulGflops("bf16", 2048, 5).wall.toFixed(1)) : null;
  log(`matmul f32 2048^3: ${out["matmul_gflops"]} GFLOP/s = ${out["matmul_pct_of_peak"]}% of the ${out["fp32_peak_gflops"]} GFLOP/s fp32 peak; ` +
    `${out["matmul_gflops_per_cpu_s"]} GFLOP per CPU-second = ${out["matmul_pct_of_core_peak"]}% of one core's ${corePeak.toFixed(1)}`);

  const cfg = presetConfig("bench");
  const rng = Rng.from(1);
  const rows = Array.from({ length: B }, () => ({ tokens: Array.from({ length: T + 1 }, () => rng.int(cfg.vocabSize)), start: 1 }));
  const w = rows.map(() => new Float32Array(T).fill(-1 / (B * T)));
  const models = new Map<string, Transformer>();
  const trainStep = (dtype: "f32" | "bf16") => {
    const c = presetConfig("bench", { dtype });
    const model = models.get(dtype) ?? new Transformer(c, ParamStore.init(c, Rng.from(2)));
    models.set(dtype, model);
    if (model.computeDtype !== dtype) return null;
    const opt = new AdamW(model.params, model.engine);
    return timed(reps, () => {
      model.zeroGrad();
      model.backward(rows, w);
      opt.update(model.grads, { lr: 1e-4 });
    });
  };
  // Ours, then the peer's fp32 workloads, then ours again; each side keeps its best. On a shared
  // machine the load drifts over minutes, and this keeps either side from getting only the bad half.
  const ours = () => {
    const f32 = trainStep("f32")!;
    const score = best(reps, () => models.get("f32")!.logprobs(rows));
    const s1 = decodeTokS(models.get("f32")!, 1, 16, 64, 1), s32 = decodeTokS(models.get("f32")!, 32, 16, 64, 1);
    return { f32, score: (B * T) / score, s1, s32 };
  };
  const keepBest = (r: ReturnType<typeof ours>) => {
    if (out["train_step_s"] === undefined || r.f32.s < (out["train_step_s"] as number)) {
      out["train_step_s"] = r.f32.s;
      out["train_step_cpu_s"] = r.f32.cpu;
    }
    out["score_tok_s"] = Math.max((out["score_tok_s"] as number | undefined) ?? 0, Math.round(r.score));
    out["sample_batch1_tok_s"] = Math.max((out["sample_batch1_tok_s"] as number | undefined) ?? 0, Math.round(r.s1));
    out["sample_batch32_tok_s"] = Math.max((out["sample_batch32_tok_s"] as number | undefined) ?? 0, Math.round(r.s32));
  };
  keepBest(ours());
  log(`train step ${B}x${T} f32: ${(out["train_step_s"] as number).toFixed(3)} s (cpu ${(out["train_step_cpu_s"] as number).toFixed(2)} s); score ${out["score_tok_s"]} tok/s; ` +
    `greedy sampling ${out["sample_batch1_tok_s"]} tok/s (batch 1), ${out["sample_batch32_tok_s"]} tok/s (batch 32)`);

  const python = values["no-peer"] ? null : peerPython();
  if (python === null && !values["no-peer"]) notes.push("PyTorch not found (make bench installs torch 2.x into .venv; python3-torch is the fallback): peer columns are null");
  const base = { threads: engine.info.threads, config: cfg, batch: B, seqLen: T, reps, promptLen: 16, newTokens: 64, seed: 0 };
  const peer: Record<string, number | string> = python === null ? {} : runPeer(python, { ...base, measure: ["train_fp32", "score", "sample_b1", "sample_b32"] }, peerTimeout, notes);
  if (python !== null) {
    keepBest(ours());
    log(`again after the peer: train step ${(out["train_step_s"] as number).toFixed(3)} s best so far`);
  }
  const bf = trainStep("bf16");
  out["train_step_bf16_s"] = bf?.s ?? null;
  out["train_step_bf16_cpu_s"] = bf?.cpu ?? null;
  if (bf === null) notes.push("bf16 training step not measured: this CPU has no fast bf16 matmul kernel (AVX-512 BF16 / AMX); the model computes in f32 there");
  out["peak_rss_mb"] = Math.round(process.resourceUsage().maxRSS / 1024);
  if (python !== null) {
    // Without bf16 hardware, autocast runs emulated kernels (minutes per step): one timed step will do.
    const fastBf16 = cpu.amx || cpu.avx512bf16;
    if (!fastBf16) notes.push("torch bf16 autocast timed once (after a warm-up): this CPU has no bf16 hardware, each step takes minutes");
    Object.assign(peer, runPeer(python, { ...base, reps: fastBf16 ? reps : 1, measure: ["train_bf16"] }, peerTimeout, notes));
  }
  for (const [k, v] of Object.entries(peer)) if (k.endsWith("_error")) notes.push(`torch ${k}: ${v}`);
  out["torch_version"] = (peer["torch"] as string | undefined) ?? null;
  out["torch_fp32_train_step_s"] = num(peer["train_fp32_s"]);
  out["torch_fp32_train_step_cpu_s"] = num(peer["train_fp32_cpu_s"]);
  out["torch_bf16_train_step_s"] = num(peer["train_bf16_s"]);
  out["torch_bf16_train_step_cpu_s"] = num(peer["train_bf16_cpu_s"]);
  out["torch_score_tok_s"] = num(peer["score_tok_s"]);
  out["torch_sample_batch1_tok_s"] = num(peer["sample_b1_tok_s"]);
  out["torch_sample_batch32_tok_s"] = num(peer["sample_b32_tok_s"]);
  out["speedup_train_vs_torch_fp32"] = ratio(out["torch_fp32_train_step_s"], out["train_step_s"]);
  // CPU-time ratio: what each side burns per step, robust to how much of the machine it got.
  out["cpu_efficiency_train_vs_torch_fp32"] = ratio(out["torch_fp32_train_step_cpu_s"], out["train_step_cpu_s"]);
  out["speedup_train_vs_torch_bf16"] = ratio(out["torch_bf16_train_step_s"], out["train_step_bf16_s"] ?? out["train_step_s"]);
  out["speedup_score_vs_torch"] = ratio(out["score_tok_s"], out["torch_score_tok_s"]);
  out["speedup_sample_batch1_vs_torch"] = ratio(out["sample_batch1_tok_s"], out["torch_sample_batch1_tok_s"]);
  out["speedup_sample_batch32_vs_torch"] = ratio(out["sample_batch32_tok_s"], out["torch_sample_batch32_tok_s"]);
  if (python !== null) {
    log(`torch ${out["torch_version"]}: train fp32 ${out["torch_fp32_train_step_s"]} s (x${out["speedup_train_vs_torch_fp32"]}; cpu time x${out["cpu_efficiency_train_vs_torch_fp32"]}), bf16 autocast ${out["torch_bf16_train_step_s"]} s (x${out["speedup_train_vs_torch_bf16"]}), ` +
      `score x${out["speedup_score_vs_torch"]}, sample b1 x${out["speedup_sample_batch1_vs_torch"]}, b32 x${out["speedup_sample_batch32_vs_torch"]}`);
  }

  if (!values["no-qwen"]) {
    const q = qwenChild(T, 1800, notes);
    out["qwen05b_fwd_bwd_s"] = q?.best_s ?? null;
    out["qwen05b_peak_rss_mb"] = q === null ? null : Math.round(q.peak_rss_mb);
    out["qwen05b_dtype"] = q?.dtype ?? null;
    if (q !== null && q.dtype !== "bf16") notes.push("qwen2.5-0.5b ran in f32: no fast bf16 kernel on this CPU");
    log(`qwen2.5-0.5b shape, ${T} tokens, forward+backward: ${q?.best_s.toFixed(2)} s (${q?.dtype}), peak RSS ${out["qwen05b_peak_rss_mb"]} MB`);
  }
  out["load_average_end"] = loadavg()[0]!;
  out["notes"] = notes;
  for (const n of notes) log(`note: ${n}`);
  if (values.json) printJson(out);
  return 0;
}
