// Issue 11 item 5: one writer per run directory. A second claim fails in one line naming the
// holder (pid, host, start time, command); a lock left by a dead process (SIGKILL) or by a pid
// since reused is stale and taken over; a lock from another host is respected.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { once } from "node:events";
import { UsageError } from "../core/errors.ts";
import { LOCK_FILE, lockRunDir, type LockHolder } from "./run-lock.ts";

const root = mkdtempSync(join(tmpdir(), "seed-lock-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const lockModule = resolve(import.meta.dirname, "run-lock.ts");
const bin = resolve(import.meta.dirname, "../../bin/seed.js");

function fresh(name: string): string {
  const dir = join(root, name);
  rmSync(dir, { recursive: true, force: true });
  spawnSync("mkdir", ["-p", dir]);
  return dir;
}

/** A child process that takes the lock of `dir`, says so, and waits to be killed. */
async function holder(dir: string): Promise<ChildProcess> {
  const script = `import { lockRunDir } from ${JSON.stringify(lockModule)}; lockRunDir(${JSON.stringify(dir)}, "seed train --holder"); console.log("locked"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  assert.equal(line.toString().trim(), "locked");
  return child;
}

test("a second claim in the same process fails naming the holder; release frees it", () => {
  const dir = fresh("same");
  const lock = lockRunDir(dir, "seed train --first");
  assert.throws(() => lockRunDir(dir, "seed train --second"), (e: unknown) =>
    e instanceof UsageError && e.message.includes(`in use by pid ${process.pid} on ${hostname()}, started ${lock.holder.started}: seed train --first`) && !e.message.includes("\n"));
  lock.release();
  lock.release();
  assert.ok(!existsSync(join(dir, LOCK_FILE)));
  lockRunDir(dir).release();
  assert.deepEqual(readdirSync(dir), [], "no private files left behind");
});

test("a live lock of another process is refused; once that process is SIGKILLed its lock is stale and taken over", async () => {
  const dir = fresh("child");
  const child = await holder(dir);
  try {
    assert.throws(() => lockRunDir(dir), (e: unknown) => e instanceof UsageError && e.message.includes(`pid ${child.pid} on ${hostname()}`) && e.message.includes("seed train --holder"));
    // The CLI says it in one line, before any work.
    const r = spawnSync(process.execPath, [bin, "train", "--quick", "--quiet", "--run-dir", dir, "--cache-dir", join(root, "cache")], { encoding: "utf8" });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^seed train: .*child is in use by pid ${child.pid} on .*: seed train --holder; wait for it to finish, or, if that process is gone, delete .*\\.lock\\n$`));
    assert.ok(!existsSync(join(root, "cache")), "refused before building a base");
  } finally {
    child.kill("SIGKILL");
    await once(child, "exit");
  }
  const lock = lockRunDir(dir, "seed train --after");
  assert.equal((JSON.parse(readFileSync(lock.path, "utf8")) as LockHolder).pid, process.pid);
  lock.release();
});

test("stale records (dead pid, reused pid, unreadable) are taken over; another host's lock is respected", () => {
  const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  const deadPid = Number(dead.stdout);
  const record = (h: Partial<LockHolder>) => JSON.stringify({ pid: deadPid, host: hostname(), started: "2026-01-01T00:00:00.000Z", command: "seed train", procStart: null, ...h });
  for (const [name, text] of [["dead", record({})], ["reused", record({ pid: process.pid, procStart: "1" })], ["torn", "{\"pid\": 12"]] as const) {
    const dir = fresh(name);
    writeFileSync(join(dir, LOCK_FILE), text);
    const lock = lockRunDir(dir);
    assert.equal((JSON.parse(readFileSync(lock.path, "utf8")) as LockHolder).pid, process.pid, name);
    lock.release();
    assert.deepEqual(readdirSync(dir), [], name);
  }
  const dir = fresh("remote");
  writeFileSync(join(dir, LOCK_FILE), record({ host: "elsewhere", pid: 4242 }));
  assert.throws(() => lockRunDir(dir), /in use by pid 4242 on elsewhere, started 2026-01-01T00:00:00\.000Z: seed train; .*delete .*\.lock/);
  assert.ok(existsSync(join(dir, LOCK_FILE)), "kept");
});
