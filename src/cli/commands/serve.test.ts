// `seed serve` as a separate process, exercised through RemotePolicy and `seed eval`: the
// client's log-probs must agree with the embedded policy's own `score` on the same checkpoint.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { presetConfig } from "../../model/config.ts";
import { trainBpe } from "../../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../../policy/embedded.ts";
import { RemotePolicy } from "../../policy/remote.ts";
import { ChatFormat } from "../../policy/chat-format.ts";
import { readTrajectories } from "../../agent/jsonl.ts";

const root = resolve(import.meta.dirname, "../../..");
const seedBin = join(root, "bin/seed.js");

async function startServer(dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; url: string; model: string; stderr: () => string }> {
  const child = spawn(process.execPath, [seedBin, "serve", "--checkpoint", dir, "--port", "0", "--quiet", ...extra], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const line = await new Promise<string>((ok, fail) => {
    createInterface({ input: child.stdout! }).once("line", ok);
    child.once("exit", (code) => fail(new Error(`seed serve exited with ${code}: ${stderr}`)));
  });
  const { url, model } = JSON.parse(line) as { url: string; model: string };
  return { child, url, model, stderr: () => stderr };
}

async function stopServer(child: ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}

test("seed serve in its own process: RemotePolicy log-probs agree with the embedded policy; seed eval runs against it", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-serve-"));
  const tokenizer = trainBpe(["<think>go</think><action>up</action> You are a Sokoban player. The grid:\n # \t _ \t P \t X \t O \t"], { vocabSize: 300 });
  const local = EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 2048 }), tokenizer, seed: 11 });
  await local.save(dir);
  const { child, url, model } = await startServer(dir);
  try {
    const remote = await RemotePolicy.connect({ baseUrl: url, model });
    assert.equal(remote.maxContext, 2048);
    const chat = new ChatFormat(remote.tokenizer);
    const prompt = chat.prompt("Your goal is to push every box onto a target.");
    assert.deepEqual(prompt, new ChatFormat(tokenizer).prompt("Your goal is to push every box onto a target."), "the published tokenizer is the checkpoint's");

    // Scoring through echo prompt log-probs == local score.
    const seq = { tokens: [...prompt, ...tokenizer.encode("<think>go</think><action>up</action>")], start: prompt.length };
    const [r] = await remote.score([seq]);
    const [l] = await local.score([seq]);
    assert.equal(r!.length, l!.length);
    const worst = Math.max(...Array.from(r!, (v, i) => Math.abs(v - l![i]!)));
    assert.ok(worst < 1e-4, `score disagreement ${worst}`);

    // Sampling at temperature 1 (no top-k/top-p): the reported log-probs are of the model's own
    // distribution, so they equal the local score of the returned ids.
    const samples = await remote.sample([
      { prompt, maxTokens: 12, seed: 5, temperature: 1, stopTokens: chat.stopTokens },
      { prompt, maxTokens: 12, seed: 6, temperature: 0, stopTokens: chat.stopTokens },
    ]);
    for (const s of samples) {
      assert.ok(s.tokens.length > 0);
      const [own] = await local.score([{ tokens: [...prompt, ...s.tokens], start: prompt.length }]);
      if (s === samples[0]) s.logprobs.forEach((lp, i) => assert.ok(Math.abs(lp - own![i]!) < 1e-4, `sampled log-prob ${i}: ${lp} vs ${own![i]}`));
    }
    const [greedy] = await local.sample([{ prompt, maxTokens: 12, seed: 99, temperature: 0, stopTokens: chat.stopTokens }]);
    assert.deepEqual(samples[1]!.tokens, greedy!.tokens, "greedy decoding is the same in both processes");

    // The command the issue checks.
    const ev = spawnSync(process.execPath, [seedBin, "eval", "--policy", `openai:${url}`, "--model", model, "--env", "sokoban", "--episodes", "2", "--max-action-tokens", "8", "--json"], { cwd: root, encoding: "utf8", timeout: 90_000 });
    assert.equal(ev.status, 0, ev.stderr);
    const summary = JSON.parse(ev.stdout.trim().split("\n").pop()!) as Record<string, number>;
    assert.equal(summary["episodes"], 2);
    assert.ok(summary["success_rate"]! >= 0 && summary["success_rate"]! <= 1);
    assert.ok(summary["valid_action_rate"]! >= 0 && summary["valid_action_rate"]! <= 1);
    assert.ok(summary["mean_length"]! > 0);

    // The same checkpoint evaluated in-process, full history, with a samples dump.
    const dump = join(dir, "samples.jsonl");
    const inProcess = spawnSync(process.execPath, [seedBin, "eval", "--checkpoint", dir, "--env", "ezpoints", "--episodes", "2", "--history", "full", "--max-action-tokens", "8", "--samples", dump, "--json"], { cwd: root, encoding: "utf8", timeout: 90_000 });
    assert.equal(inProcess.status, 0, inProcess.stderr);
    const own = JSON.parse(inProcess.stdout.trim()) as Record<string, number>;
    assert.equal(own["episodes"], 2);
    const dumped = readTrajectories(dump);
    assert.equal(dumped.length, 2);
    assert.ok(dumped.every((t) => t.historyMode === "full" && t.envId === "ezpoints"));
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test("seed serve and seed eval report user mistakes in one line", () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [seedBin, ...args], { cwd: root, encoding: "utf8" });
  const a = run("serve", "--checkpoint", "/nonexistent/ckpt");
  assert.equal(a.status, 2);
  assert.match(a.stderr, /^seed serve: no checkpoint at \/nonexistent\/ckpt\n$/);
  // --checkpoint takes what seed eval takes; a folder that is none of them is named as such.
  const d = run("serve", "--checkpoint", "docs");
  assert.equal(d.status, 2);
  assert.match(d.stderr, /^seed serve: docs is neither a run directory nor a checkpoint \(no config\.json\)\n$/);
  const b = run("eval", "--env", "sokoban");
  assert.equal(b.status, 2);
  assert.match(b.stderr, /exactly one of --policy/);
  const c = run("eval", "--env", "sokoban", "--checkpoint", "/nonexistent/ckpt");
  assert.equal(c.status, 2);
  assert.equal(c.stderr.trim().split("\n").length, 1);
});

