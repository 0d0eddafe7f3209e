// Exact resume: 4 updates in one go equal 2 updates + a restart + 2 more, bit for bit in the
// weights and equal in every metric but wall-clock times; and a `seed train` child process
// killed with SIGKILL mid-run, restarted with the same command, ends where an uninterrupted run
// does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { train } from "../src/train/trainer.ts";
import { metricsWithoutTimings } from "../src/run/run-dir.ts";
import { listCheckpoints } from "../src/run/checkpoint.ts";
import { TEST_CACHE, tempDir, tinyConfig, weightBytes } from "./train-helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// Library teacher (always valid skills), live teacher, two mini-batches: the weights change at
// every step, and the live teacher makes each step depend on the one before.
const ARGS = ["--skills.teacher=library", "--update.miniBatches=2", "--opd.coef=1"];

function lastPolicy(runDir: string): string {
  return join(listCheckpoints(runDir).at(-1)!.dir, "policy");
}

test("4 updates == 2 updates, restart, 2 more (weights bit for bit, metrics equal)", async () => {
  const full = tempDir("resume-full");
  await train(tinyConfig("seed", [...ARGS, "--run.updates=4"]), { runDir: full, cacheDir: TEST_CACHE, quiet: true });
  const split = tempDir("resume-split");
  await train(tinyConfig("seed", [...ARGS, "--run.updates=2"]), { runDir: split, cacheDir: TEST_CACHE, quiet: true });
  const afterTwo = weightBytes(lastPolicy(split));
  const resumed = await train(tinyConfig("seed", [...ARGS, "--run.updates=4"]), { runDir: split, cacheDir: TEST_CACHE, quiet: true });
  assert.equal(resumed.resumedFrom, 2);
  assert.equal(resumed.ran, 2);
  assert.equal(Buffer.compare(weightBytes(lastPolicy(full)), weightBytes(lastPolicy(split))), 0);
  assert.notEqual(Buffer.compare(afterTwo, weightBytes(lastPolicy(split))), 0, "updates 3 and 4 moved the weights");
  assert.deepEqual(metricsWithoutTimings(split), metricsWithoutTimings(full));
  assert.equal(metricsWithoutTimings(full).length, 4);
});

test("an analyzer snapshot (refreshEvery 3) is saved through the policy seam and resumes bit for bit", async () => {
  // SEED's own analyzer, refreshed every 3 updates: after update 2 the checkpoint carries the
  // snapshot taken at update 1, which a resumed run must analyse with for update 3.
  const args = ["--update.miniBatches=2", "--skills.refreshEvery=3"];
  const full = tempDir("resume-k3-full");
  await train(tinyConfig("seed", [...args, "--run.updates=4"]), { runDir: full, cacheDir: TEST_CACHE, quiet: true });
  const split = tempDir("resume-k3-split");
  await train(tinyConfig("seed", [...args, "--run.updates=2"]), { runDir: split, cacheDir: TEST_CACHE, quiet: true });
  const second = listCheckpoints(split).at(-1)!;
  assert.equal(second.update, 2);
  assert.ok(existsSync(join(second.dir, "analyzer", "model.safetensors")), "the snapshot is in the checkpoint");
  assert.ok(!existsSync(join(second.dir, "analyzer", "optimizer.safetensors")), "weights only: a snapshot has no optimizer");
  await train(tinyConfig("seed", [...args, "--run.updates=4"]), { runDir: split, cacheDir: TEST_CACHE, quiet: true });
  assert.equal(Buffer.compare(weightBytes(lastPolicy(full)), weightBytes(lastPolicy(split))), 0);
  assert.deepEqual(metricsWithoutTimings(split), metricsWithoutTimings(full));
});

test("a seed train child killed with SIGKILL and restarted with the same command ends like an uninterrupted run", async () => {
  const overrides = ["--run.updates=4", "--rollout.groupSize=2", "--run.samplesPerUpdate=1", ...ARGS];
  const reference = tempDir("kill-reference");
  await train(tinyConfig("sdar", [...ARGS, "--run.updates=4"]), { runDir: reference, cacheDir: TEST_CACHE, quiet: true });

  const runDir = tempDir("kill-run");
  const argv = ["bin/seed.js", "train", "--preset", "sdar", "--quick", "--run-dir", runDir, "--cache-dir", TEST_CACHE, "--quiet", "--json", ...overrides];
  const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: "ignore" });
  const metrics = join(runDir, "metrics.jsonl");
  // Kill as soon as the second update's metrics line exists: mid-way through the run.
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      const lines = existsSync(metrics) ? readFileSync(metrics, "utf8").split("\n").filter((l) => l.trim() !== "").length : 0;
      if (lines >= 2) {
        clearInterval(timer);
        child.kill("SIGKILL");
      }
    }, 20);
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`the child ended on its own (code ${code}) before it could be killed`));
    });
  });
  const restarted = spawnSync(process.execPath, argv, { cwd: ROOT, encoding: "utf8" });
  assert.equal(restarted.status, 0, restarted.stderr);
  const summary = JSON.parse(restarted.stdout) as { resumed_from: number; ran: number };
  assert.ok(summary.resumed_from >= 1 && summary.resumed_from + summary.ran === 4, `resumed from a checkpoint: ${restarted.stdout}`);
  assert.equal(Buffer.compare(weightBytes(lastPolicy(reference)), weightBytes(lastPolicy(runDir))), 0, "final weights");
  assert.deepEqual(metricsWithoutTimings(runDir), metricsWithoutTimings(reference));
});
