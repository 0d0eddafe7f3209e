// `seed analyze`: user mistakes are one-line usage errors (exit 2, no stack trace), from the real CLI entry point.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "../../..");
const seed = (...args: string[]) => spawnSync(process.execPath, ["bin/seed.js", "analyze", ...args], { cwd: root, encoding: "utf8" });

test("seed analyze: bad options are one-line usage errors", () => {
  for (const [args, message] of [
    [["nope"], /unknown analysis 'nope' \(one of: gates\)/],
    [["gates"], /missing required option --checkpoint/],
    [["gates", "--checkpoint", "/no/such/dir"], /no checkpoint at \/no\/such\/dir/],
    [["gates", "--checkpoint", ".", "--env", "sokoban"], /--env is one of alfworld, webshop, search/],
    [["gates", "--checkpoint", ".", "--env", "webshop", "--label", "plan"], /--label plan needs ALFWorld's game state/],
    [["gates", "--checkpoint", ".", "--env", "search", "--skill", "hint"], /--skill hint is Stage 0's hint/],
    [["gates", "--checkpoint", ".", "--label", "oracle"], /--label is one of plan, expert/],
    [["gates", "--checkpoint", ".", "--skill", "oracle"], /--skill is one of self, rule, hint/],
  ] as const) {
    const r = seed(...args);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
  const help = seed("gates", "--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--skill <source>/);
  assert.match(help.stdout, /--label <kind>/);
});
