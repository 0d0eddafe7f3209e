// Issue 11 item 11: what a new user trips on gets one line that says what to type instead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const bin = resolve(import.meta.dirname, "../bin/seed.js");
const seed = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

const cases: [string[], RegExp][] = [
  [["train", "--quik"], /^seed train: unknown option --quik \(did you mean --quick\?\); see --help$/],
  [["eval", "--greedyy"], /^seed eval: unknown option --greedyy \(did you mean --greedy\?\); see --help$/],
  [["train", "--opd.beta", "5", "--quick"], /^seed train: an override takes its value after '=': write --opd\.beta=5, not '--opd\.beta 5'$/],
  [["train", "--preset", "sed", "--print-config"], /^seed train: unknown preset 'sed' \(did you mean 'seed'\?\); presets: .*\bgrpo\b/],
  [["train", "--preset", "grop", "--print-config"], /^seed train: unknown preset 'grop' \(did you mean 'grpo'\?\)/],
  [["constructor"], /^seed: unknown command 'constructor'; 'seed --help' lists the commands$/],
  [["toString"], /^seed: unknown command 'toString'; 'seed --help' lists the commands$/],
  [["traim"], /^seed: unknown command 'traim' \(did you mean train\?\); 'seed --help' lists the commands$/],
];

for (const [args, pattern] of cases) {
  test(`seed ${args.join(" ")}: one line, exit 2`, () => {
    const r = seed(...args);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, new RegExp(pattern.source.replace(/\$$/, "\\n$")));
  });
}
