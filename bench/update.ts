/**
 * `seed bench update [--json]`: the time of one real policy update at the demo config (issue 12).
 *
 * SEED and GRPO train from the same fixed, cached base (Stage 0 + Stage 1 of the `seed` preset,
 * built once under ~/.cache/seed-rl or --cache-dir; exactly the base `seed demo` uses) for
 * `--updates` updates each in a temporary run directory, the first `--warmup` of them discarded
 * (JIT, oneDNN primitive creation, first-touch of buffers). Reported per method: the median
 * wall time of an update and the median seconds of each of its stages (the trainer's own
 * `StageTimer`), and the arithmetic it ran (`flops`: the engine's count of matmul, attention and
 * LM-head operations, 2 per multiply-add) against the f32 GEMM rate measured in the same run,
 * so `floor_s` = flops / rate is what the update would take if all of it ran at GEMM speed.
 * `--dtype bf16` runs the same updates with the base marked bfloat16 (scoring and training
 * matmuls in bf16 where the CPU has a fast bf16 kernel).
 *
 * Also: batched greedy KV-cache decoding of the base model at batch 32 (prefill of a
 * `--prompt`-token prompt, then `--new` tokens per row), ours and a PyTorch peer of the same
 * architecture (bench/peers/torch_peer.py, torch 2.x from .venv when there is one) in the same
 * run; the CPU's flags, threads, and the load average before and after, since the cores are
 * usually shared. Each update draws its own tasks (seeded), so medians are over different but
 * reproducible batches; `sampled_tokens_per_update` (tokens the rollout sampled) says how much
 * work they held.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { numberOption, parseOptions, printJson } from "../src/cli/args.ts";
import { resolveConfig } from "../src/config/presets.ts";
import { UsageError } from "../src/core/errors.ts";
import { cpuInfo } from "../src/engine/cpu.ts";
import { getEngine } from "../src/engine/engine.ts";
import { loadCheckpoint } from "../src/model/checkpoint.ts";
import { Transformer } from "../src/model/transformer.ts";
import { ensureBase } from "../src/train/pretrain/base.ts";
import { train } from "../src/train/trainer.ts";
import { StageTimer } from "../src/train/timer.ts";
import { demoOverrides } from "./demo-schedule.ts";
import { decodeTokS } from "./decode.ts";
import { peerPython, runPeer } from "./peer.ts";

type MethodResult = {
  update_s: number;
  /** Process CPU seconds of an update (both threads): what it costs whatever share of the machine it got. */
  update_cpu_s: number;
  stages: Record<string, number>;
  flops: number;
  /** Engine flops per stage (median); `teacher_live` runs inside `update` and counts in both. */
  stage_flops: Record<string, number>;
  floor_s: number;
  sampled_tokens_per_update: number;
  per_update_s: number[];
};

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const r3 = (x: number) => Number(x.toFixed(3));

