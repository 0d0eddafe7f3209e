#!/usr/bin/env node
// Runs the test suite with node:test through tsx. Usage:
//   node scripts/run-tests.mjs [--slow] [path-substring ...]
// Without --slow, files named *.slow.test.ts are skipped (the default suite stays a few minutes).
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
const slow = args.includes("--slow");
const filters = args.filter((a) => !a.startsWith("--"));
const root = new URL("..", import.meta.url).pathname;

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith(".test.ts")) out.push(relative(root, p));
  }
  return out;
}

const files = [...walk(join(root, "src"), []), ...walk(join(root, "test"), [])]
  .filter((f) => slow || !f.endsWith(".slow.test.ts"))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
const r = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], {
  cwd: root,
  stdio: "inherit",
});
process.exit(r.status ?? 1);
