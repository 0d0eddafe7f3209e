// `seed retrieve`: user mistakes print one line and exit 2 (never a stack trace); `query` prints
// one JSON object per query from a corpus file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../../..");
const seed = (...args: string[]) => spawnSync(process.execPath, ["bin/seed.js", "retrieve", ...args], { cwd: ROOT, encoding: "utf8" });

test("user mistakes are one line on stderr and exit code 2", () => {
  for (const args of [["serve"], ["serve", "--corpus", "/nonexistent.jsonl"], ["serve", "--synthetic", "0", "--port", "70000"], ["query", "--synthetic", "0"], ["serve", "--bogus"]]) {
    const r = seed(...args);
    assert.equal(r.status, 2, args.join(" "));
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${args.join(" ")}: no stack trace`);
    assert.match(r.stderr, /^seed retrieve: /);
  }
});

test("query prints the ranked passages of each query", () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-query-"));
  try {
    const corpus = join(dir, "c.jsonl");
    writeFileSync(corpus, ['{"id": "a", "contents": "\\"Alpha\\"\\nAlpha is a red fruit."}', '{"id": "b", "contents": "\\"Beta\\"\\nBeta is a blue stone."}'].join("\n"));
    const r = seed("query", "--corpus", corpus, "--topk", "1", "red fruit", "blue stone");
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { query: string; result: { document: { id: string } }[] });
    assert.deepEqual(lines.map((l) => [l.query, l.result.map((h) => h.document.id)]), [["red fruit", ["a"]], ["blue stone", ["b"]]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("issue 11: seed retrieve serve --help and query --help print the usage and exit 0", () => {
  for (const sub of ["serve", "query"]) {
    const r = seed(sub, "--help");
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /seed retrieve serve .*--corpus/);
    assert.match(r.stdout, /--max-queries/);
  }
});
