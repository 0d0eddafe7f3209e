import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "./errors.ts";
import { assertReplaceable, writeDirAtomically, type OwnedLayout } from "./fs.ts";

const root = mkdtempSync(join(tmpdir(), "seed-fs-"));
test.after(() => rmSync(root, { recursive: true, force: true }));

// A layout like a stage output: `report.json` holding {"ours": true} marks seed's folder.
const layout: OwnedLayout = {
  what: "a test output",
  names: ["report.json", "model"],
  isSignature: (dir) => existsSync(join(dir, "report.json")) && JSON.parse(readFileSync(join(dir, "report.json"), "utf8")).ours === true,
};
const fill = (text: string) => (tmp: string) => writeFileSync(join(tmp, "report.json"), JSON.stringify({ ours: true, text }));

test("writeDirAtomically creates a folder, and replaces one it wrote, leaving no temporary siblings", () => {
  const out = join(root, "fresh");
  writeDirAtomically(out, layout, fill("one"));
  writeDirAtomically(out, layout, fill("two"));
  assert.equal(JSON.parse(readFileSync(join(out, "report.json"), "utf8")).text, "two");
  assert.deepEqual(readdirSync(root).filter((n) => n.includes("fresh")), ["fresh"]);
  mkdirSync(join(root, "empty"));
  writeDirAtomically(join(root, "empty"), layout, fill("x"));
  assert.ok(existsSync(join(root, "empty", "report.json")));
});

test("a foreign folder, a folder seed wrote with a user's file added, and a file are refused and kept", () => {
  const foreign = join(root, "foreign");
  mkdirSync(foreign);
  writeFileSync(join(foreign, "a.txt"), "keep");
  assert.throws(() => writeDirAtomically(foreign, layout, fill("x"), "--out"), (e: unknown) => e instanceof UsageError && /--out .*foreign is a non-empty folder that is not a test output written by seed \(it holds a\.txt\)/.test(e.message) && !e.message.includes("\n"));
  assert.equal(readFileSync(join(foreign, "a.txt"), "utf8"), "keep");
  // Same names as ours but no signature (a look-alike): refused.
  const lookalike = join(root, "lookalike");
  mkdirSync(lookalike);
  writeFileSync(join(lookalike, "report.json"), "{}");
  assert.throws(() => assertReplaceable(lookalike, layout), /not a test output written by seed/);
  const mixed = join(root, "mixed");
  writeDirAtomically(mixed, layout, fill("x"));
  writeFileSync(join(mixed, "notes.md"), "mine");
  assert.throws(() => writeDirAtomically(mixed, layout, fill("y")), /it holds notes\.md/);
  assert.equal(readFileSync(join(mixed, "notes.md"), "utf8"), "mine");
  const file = join(root, "file.txt");
  writeFileSync(file, "keep");
  assert.throws(() => writeDirAtomically(file, layout, fill("x"), "--out"), /--out .*file\.txt is a file, not a folder/);
  assert.equal(readFileSync(file, "utf8"), "keep");
  assert.throws(() => assertReplaceable(join(file, "sub"), layout, "--out"), (e: unknown) => e instanceof UsageError && /a parent of it is a file/.test(e.message));
  assert.deepEqual(readdirSync(root).filter((n) => n.startsWith(".")), [], "no temporary folder left behind");
});

test("a place where nothing can be created is refused in one line before any work", { skip: !existsSync("/sys/kernel") && "needs sysfs" }, () => {
  // sysfs refuses new entries to every user, root included (permission bits do not stop root).
  assert.throws(() => assertReplaceable("/sys/seed-test-out", layout, "--out"), (e: unknown) => e instanceof UsageError && /^--out \/sys\/seed-test-out: cannot write there: its folder \/sys is not writable \(EPERM\)$/.test(e.message));
});
