// The documentation cites only what the repository holds: every linked file and every path in
// backticks in README.md and docs/*.md exists (PAPER.md's paths are relative to src/), and every
// function PAPER.md names beside a source path is exported from that file; and no file cites the
// team's notes, which the repository does not hold.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const docs = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

function exists(doc: string, path: string): boolean {
  const clean = path.replace(/[#:].*$/, "").replace(/\/$/, "");
  return [join(dirname(join(root, doc)), clean), join(root, clean), join(root, "src", clean)].some((p) => existsSync(p));
}

test("README.md and docs/*.md link and name only files of the repository", () => {
  const missing: string[] = [];
  for (const doc of docs) {
    const text = readFileSync(join(root, doc), "utf8");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^(https?:|#)/.test(m[1]!) && !exists(doc, m[1]!)) missing.push(`${doc}: link ${m[1]}`);
    for (const m of text.matchAll(/`([\w.-]+(?:\/[\w.-]+)*\.(?:ts|md|json|mjs))`/g)) {
      const p = m[1]!;
      // Paths a run writes (runs/..., a report's results.md) are outputs, not files of the repository.
      if (p.includes("/") && !p.startsWith("runs/") && !exists(doc, p) && !/XXXXXX|<|\*/.test(p)) missing.push(`${doc}: \`${p}\``);
    }
    for (const m of text.matchAll(/\b([A-Z][A-Z-]+\.md)\b/g)) if (!exists(doc, m[1]!) && !existsSync(join(root, "docs", m[1]!))) missing.push(`${doc}: ${m[1]}`);
  }
  assert.deepEqual(missing, []);
});

test("every function PAPER.md names beside a source file is exported by that file", () => {
  const text = readFileSync(join(root, "docs", "PAPER.md"), "utf8");
  const wrong: string[] = [];
  const named = [...text.matchAll(/`([\w-]+\/[\w/.-]+\.ts)` `(\w+)`/g)];
  assert.ok(named.length > 20, `only ${named.length} functions named`);
  for (const m of named) {
    const source = readFileSync(join(root, "src", m[1]!), "utf8");
    if (!new RegExp(`export (async )?(function|const|class|type) ${m[2]}\\b`).test(source)) wrong.push(`${m[1]} ${m[2]}`);
  }
  assert.ok(text.includes("(RL-Adv)") && text.includes("(SEED)"));
  assert.deepEqual(wrong, []);
});

test("every equation tag of the paper is in the TSDoc of the code that implements it", () => {
  const tags = ["(RL-Adv)", "(RL)", "(SEED)", "(SFT)", "(Teacher)", "(Student)", "(1)"];
  const sources = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [join(dir, e.name)] : []));
  const all = sources(join(root, "src")).map((f) => readFileSync(f, "utf8")).join("\n");
  assert.deepEqual(tags.filter((t) => !all.includes(`Eq. ${t}`)), []);
});

test("no file cites the team's private notes, which are not in the repository", () => {
  // The note files of the team's shared folder; cite the paper, the upstream file or docs/ instead.
  const notes = /\b(SEED-NOTES|ALGORITHMS|SEED-REFERENCE-CODE|ENVIRONMENTS|FINDINGS|RENOVATION|REMOTE-TRAINING)\b|\b(STYLE|DESIGN)\.md\b/;
  const self = join(root, "test", "docs.test.ts");
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (["node_modules", "build"].includes(e.name) ? [] : files(join(dir, e.name))) : [join(dir, e.name)]);
  const cited: string[] = [];
  for (const file of [join(root, "README.md"), ...["src", "test", "docs", "bench", "scripts", "configs", "native"].flatMap((d) => files(join(root, d)))]) {
    if (file === self) continue;
    readFileSync(file, "utf8").split("\n").forEach((line, i) => { if (notes.test(line)) cited.push(`${file.slice(root.length + 1)}:${i + 1}: ${line.trim().slice(0, 80)}`); });
  }
  assert.deepEqual(cited, []);
});
