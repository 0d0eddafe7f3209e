/**
 * `seed bench <name> [--json]`: runs one benchmark from `bench/<name>.ts` (or `all`).
 * Benchmarks print ratios against a peer measured in the same run; they never run in CI.
 */
import { UsageError } from "../../core/errors.ts";
import type { Command } from "../main.ts";

const BENCHES = ["engine", "envs", "rollout", "update", "remote", "pretrained"] as const;

export const command: Command = {
  summary: "benchmarks",
  async run(argv) {
    const [name, ...rest] = argv;
    if (name === undefined || name === "--help") {
      console.log(`usage: seed bench <${BENCHES.join("|")}|all> [--json]`);
      return name === undefined ? 2 : 0;
    }
    const names = name === "all" ? [...BENCHES] : [name];
    for (const n of names) {
      if (!(BENCHES as readonly string[]).includes(n)) throw new UsageError(`unknown benchmark '${n}' (one of ${BENCHES.join(", ")}, all)`);
      const mod = (await import(`../../../bench/${n}.ts`)) as { run(argv: readonly string[]): Promise<number>; skipReason?: () => string | false };
      // `all` leaves out a bench whose inputs are not set up (the pretrained model's wheel).
      const skip = name === "all" ? (mod.skipReason?.() ?? false) : false;
      if (skip !== false) {
        console.error(`seed bench all: skipping ${n}: ${skip}`);
        continue;
      }
      const code = await mod.run(rest);
      if (code !== 0) return code;
    }
    return 0;
  },
};
