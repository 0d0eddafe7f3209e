// Checks the import direction of DESIGN.md §2 / STYLE.md §2 on every source file, and that no
// source file uses Math.random (every random draw flows from an explicit seed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, dirname, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const src = join(root, "src");

/** Which top-level folders of src/ each folder may import (itself always allowed). */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  math: ["core"],
  engine: ["core"],
  envs: ["core"],
  config: ["core", "math", "envs"],
  model: ["core", "engine"],
  policy: ["core", "model", "engine"],
  agent: ["core", "envs", "policy"],
  skills: ["core", "config", "agent", "policy", "envs"],
  run: ["core", "math", "config", "engine", "model", "policy", "envs", "agent", "skills"],
  train: ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills"],
  eval: ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills", "train"],
  cli: ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills", "train", "eval"],
  testing: ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills", "train", "eval"],
};

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

test("imports point downward only (DESIGN.md §2), and src/ never imports testing/", () => {
  const problems: string[] = [];
  for (const file of sources(src)) {
    const layer = relative(src, file).split("/")[0]!;
    if (!(layer in ALLOWED)) continue; // src/index.ts and friends
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g)) {
      const spec = m[1] ?? m[2]!;
      const target = relative(src, resolve(dirname(file), spec));
      if (target.startsWith("..")) continue; // bench/ or package files
      const to = target.split("/")[0]!;
      if (to === layer || !(to in ALLOWED)) continue;
      if (!ALLOWED[layer]!.includes(to)) problems.push(`${relative(root, file)} imports ${spec} (${layer} -> ${to})`);
    }
  }
  assert.deepEqual(problems, []);
});

test("no Math.random in src/", () => {
  const hits = sources(src).filter((f) => /Math\.random\s*\(/.test(readFileSync(f, "utf8")));
  assert.deepEqual(hits.map((f) => relative(root, f)), []);
});