/** Best-of-`reps` GFLOP/s of an f32 n x n x n matmul on the engine's threads. */
function gemmGflops(n: number, reps: number, dtype: "f32" | "bf16"): number {
  const e = getEngine();
  const a = Float32Array.from({ length: n * n }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
  const c = new Float32Array(n * n);
  e.matmul(c, a, a, n, n, n, false, true, false, dtype);
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    e.matmul(c, a, a, n, n, n, false, true, false, dtype);
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  return (2 * n ** 3) / best / 1e9;
}

/**
 * Engine flops per stage name, summed since the last drain: the trainer's StageTimer is wrapped
 * here (the bench's view only; nested stages such as `teacher_live` inside `update` count in both).
 */
const stageFlops: Record<string, number> = {};
const timeStage = StageTimer.prototype.time;
StageTimer.prototype.time = async function <T>(this: StageTimer, name: string, fn: () => Promise<T> | T): Promise<T> {
  const f0 = getEngine().flops;
  try {
    return await timeStage.call(this, name, fn) as T;
  } finally {
    stageFlops[name] = (stageFlops[name] ?? 0) + getEngine().flops - f0;
  }
};

/** Runs `updates` updates of a preset from the cached base; per-update seconds, stages and flops. */
async function measureMethod(preset: string, updates: number, warmup: number, cacheDir: string | undefined, gflops: number, init: string | null): Promise<MethodResult> {
  const config = resolveConfig({ preset, overrides: [...demoOverrides(), `run.updates=${updates}`, "run.samplesEvery=0", ...(init === null ? [] : [`policy.init=${init}`])] });
  await ensureBase(config, { quiet: true, ...(cacheDir !== undefined ? { cacheDir } : {}) });
  const runDir = mkdtempSync(join(tmpdir(), `seed-bench-${preset}-`));
  const engine = getEngine();
  const lines: { seconds: Record<string, number>; flops: number; tokens: number; cpu: number; stageFlops: Record<string, number> }[] = [];
  for (const k of Object.keys(stageFlops)) delete stageFlops[k];
  let flops0 = engine.flops, cpu0 = process.cpuUsage();
  try {
    await train(config, {
      runDir, quiet: true, ...(cacheDir !== undefined ? { cacheDir } : {}),
      onUpdate: (line) => {
        const m = (k: string) => (typeof line[k] === "number" ? (line[k] as number) : 0);
        const tokens = Math.round(m("episode/count") * m("episode/turns_mean") * m("episode/response_tokens_mean"));
        const cpu = process.cpuUsage(cpu0);
        lines.push({ seconds: line["seconds"] as Record<string, number>, flops: engine.flops - flops0, tokens, cpu: (cpu.user + cpu.system) / 1e6, stageFlops: { ...stageFlops } });
        for (const k of Object.keys(stageFlops)) delete stageFlops[k];
        flops0 = engine.flops;
        cpu0 = process.cpuUsage();
      },
    });
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
  const kept = lines.slice(Math.min(warmup, lines.length - 1));
  const names = [...new Set(kept.flatMap((l) => Object.keys(l.seconds)))].filter((n) => n !== "total");
  const stages: Record<string, number> = {};
  for (const n of names) stages[n] = r3(median(kept.map((l) => l.seconds[n] ?? 0)));
  const flops = median(kept.map((l) => l.flops));
  const flopsByStage: Record<string, number> = {};
  for (const n of names) flopsByStage[n] = median(kept.map((l) => l.stageFlops[n] ?? 0));
  return {
    update_s: r3(median(kept.map((l) => l.seconds["total"]!))), update_cpu_s: r3(median(kept.map((l) => l.cpu))), stages, flops, stage_flops: flopsByStage, floor_s: r3(flops / (gflops * 1e9)),
    sampled_tokens_per_update: median(kept.map((l) => l.tokens)), per_update_s: kept.map((l) => r3(l.seconds["total"]!)),
  };
}

/** Entry point of `seed bench update`. */
export async function run(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    json: { type: "boolean" }, updates: { type: "string" }, warmup: { type: "string" }, "cache-dir": { type: "string" },
    "no-peer": { type: "boolean" }, "no-grpo": { type: "boolean" }, dtype: { type: "string" }, prompt: { type: "string" }, new: { type: "string" }, batch: { type: "string" },
  }, false);
  const warmup = numberOption(values.warmup, "warmup", 1);
  const updates = numberOption(values.updates, "updates", warmup + 3);
  const batch = numberOption(values.batch, "batch", 32), promptLen = numberOption(values.prompt, "prompt", 512), newTokens = numberOption(values.new, "new", 128);
  const log = (s: string) => { if (!values.json) console.log(s); };
  const engine = getEngine(), cpu = cpuInfo();
  const notes: string[] = [];
  const out: Record<string, unknown> = {
    engine: engine.kind, onednn: engine.info.onednn, threads: engine.info.threads, cpu: cpu.model,
    cpu_flags: { avx2: cpu.avx2, avx512: cpu.avx512, avx512_bf16: cpu.avx512bf16, amx: cpu.amx },
    bf16_fast: engine.info.bf16Fast, load_average_start: loadavg().map(r3), updates, warmup, schedule: demoOverrides(),
  };
  log(`engine ${engine.kind} (oneDNN ${engine.info.onednn}), ${engine.info.threads} threads, ${cpu.model}; load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);

  const gflops = gemmGflops(1024, 5, "f32");
  out["gemm_gflops"] = Number(gflops.toFixed(1));
  out["gemm_bf16_gflops"] = engine.info.bf16Fast ? Number(gemmGflops(1024, 5, "bf16").toFixed(1)) : null;
  log(`f32 GEMM 1024^3: ${gflops.toFixed(1)} GFLOP/s${out["gemm_bf16_gflops"] !== null ? `; bf16 ${out["gemm_bf16_gflops"]} GFLOP/s` : ""}`);

  const cacheDir = values["cache-dir"];
  const dtype = values.dtype ?? "f32";
  if (dtype !== "f32" && dtype !== "bf16") throw new UsageError(`--dtype must be f32 or bf16, got '${dtype}'`);
  out["dtype"] = dtype;
  // bf16: the same base with torch_dtype bfloat16 in a temporary copy, given as policy.init (every
  // policy of the run, reference and analyzer included, then computes its scoring and training
  // matmuls in bf16 where the CPU has fast bf16; decoding stays f32).
  let init: string | null = null;
  if (dtype === "bf16") {
    const base = await ensureBase(resolveConfig({ preset: "seed", overrides: demoOverrides() }), { quiet: true, ...(cacheDir !== undefined ? { cacheDir } : {}) });
    init = mkdtempSync(join(tmpdir(), "seed-bench-bf16-"));
    cpSync(base, init, { recursive: true });
    const cfgPath = join(init, "config.json");
    writeFileSync(cfgPath, JSON.stringify({ ...JSON.parse(readFileSync(cfgPath, "utf8")), torch_dtype: "bfloat16" }, null, 2));
    if (!engine.info.bf16Fast) notes.push("--dtype bf16 on a CPU without fast bf16: the model computes in f32");
  }
  const seed = await measureMethod("seed", updates, warmup, cacheDir, gflops, init);
  log(`SEED: ${seed.update_s} s/update (cpu ${seed.update_cpu_s} s; median of ${seed.per_update_s.length}: ${seed.per_update_s.join(", ")}), stages ${JSON.stringify(seed.stages)}, ` +
    `${(seed.flops / 1e9).toFixed(2)} GFLOP, floor ${seed.floor_s} s`);
  const grpo = values["no-grpo"] ? null : await measureMethod("grpo", updates, warmup, cacheDir, gflops, init);
  if (init !== null) rmSync(init, { recursive: true, force: true });
  if (grpo !== null) log(`GRPO: ${grpo.update_s} s/update (cpu ${grpo.update_cpu_s} s; ${grpo.per_update_s.join(", ")}), stages ${JSON.stringify(grpo.stages)}, ${(grpo.flops / 1e9).toFixed(2)} GFLOP, floor ${grpo.floor_s} s`);
  out["peak_rss_mb"] = Math.round(process.resourceUsage().maxRSS / 1024);
  Object.assign(out, {
    seed_update_s: seed.update_s, grpo_update_s: grpo?.update_s ?? null,
    seed_update_cpu_s: seed.update_cpu_s, grpo_update_cpu_s: grpo?.update_cpu_s ?? null,
    stages: { seed: seed.stages, grpo: grpo?.stages ?? null },
    flops: { seed: seed.flops, grpo: grpo?.flops ?? null },
    stage_flops: { seed: seed.stage_flops, grpo: grpo?.stage_flops ?? null },
    floor_s: { seed: seed.floor_s, grpo: grpo?.floor_s ?? null },
    x_floor: { seed: r3(seed.update_s / seed.floor_s), grpo: grpo === null ? null : r3(grpo.update_s / grpo.floor_s) },
    sampled_tokens_per_update: { seed: seed.sampled_tokens_per_update, grpo: grpo?.sampled_tokens_per_update ?? null },
    per_update_s: { seed: seed.per_update_s, grpo: grpo?.per_update_s ?? null },
  });

  // Decoding: the base model itself (the demo config's architecture and weights).
  const base = await ensureBase(resolveConfig({ preset: "seed", overrides: demoOverrides() }), { quiet: true, ...(cacheDir !== undefined ? { cacheDir } : {}) });
  const ckpt = loadCheckpoint(base);
  const model = new Transformer(ckpt.config, ckpt.params);
  out["decode_tok_s"] = Math.round(decodeTokS(model, batch, promptLen, newTokens, 3));
  out["decode_shape"] = { batch, prompt: promptLen, new_tokens: newTokens };
  log(`decode batch ${batch}, ${promptLen}-token prompt + ${newTokens} greedy tokens: ${out["decode_tok_s"]} tok/s`);
  const python = values["no-peer"] ? null : peerPython();
  if (python === null && !values["no-peer"]) notes.push("PyTorch not found: torch_decode_tok_s is null");
  const peer = python === null ? {} : runPeer(python, {
    threads: engine.info.threads, config: ckpt.config, batch: 1, seqLen: 1, reps: 1, promptLen, newTokens, seed: 0, measure: [`sample_b${batch}`],
  }, 900, notes);
  out["torch_version"] = peer["torch"] ?? null;
  out["torch_python"] = python;
  out["torch_decode_tok_s"] = typeof peer[`sample_b${batch}_tok_s`] === "number" ? Math.round(peer[`sample_b${batch}_tok_s`] as number) : null;
  out["decode_vs_torch"] = typeof out["torch_decode_tok_s"] === "number" ? r3((out["decode_tok_s"] as number) / (out["torch_decode_tok_s"] as number)) : null;
  if (python !== null) log(`torch ${out["torch_version"]} (${python}): ${out["torch_decode_tok_s"]} tok/s (ours x${out["decode_vs_torch"]})`);
  out["load_average_end"] = loadavg().map(r3);
  out["notes"] = notes;
  for (const n of notes) log(`note: ${n}`);
  log(`load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  if (values.json) printJson(out);
  return 0;
}
