// Issue 11 items 6 and 7 (CLI side): user mistakes and damaged files are one line on stderr
// (exit 2), never a stack trace, and a failed first start does not pin the run directory to
// its broken config. One real quick run is trained and then damaged in copies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TEST_CACHE } from "./train-helpers.ts";

const root = mkdtempSync(join(tmpdir(), "seed-cli-faults-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const bin = resolve(import.meta.dirname, "../bin/seed.js");
// The quick Stage-0/1 bases every training test shares (built once per machine).
const cache = TEST_CACHE;
const seed = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: root });

function oneLine(r: ReturnType<typeof seed>, pattern: RegExp, status = 2): void {
  assert.equal(r.status, status, r.stderr);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.match(r.stderr.trim(), pattern);
}

const run = join(root, "run");

test("a failed first start (--env.data=/typo) leaves no lock and no pinned config: the corrected command trains", () => {
  oneLine(seed("train", "--quick", "--quiet", "--run-dir", run, "--cache-dir", cache, "--env.data=/typo"), /^seed train: \/typo: no such directory$/);
  assert.deepEqual(readdirSync(run), ["config.json"]);
  const r = seed("train", "--quick", "--quiet", "--run-dir", run, "--cache-dir", cache);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(run, "checkpoints", "update-000002", "trainer.json")));
  assert.ok(!existsSync(join(run, ".lock")), "the lock is released at the end");
  // Now the run has begun: another config is refused, naming the difference.
  oneLine(seed("train", "--quick", "--quiet", "--run-dir", run, "--cache-dir", cache, "--opd.beta=1"), /holds a run with a different config \(opd\.beta\)/);
});

test("a run dir or --out that is a file, or where nothing can be created, is one line", () => {
  const file = join(root, "file.txt");
  writeFileSync(file, "keep");
  oneLine(seed("train", "--quick", "--quiet", "--run-dir", file, "--cache-dir", cache), /^seed train: cannot use run directory .*file\.txt: it \(or a parent of it\) is a file, not a folder$/);
  oneLine(seed("train", "--quick", "--quiet", "--run-dir", join(file, "sub"), "--cache-dir", cache), /cannot use run directory .*: it \(or a parent of it\) is a file/);
  oneLine(seed("stage0", "--quick", "--quiet", "--out", join(file, "sub")), /^seed stage0: --out .*: a parent of it is a file, not a folder$/);
  assert.equal(readFileSync(file, "utf8"), "keep");
  if (existsSync("/sys/kernel")) {
    // sysfs refuses new entries even to root, whom chmod would not stop.
    oneLine(seed("train", "--quick", "--quiet", "--run-dir", "/sys/seed-run", "--cache-dir", cache), /^seed train: cannot use run directory \/sys\/seed-run: not writable \(EPERM\)$/);
    oneLine(seed("stage0", "--quick", "--quiet", "--out", "/sys/seed-out"), /^seed stage0: --out \/sys\/seed-out: cannot write there: its folder \/sys is not writable \(EPERM\)$/);
  }
});

test("a garbled run config.json (eval), trainer.json (report) and a model.safetensors that is a folder are one line each", () => {
  assert.ok(existsSync(join(run, "checkpoints")), "needs the run of the first test");
  const copy = (name: string) => {
    const dir = join(root, name);
    cpSync(run, dir, { recursive: true });
    return dir;
  };
  const badJson = copy("bad-json");
  writeFileSync(join(badJson, "config.json"), "{\"method\": ");
  oneLine(seed("eval", "--checkpoint", badJson, "--episodes", "1"), /^seed eval: .*bad-json\/config\.json: not valid JSON/);
  const badShape = copy("bad-shape");
  writeFileSync(join(badShape, "config.json"), JSON.stringify({ ...JSON.parse(readFileSync(join(run, "config.json"), "utf8")), env: { name: 5 } }));
  oneLine(seed("eval", "--checkpoint", badShape, "--episodes", "1"), /^seed eval: .*config\.json is not a valid run config: env\.name: expected a string, got number \(5\)$/);
  const badTrainer = copy("bad-trainer");
  writeFileSync(join(badTrainer, "checkpoints", "update-000002", "trainer.json"), "{\"update\": ");
  oneLine(seed("report", badTrainer), /^seed report: .*update-000002\/trainer\.json: unreadable trainer state/);
  const folder = copy("weights-folder");
  const weights = join(folder, "checkpoints", "update-000002", "policy", "model.safetensors");
  rmSync(weights);
  mkdirSync(weights);
  oneLine(seed("eval", "--checkpoint", folder, "--episodes", "1"), /^seed eval: .*policy\/model\.safetensors: is a folder, not a safetensors file$/);
});

function flipBit(path: string): void {
  const b = readFileSync(path);
  b[b.length - 7] = b[b.length - 7]! ^ 0x10;
  writeFileSync(path, b);
}

test("a corrupt newest checkpoint is skipped with a warning; the resumed run ends bit-identical to one resumed from a sound checkpoint", () => {
  assert.ok(existsSync(join(run, "checkpoints", "update-000002")), "needs the run of the first test");
  const clean = join(root, "resume-clean"), broken = join(root, "resume-broken");
  cpSync(run, clean, { recursive: true });
  cpSync(run, broken, { recursive: true });
  flipBit(join(broken, "checkpoints", "update-000002", "policy", "model.safetensors"));
  const args = ["train", "--quick", "--quiet", "--cache-dir", cache, "--run.updates=3", "--json"];
  const a = seed(...args, "--run-dir", clean);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(JSON.parse(a.stdout).resumed_from, 2);
  const b = seed(...args, "--run-dir", broken);
  assert.equal(b.status, 0, b.stderr);
  assert.equal(JSON.parse(b.stdout).resumed_from, 1);
  assert.match(b.stderr, /^\[seed\] WARNING: resuming from .*update-000001 \(update 1\): skipped the corrupt checkpoint .*update-000002 \(.*update-000002\/policy\/model\.safetensors: is corrupt: its SHA-256 is/m);
  for (const f of ["model.safetensors", "optimizer.safetensors"]) {
    assert.ok(readFileSync(join(clean, "checkpoints", "update-000003", "policy", f)).equals(readFileSync(join(broken, "checkpoints", "update-000003", "policy", f))), f);
  }
  // When no checkpoint loads, the run stops with one line instead of silently starting over.
  const none = join(root, "resume-none");
  cpSync(run, none, { recursive: true });
  for (const u of ["update-000001", "update-000002"]) flipBit(join(none, "checkpoints", u, "policy", "model.safetensors"));
  oneLine(seed(...args, "--run-dir", none), /^seed train: no checkpoint of .*resume-none loads \(skipped the corrupt checkpoint .*update-000002 .*; skipped the corrupt checkpoint .*update-000001 .*\); move its checkpoints\/ folder aside to start over$/);
});
