/**
 * `seed bench remote [--json] [--updates N] [--quick]`: what the Tinker protocol costs per update.
 * The same SEED run (the embedded defaults, as `seed demo` trains them; `--quick`: the quick
 * overlay) is trained in process and through `seed serve --api tinker` in a child process on
 * loopback, from the same Stage-1 base; the per-update wall time of each is its median over the
 * updates, and the overhead is remote / in-process - 1. Also reported: the largest weight
 * difference between the two runs' final weights (the protocol path must not change the result).
 * Builds the base first when it is not cached (minutes at the demo size).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { resolveConfig } from "../src/config/presets.ts";
import { loadCheckpoint } from "../src/model/checkpoint.ts";
import { listCheckpoints } from "../src/run/checkpoint.ts";
import { readMetrics } from "../src/run/run-dir.ts";
import { ensureBase } from "../src/train/pretrain/base.ts";
import { train } from "../src/train/trainer.ts";
import { numberOption, parseOptions, printJson } from "../src/cli/args.ts";
import { command as trainCommand } from "../src/cli/commands/train.ts";
import { demoOverrides } from "./demo-schedule.ts";

const ROOT = resolve(import.meta.dirname, "..");

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function startServer(base: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, "bin/seed.js"), "serve", "--api", "tinker", "--checkpoint", base, "--port", "0", "--quiet"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((ok, fail) => {
    createInterface({ input: child.stdout! }).once("line", ok);
    child.once("exit", (code) => fail(new Error(`seed serve --api tinker exited with ${code}`)));
  });
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

/** Per-update wall times of a run, from its metrics lines (`seconds.total`). */
function updateSeconds(lines: readonly Record<string, unknown>[]): number[] {
  return lines.map((l) => (l["seconds"] as { total: number }).total);
}

/** Median seconds of each stage (the trainer's StageTimer names) over a run's updates. */
function stageMedians(lines: readonly Record<string, unknown>[]): Record<string, number> {
  const names = [...new Set(lines.flatMap((l) => Object.keys(l["seconds"] as object)))].filter((n) => n !== "total");
  return Object.fromEntries(names.map((n) => [n, Number(median(lines.map((l) => (l["seconds"] as Record<string, number>)[n] ?? 0)).toFixed(3))]));
}

/** Run the benchmark; returns the process exit code. */
export async function run(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions(argv, { json: { type: "boolean" }, updates: { type: "string" }, quick: { type: "boolean" }, "cache-dir": { type: "string" } }, false);
  const updates = numberOption(values.updates, "updates", 3);
  const quick = values.quick ?? false;
  // The demo's schedule (4 x 8 tasks, 20 steps, one mini-batch), as `seed demo` trains, unless --quick.
  const overrides = [...(quick ? [] : demoOverrides().map((o) => `--${o}`)), `--run.updates=${updates}`];
  const config = resolveConfig({ preset: "seed", quick, overrides });
  const cacheDir = values["cache-dir"];
  const base = await ensureBase(config, { quiet: true, ...(cacheDir !== undefined ? { cacheDir } : {}) });
  const dir = mkdtempSync(join(tmpdir(), "seed-bench-remote-"));
  const server = await startServer(base);
  try {
    const localLines: Record<string, unknown>[] = [];
    await train(config, { runDir: join(dir, "local"), quiet: true, onUpdate: (l) => localLines.push(l), ...(cacheDir !== undefined ? { cacheDir } : {}) });
    const remoteDir = join(dir, "remote");
    const argsCommon = ["--preset", "seed", ...(quick ? ["--quick"] : []), ...overrides, "--quiet", ...(cacheDir !== undefined ? ["--cache-dir", cacheDir] : [])];
    if ((await trainCommand.run([...argsCommon, "--run-dir", remoteDir, "--trainer", `tinker:${server.url}`])) !== 0) return 1;
    const remoteLines = readMetrics(remoteDir) as unknown as Record<string, unknown>[];
    const a = loadCheckpoint(join(listCheckpoints(join(dir, "local")).at(-1)!.dir, "policy")), b = loadCheckpoint(join(remoteDir, "final-weights"));
    let maxDiff = 0;
    for (const [name, t] of a.params.tensors()) {
      const u = b.params.get(name);
      for (let i = 0; i < t.length; i++) maxDiff = Math.max(maxDiff, Math.abs(t[i]! - u[i]!));
    }
    const local = median(updateSeconds(localLines)), remote = median(updateSeconds(remoteLines));
    const result = {
      config: quick ? "seed --quick" : "seed (demo defaults)", updates,
      in_process_s_per_update: Number(local.toFixed(3)), remote_s_per_update: Number(remote.toFixed(3)),
      overhead_pct: Number((100 * (remote / local - 1)).toFixed(1)), weights_max_abs_diff: maxDiff,
      per_update_s: { in_process: updateSeconds(localLines), remote: updateSeconds(remoteLines) },
      // Where the overhead lands: the same stages timed by the trainer on each path.
      stages: { in_process: stageMedians(localLines), remote: stageMedians(remoteLines) },
      load_average: loadavg().map((x) => Number(x.toFixed(2))),
    };
    if (values.json) printJson(result);
    else console.log(`bench remote (${result.config}, ${updates} updates): in process ${result.in_process_s_per_update} s/update, through the Tinker protocol ${result.remote_s_per_update} s/update: overhead ${result.overhead_pct}% (final weights differ by at most ${maxDiff.toExponential(2)})`);
    return 0;
  } finally {
    server.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
