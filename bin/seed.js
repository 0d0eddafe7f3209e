#!/usr/bin/env node
// The `seed` command. Sources are TypeScript run through tsx, so a checkout needs no build step.
// A fresh checkout has no node_modules yet: say what to run instead of printing a stack trace.
let register;
try {
  ({ register } = await import("tsx/esm/api"));
} catch (e) {
  if (e?.code !== "ERR_MODULE_NOT_FOUND") throw e;
  process.stderr.write("seed: its dependencies are not installed; run ./scripts/setup.sh (or npm ci) in the repository first\n");
  process.exit(2);
}

// `seed ... | head` closes the pipe early: end quietly instead of crashing with EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
}
register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
