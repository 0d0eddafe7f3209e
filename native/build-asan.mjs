#!/usr/bin/env node
// Builds an AddressSanitizer variant of the addon in a separate directory (default
// $TMPDIR/seed-native-asan), from a copy of binding.gyp and src/, so that native/build keeps
// the production build other processes are using. Prints how to run tests against it.
// Usage: node native/build-asan.mjs [out-dir]
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const here = new URL(".", import.meta.url).pathname;
const root = resolve(here, "..");
const out = resolve(process.argv[2] ?? join(tmpdir(), "seed-native-asan"));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const f of ["binding.gyp", "cpu-features.mjs", "src"]) cpSync(join(here, f), join(out, f), { recursive: true });

const gyp = createRequire(import.meta.url).resolve("node-gyp/bin/node-gyp.js");
const r = spawnSync(process.execPath, [gyp, "rebuild", "--nodedir=/usr", "--jobs=2"], {
  cwd: out,
  stdio: "inherit",
  // NODE_PATH: binding.gyp finds node-addon-api's headers with require(), from the copy's directory.
  env: { ...process.env, SEED_NATIVE_SANITIZE: "address", NODE_PATH: join(root, "node_modules") },
});
const addon = join(out, "build/Release/seed_native.node");
if (r.status !== 0 || !existsSync(addon)) {
  console.error("[seed] the AddressSanitizer build failed");
  process.exit(1);
}
const lib = spawnSync("gcc", ["-print-file-name=libasan.so"], { encoding: "utf8" }).stdout.trim();
console.log(`\nAddressSanitizer addon: ${addon}\nRun tests against it with:\n` +
  `  LD_PRELOAD=${lib} ASAN_OPTIONS=detect_leaks=0 SEED_NATIVE_ADDON=${addon} node scripts/run-tests.mjs src/engine src/model src/policy`);
