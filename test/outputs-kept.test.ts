// Issue 11 item 1: `seed stage0|stage1|lm --out X` never deletes a folder or file it did not
// write. A foreign folder or a file is refused in one line before any work, and kept byte for
// byte; a folder seed wrote is rebuilt in place. Both stages take --data alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = mkdtempSync(join(tmpdir(), "seed-outputs-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const bin = resolve(import.meta.dirname, "../bin/seed.js");
const seed = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: root });

function foreignFolder(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "a.txt"), "keep");
  return dir;
}

function assertRefused(r: ReturnType<typeof seed>, pattern: RegExp): void {
  assert.equal(r.status, 2, r.stderr);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
}

test("stage0 and stage1 refuse a non-empty foreign folder and a file, and keep them", () => {
  const d0 = foreignFolder("s0");
  assertRefused(seed("stage0", "--quick", "--quiet", "--out", d0), /^seed stage0: --out .*s0 is a non-empty folder that is not a Stage-0\/1 output written by seed \(it holds a\.txt\); seed never deletes it/);
  assert.deepEqual(readdirSync(d0), ["a.txt"]);
  assert.equal(readFileSync(join(d0, "a.txt"), "utf8"), "keep");
  const file = join(root, "out.txt");
  writeFileSync(file, "keep");
  assertRefused(seed("stage0", "--quick", "--quiet", "--out", file), /^seed stage0: --out .*out\.txt is a file, not a folder/);
  assert.equal(readFileSync(file, "utf8"), "keep");
  const d1 = foreignFolder("s1");
  assertRefused(seed("stage1", "--quick", "--quiet", "--out", d1, "--cache-dir", join(root, "cache")), /^seed stage1: --out .*s1 is a non-empty folder that is not/);
  assert.deepEqual(readdirSync(d1), ["a.txt"]);
  assert.ok(!existsSync(join(root, "cache")), "refused before building a base");
});

test("lm refuses a foreign folder and a Hugging Face model folder, and rebuilds its own checkpoint", () => {
  const text = join(root, "text.txt");
  writeFileSync(text, "go to desk 1. open drawer 2. take apple from fridge 1.\n".repeat(100));
  const args = ["--text", text, "--steps", "2", "--preset", "tiny", "--context", "16", "--batch", "2", "--vocab", "300", "--max-tokens", "4", "--json"];
  const d = foreignFolder("lm-foreign");
  assertRefused(seed("lm", ...args, "--out", d), /^seed lm: --out .*lm-foreign is a non-empty folder that is not a checkpoint written by seed/);
  assert.equal(readFileSync(join(d, "a.txt"), "utf8"), "keep");
  // A Hugging Face model folder has our file names but no state.json of ours.
  const hf = join(root, "hf");
  mkdirSync(hf);
  writeFileSync(join(hf, "config.json"), "{}");
  writeFileSync(join(hf, "model.safetensors"), "weights");
  assertRefused(seed("lm", ...args, "--out", hf), /^seed lm: --out .*hf is a non-empty folder that is not a checkpoint/);
  assert.equal(readFileSync(join(hf, "model.safetensors"), "utf8"), "weights");
  const own = join(root, "lm-own");
  for (let i = 0; i < 2; i++) {
    const r = seed("lm", ...args, "--out", own);
    assert.equal(r.status, 0, r.stderr);
  }
  assert.deepEqual(readdirSync(own).sort(), ["config.json", "model.safetensors", "optimizer.safetensors", "state.json", "tokenizer.json"]);
});

test("stage0 and stage1 both take --data: a missing folder is one line naming it, before any work", () => {
  for (const cmd of ["stage0", "stage1"]) {
    const out = join(root, `data-${cmd}`);
    assertRefused(seed(cmd, "--quick", "--quiet", "--data", join(root, "no-such-data"), "--out", out, ...(cmd === "stage1" ? ["--cache-dir", join(root, "cache-data")] : [])), new RegExp(`^seed ${cmd}: .*no-such-data: no such directory$`));
    assert.ok(!existsSync(out));
  }
});