test("seed serve --api-key (or SEED_API_KEY): requests need the Bearer key, seed eval --api-key sends it; no key beyond loopback warns", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-serve-key-"));
  const tokenizer = trainBpe(["<think>go</think><action>up</action> You are a Sokoban player. The grid:\n # \t _ \t P \t X \t O \t"], { vocabSize: 300 });
  await EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 1024 }), tokenizer, seed: 3 }).save(dir);
  const keyed = await startServer(dir, [], { ...process.env, SEED_API_KEY: "k9-secret" });
  try {
    assert.equal((await fetch(`${keyed.url}/models`)).status, 401);
    assert.equal((await fetch(`${keyed.url}/models`, { headers: { authorization: "Bearer k9-secret" } })).status, 200);
    const evalArgs = [seedBin, "eval", "--policy", `openai:${keyed.url}`, "--model", keyed.model, "--env", "sokoban", "--episodes", "1", "--max-action-tokens", "4", "--json"];
    const { SEED_API_KEY: _drop, ...bare } = process.env;
    const refused = spawnSync(process.execPath, evalArgs, { cwd: root, encoding: "utf8", env: bare, timeout: 60_000 });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /401/);
    const ev = spawnSync(process.execPath, [...evalArgs, "--api-key", "k9-secret"], { cwd: root, encoding: "utf8", env: bare, timeout: 60_000 });
    assert.equal(ev.status, 0, ev.stderr);
    assert.equal((JSON.parse(ev.stdout.trim().split("\n").pop()!) as Record<string, number>)["episodes"], 1);
    assert.doesNotMatch(keyed.stderr(), /warning/);
  } finally {
    await stopServer(keyed.child);
  }
  const { SEED_API_KEY: _k, ...noKey } = process.env;
  const open = await startServer(dir, ["--host", "0.0.0.0"], noKey);
  try {
    // stderr may arrive after the stdout line that said the server is up.
    for (let i = 0; i < 40 && !/warning/.test(open.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(open.stderr(), /^warning: listening on 0\.0\.0\.0 without an API key/m);
  } finally {
    await stopServer(open.child);
    rmSync(dir, { recursive: true, force: true });
  }
});
