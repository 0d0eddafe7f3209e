#!/usr/bin/env node
// The `seed` command. Sources are TypeScript run through tsx, so a checkout needs no build step.
import { register } from "tsx/esm/api";

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
