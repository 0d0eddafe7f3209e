#!/usr/bin/env node
// The `seed` command. Sources are TypeScript run through tsx, so a checkout needs no build step.
import { register } from "tsx/esm/api";
register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
