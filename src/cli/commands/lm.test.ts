import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CheckpointError, UsageError } from "../../core/errors.ts";
import { command, lrAt } from "./lm.ts";

const root = mkdtempSync(join(tmpdir(), "seed-lm-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const bin = resolve(import.meta.dirname, "../../../bin/seed.js");

function seed(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
}

test("seed lm trains, saves a checkpoint, samples, and --load samples from it", () => {
  const text = join(root, "text.txt");
  writeFileSync(text, "go to desk 1. open drawer 2. take apple from fridge 1. you see a mug.\n".repeat(200));
  const out = join(root, "ckpt");
  const r = seed("lm", "--text", text, "--out", out, "--steps", "4", "--preset", "tiny", "--context", "16", "--batch", "2", "--vocab", "300", "--max-tokens", "8", "--json");
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.steps, 4);
  assert.ok(Number.isFinite(summary.train_loss) && Number.isFinite(summary.valid_loss));
  assert.ok(summary.sample.startsWith("go to desk 1."));
  assert.match(r.stderr, /lm \[#+\] 100% 4\/4 .*loss \d/);
  for (const f of ["config.json", "model.safetensors", "optimizer.safetensors", "tokenizer.json", "state.json"]) assert.ok(existsSync(join(out, f)), f);
  const again = seed("lm", "--load", out, "--prompt", "open", "--max-tokens", "5", "--temperature", "0");
  assert.equal(again.status, 0, again.stderr);
  assert.ok(again.stdout.startsWith("open"));
});

test("seed lm reports user mistakes as SeedErrors (printed in one line by the CLI)", async () => {
  await assert.rejects(command.run(["--text", join(root, "nope.txt"), "--out", join(root, "x")]), (e: unknown) => e instanceof UsageError && /cannot read --text .*nope\.txt/.test(e.message));
  await assert.rejects(command.run(["--load", join(root, "nowhere"), "--prompt", "x"]), (e: unknown) => e instanceof CheckpointError && /no such checkpoint directory/.test(e.message));
  await assert.rejects(command.run(["--steps", "x", "--text", "a", "--out", "b"]), UsageError);
  await assert.rejects(command.run(["--text", "a"]), /--text and --out are required/);
  await assert.rejects(command.run(["--load", "a"]), /--load needs --prompt/);
  // The dispatcher turns them into exit code 2 and one line on stderr, never a stack trace.
  const r = seed("lm", "--text", join(root, "nope.txt"), "--out", join(root, "x"));
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^seed lm: cannot read --text .*nope\.txt/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test("the learning rate warms up linearly, then decays by cosine to 10% of the peak", () => {
  assert.equal(lrAt(0, 100, 1), 0.2);
  assert.equal(lrAt(4, 100, 1), 1);
  assert.ok(Math.abs(lrAt(99, 100, 1) - 0.1) < 1e-3);
  assert.ok(lrAt(50, 100, 1) < lrAt(20, 100, 1));
});
