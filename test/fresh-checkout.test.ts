// `bin/seed.js` in a checkout whose dependencies are not installed yet (no node_modules on the
// resolution path) says in one line what to run, and exits 2, instead of a Node stack trace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

test("seed without its dependencies is one line naming the set-up script, exit 2", (t) => {
  const root = mkdtempSync(join(tmpdir(), "seed-fresh-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "bin"));
  copyFileSync(resolve(import.meta.dirname, "../bin/seed.js"), join(root, "bin", "seed.js"));
  const r = spawnSync(process.execPath, [join(root, "bin", "seed.js"), "--help"], { encoding: "utf8", cwd: root });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, "seed: its dependencies are not installed; run ./scripts/setup.sh (or npm ci) in the repository first\n");
});
