#!/usr/bin/env node
// Builds the oneDNN addon in native/ with node-gyp against the local Node headers.
// Never fails the install: without oneDNN the library runs on the TypeScript reference engine,
// and `seed doctor` explains why. `--force` makes a failed build exit non-zero.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const force = process.argv.includes("--force");
const root = new URL("..", import.meta.url).pathname;
const nativeDir = root + "native";
if (!existsSync(nativeDir + "/binding.gyp")) process.exit(0);
const require = createRequire(import.meta.url);
let gyp;
try {
  gyp = require.resolve("node-gyp/bin/node-gyp.js");
} catch {
  console.warn("[seed] node-gyp not installed yet; skipping the native engine build");
  process.exit(force ? 1 : 0);
}
const r = spawnSync(process.execPath, [gyp, "rebuild", "--nodedir=/usr", "--jobs=2"], { cwd: nativeDir, stdio: "inherit" });
if (r.status !== 0) {
  console.warn("[seed] the native engine did not build (is libdnnl-dev installed?); the TypeScript reference engine will be used");
  process.exit(force ? 1 : 0);
}
