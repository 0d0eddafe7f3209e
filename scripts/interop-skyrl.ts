/**
 * Interoperability with SkyRL's real Tinker server (its JAX back end, on CPU): run by
 * `scripts/test-interop.sh` (`make test-interop`), which installs SkyRL into a virtual environment
 * and passes its python here. Steps:
 *   1. a tiny random Qwen3 checkpoint and its tokenizer, written by our own HF-format writer
 *      (`saveCheckpoint`; the tokenizer is the quick Stage-1 base's, so the quick SEED run's chat
 *      format works), no hub download;
 *   2. `python -m skyrl.tinker.api --backend jax` on 127.0.0.1 (SkyRL starts its engine with
 *      `uv run`; a shim in the venv runs it with the venv's python);
 *   3. checks: the server's log-probs equal ours on the same weights (max abs diff <= 1e-3); the
 *      loss of positively weighted tokens falls over five updates through `TinkerPolicy`;
 *      `seed train --preset seed --quick --trainer tinker:URL` killed with SIGKILL after its first
 *      checkpoint resumes to the end, and its saved checkpoint loads back with the same log-probs.
 * Prints one JSON summary line; exits non-zero on any failed check.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Rng } from "../src/core/rng.ts";
import { resolveConfig } from "../src/config/presets.ts";
import { saveCheckpoint } from "../src/model/checkpoint.ts";
import { presetConfig } from "../src/model/config.ts";
import { ParamStore } from "../src/model/params.ts";
import { loadTokenizer } from "../src/model/tokenizer/hf-json.ts";
import { EmbeddedPolicy } from "../src/policy/embedded.ts";
import { TinkerClient } from "../src/policy/tinker/client.ts";
import { writeDescriptor } from "../src/policy/tinker/descriptor.ts";
import { TinkerPolicy } from "../src/policy/tinker/tinker-policy.ts";
import { datumOf, float32 } from "../src/policy/tinker/wire.ts";
import { listCheckpoints } from "../src/run/checkpoint.ts";
import { ensureBase } from "../src/train/pretrain/base.ts";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const python = args[args.indexOf("--python") + 1]!;
const shimDir = args[args.indexOf("--shim-dir") + 1]!;
const keep = args.includes("--keep");
const t0 = Date.now();
const elapsed = () => Number(((Date.now() - t0) / 1000).toFixed(1));
const log = (s: string) => process.stderr.write(`[interop ${elapsed()}s] ${s}\n`);

function fail(message: string): never {
  log(`FAILED: ${message}`);
  process.exit(1);
}

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => ok(p));
    });
  });
}

async function startSkyrl(model: string, work: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env = { ...process.env, PATH: `${shimDir}:${process.env["PATH"]}`, SEED_INTEROP_PYTHON: python, JAX_PLATFORMS: "cpu", SKYRL_DATABASE_URL: `sqlite:///${join(work, "tinker.db")}` };
  // Through the uv shim (test-interop.sh), so the API server's parent command line reads
  // `uv run -- python -m skyrl.tinker.api ...`, which SkyRL parses to start its engine.
  const child = spawn(join(shimDir, "uv"), ["run", "--", python, "-m", "skyrl.tinker.api", "--host", "127.0.0.1", "--port", String(port), "--base-model", model, "--backend", "jax", "--checkpoints-base", join(work, "checkpoints")], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  // Both streams: uvicorn and SkyRL log some start-up failures on stdout.
  let stderr = "";
  const keep = (d: unknown) => (stderr = (stderr + String(d)).slice(-4000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) fail(`SkyRL exited with ${child.exitCode}:\n${stderr}`);
    try {
      const r = await fetch(`${url}/api/v1/healthz`);
      if (r.ok) return { child, url };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  fail(`SkyRL did not answer /api/v1/healthz within 5 minutes:\n${stderr}`);
}

function runSeed(argv: readonly string[], killAfterCheckpoint?: string): Promise<number | null> {
  const child = spawn(process.execPath, [join(ROOT, "bin/seed.js"), ...argv], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  return new Promise((ok) => {
    let timer: NodeJS.Timeout | undefined;
    if (killAfterCheckpoint !== undefined) {
      timer = setInterval(() => {
        if (listCheckpoints(killAfterCheckpoint).length > 0) {
          log("first checkpoint written: SIGKILL");
          child.kill("SIGKILL");
        }
      }, 200);
    }
    child.once("exit", (code) => {
      if (timer) clearInterval(timer);
      ok(code);
    });
  });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "seed-interop-"));
  const summary: Record<string, unknown> = {};
  let server: { child: ChildProcess; url: string } | null = null;
  try {
    // 1. The checkpoint: random Qwen3 weights (q/k norms, no biases), the quick base's tokenizer.
    const cacheDir = join(work, "cache");
    const quick = resolveConfig({ preset: "seed", quick: true });
    const base = await ensureBase(quick, { cacheDir, quiet: true });
    const tokenizer = loadTokenizer(join(base, "tokenizer.json"));
    const model = join(work, "qwen3-tiny");
    const cfg = presetConfig("tiny-qwen3", { vocabSize: tokenizer.vocabSize, dModel: 64, ffnSize: 128, headDim: 16, maxContext: 1024 });
    saveCheckpoint(model, { config: cfg, params: ParamStore.init(cfg, Rng.from(3), 0.05), tokenizer });
    log(`wrote ${model}: Qwen3ForCausalLM, vocab ${cfg.vocabSize}`);

    // 2. SkyRL's server.
    server = await startSkyrl(model, work);
    summary["skyrl_up_s"] = elapsed();
    log(`SkyRL up at ${server.url}`);

    // 3a. Log-probs on the same weights (LoRA B starts at zero: the adapter adds nothing yet).
    const ours = await EmbeddedPolicy.load(model);
    const client = await TinkerClient.connect({ baseUrl: server.url, timeoutMs: 900_000 });
    const modelId = await client.createModel(model, 4, 1);
    const rng = Rng.from(7);
    const seqs = [40, 64, 23].map((n) => Array.from({ length: n }, () => rng.int(tokenizer.vocabSize)));
    const out = await client.forward(modelId, seqs.map((s) => datumOf(s, { weights: float32(new Float32Array(s.length - 1)) })));
    const mine = await ours.score(seqs.map((s) => ({ tokens: s, start: 1 })));
    let worst = 0;
    out.loss_fn_outputs.forEach((o, i) => o["logprobs"]!.data.forEach((x, t) => (worst = Math.max(worst, Math.abs(x - mine[i]![t]!)))));
    summary["logprob_max_abs_diff"] = worst;
    log(`log-probs: max abs diff ${worst.toExponential(2)} over ${seqs.reduce((a, s) => a + s.length - 1, 0)} tokens`);
    if (!(worst <= 1e-3)) fail(`log-probs differ by ${worst} (> 1e-3)`);
    client.close();

    // 3b. The loss of positively weighted tokens falls (five NLL steps through TinkerPolicy).
    const desc = join(work, "desc");
    rmSync(desc, { recursive: true, force: true });
    (await import("node:fs")).mkdirSync(desc);
    writeFileSync(join(desc, "tokenizer.json"), readFileSync(join(base, "tokenizer.json")));
    writeDescriptor(desc, { format: 1, url: server.url, baseModel: model, loraRank: 4, maxContext: 1024, reduction: "sequence-mean", wire: "proto", seed: 1 });
    const policy = await TinkerPolicy.open(desc, { timeoutMs: 900_000 });
    const target = [{ tokens: tokenizer.encode("go to desk 1. open drawer 2. take apple 1 from desk 1."), start: 4 }];
    const n = target[0]!.tokens.length - 4;
    const nll = async () => -(await policy.score(target))[0]!.reduce((a, b) => a + b, 0) / n;
    const losses = [await nll()];
    for (let k = 0; k < 5; k++) {
      await policy.backward(target, [new Float32Array(n).fill(-1 / n)]);
      await policy.step({ lr: 1e-2, weightDecay: 0, maxGradNorm: 0 });
      losses.push(await nll());
    }
    summary["nll"] = losses.map((x) => Number(x.toFixed(4)));
    log(`NLL of the weighted tokens: ${losses.map((x) => x.toFixed(4)).join(" -> ")}`);
    if (!(losses.at(-1)! < losses[0]! - 0.05)) fail("the loss of positively weighted tokens did not fall");
    const saved = join(work, "saved");
    await policy.save(saved);
    const before = Array.from((await policy.score(target))[0]!);
    policy.close();
    const reopened = await TinkerPolicy.open(saved, { timeoutMs: 900_000 });
    const after = Array.from((await reopened.score(target))[0]!);
    reopened.close();
    const resumeDiff = Math.max(...before.map((x, i) => Math.abs(x - after[i]!)));
    summary["save_load_max_abs_diff"] = resumeDiff;
    log(`save_weights + load_weights into a new model: log-probs differ by ${resumeDiff.toExponential(2)}`);
    if (!(resumeDiff <= 1e-5)) fail(`the reloaded checkpoint scores differently (${resumeDiff})`);

    // 3c. A quick SEED run through the protocol, killed after its first checkpoint, resumed.
    const runDir = join(work, "run");
    const train = ["train", "--preset", "seed", "--quick", "--run.updates=2", "--run-dir", runDir, "--cache-dir", cacheDir, "--quiet", "--trainer", `tinker:${server.url}`,
      "--base-model", model, "--tokenizer", join(base, "tokenizer.json"), "--lora-rank", "4", "--max-context", "1024", "--reduction", "sequence-mean", "--request-timeout", "900"];
    const first = await runSeed(train, runDir);
    const kept = listCheckpoints(runDir);
    if (first === 0 && kept.at(-1)?.update === 2) log("the run finished before it could be killed; resuming anyway");
    else if (kept.length === 0) fail(`the first run wrote no checkpoint (exit ${first})`);
    summary["killed_after_update"] = kept.at(-1)?.update ?? null;
    const second = await runSeed(train);
    if (second !== 0) fail(`the resumed run exited with ${second}`);
    const done = listCheckpoints(runDir).at(-1);
    if (done?.update !== 2) fail(`the resumed run ended at update ${done?.update}`);
    if (!existsSync(join(done.dir, "policy", "tinker.json"))) fail("the last checkpoint is not a Tinker policy directory");
    const metrics = readFileSync(join(runDir, "metrics.jsonl"), "utf8").trim().split("\n");
    if (metrics.length !== 2) fail(`metrics.jsonl has ${metrics.length} lines, not 2`);
    summary["resumed_run_updates"] = done.update;
    summary["total_s"] = elapsed();
    process.stdout.write(JSON.stringify({ ok: true, ...summary }) + "\n");
  } finally {
    if (server !== null && server.child.pid !== undefined) {
      try {
        process.kill(-server.child.pid, "SIGTERM"); // the API server and the engine it started
      } catch {
        // already gone
      }
    }
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

await main();
