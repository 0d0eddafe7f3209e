// Issue 11 item 11: the README's library snippet runs exactly as printed. The snippet is cut
// from README.md (the first ```ts block of "Using the library"), saved under the file name the
// README tells a user to use, in a fresh project that has the package installed the way the
// README's `npm install /path/to/seed` does (a link to the checkout), and run with tsx as the
// README says. HOME and the working directory are temporary, so the test also checks the two
// places the README says it writes: `runs/seed-quick` and `~/.cache/seed-rl`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

/** The library section of the README, the snippet it prints, and the file name it says to save it as. */
function librarySection(): { snippet: string; file: string; text: string } {
  const start = readme.indexOf("## Using the library");
  assert.ok(start >= 0);
  const text = readme.slice(start, readme.indexOf("\n## ", start + 5));
  const m = /```ts\n([\s\S]*?)```/.exec(text);
  assert.ok(m, "the section has a ts snippet");
  const file = /Save the snippet below as\s+`([\w.-]+)`/.exec(text)?.[1];
  assert.ok(file !== undefined, "the section names the file to save the snippet as");
  return { snippet: m[1]!, file, text };
}

test("the README says how to install the package and where the snippet writes", () => {
  const { text } = librarySection();
  assert.match(text, /npm install \/path\/to\/seed\b/);
  assert.match(text, /npm pack/);
  assert.match(text, /`runs\/seed-quick`/);
  assert.match(text, /`~\/\.cache\/seed-rl`/);
});

test("the README's library snippet runs as printed from a project that installed the package", () => {
  const { snippet, file } = librarySection();
  const project = mkdtempSync(join(tmpdir(), "seed-readme-"));
  try {
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "readme-user", version: "1.0.0", private: true }));
    mkdirSync(join(project, "node_modules"));
    symlinkSync(root, join(project, "node_modules", "seed-rl"), "dir");
    mkdirSync(join(project, "home"));
    writeFileSync(join(project, file), snippet);
    // `npx tsx <file>`: tsx's own command line, from the package's dependencies.
    const tsx = join(root, "node_modules", "tsx", "dist", "cli.mjs");
    const r = spawnSync(process.execPath, [tsx, file], { cwd: project, encoding: "utf8", env: { ...process.env, HOME: join(project, "home") }, timeout: 600_000 });
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0]!, /^expert: \d+ steps, won=true$/);
    assert.match(lines[1]!, /^0\.8175\d*$/);
    const success = Number(lines[2]);
    assert.ok(lines.length === 3 && success >= 0 && success <= 1, r.stdout);
    assert.ok(existsSync(join(project, "runs", "seed-quick", "checkpoints", "update-000002", "trainer.json")));
    assert.ok(readdirSync(join(project, "home", ".cache", "seed-rl")).some((n) => n.startsWith("stage0-")));
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
