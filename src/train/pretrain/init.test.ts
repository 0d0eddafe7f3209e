// stage0.init: Stage 0 fine-tunes a given checkpoint (its tokenizer, its shape, its weights) instead
// of training a BPE and a fresh model. The stand-in for a pretrained model here is a tiny Stage-0
// base of our own, which has the ChatML markers a pretrained instruct model brings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { tinyStage0Config } from "../../testing/stage0-config.ts";
import { UsageError } from "../../core/errors.ts";
import { loadCheckpoint } from "../../model/checkpoint.ts";
import { runStage0 } from "./stage0.ts";
import type { ScoredStage0Report } from "./scored-stage0.ts";

test("stage0.init fine-tunes the given checkpoint: same tokenizer and shape, moved weights, the init in the report", async () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-stage0-init-"));
  try {
    const first = join(dir, "first");
    await runStage0(tinyStage0Config("search"), { outDir: first, quiet: true });
    const c = tinyStage0Config("search");
    // Sizes of a fresh model that an init must not use.
    Object.assign(c.stage0, { init: join(first, "model"), vocabSize: 333, model: "embedded", steps: 2 });
    const second = join(dir, "second");
    const r = (await runStage0(c, { outDir: second, quiet: true })) as ScoredStage0Report;
    assert.equal(r.model.preset, "pretrained");
    assert.equal(r.model.init, resolve(first, "model"));
    assert.equal(r.bc.steps, 2);
    assert.equal(readFileSync(join(second, "model", "tokenizer.json"), "utf8"), readFileSync(join(first, "model", "tokenizer.json"), "utf8"));
    const a = loadCheckpoint(join(first, "model")), b = loadCheckpoint(join(second, "model"));
    assert.deepEqual(b.config, a.config);
    let moved = 0;
    for (const [name, x] of a.params.tensors()) {
      const y = b.params.get(name);
      for (let i = 0; i < x.length; i++) {
        assert.ok(Number.isFinite(y[i]!));
        moved = Math.max(moved, Math.abs(x[i]! - y[i]!));
      }
    }
    assert.ok(moved > 1e-6, `behaviour cloning moved the init's weights (max change ${moved})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stage0.init that is not a checkpoint is one UsageError naming it", async () => {
  const c = tinyStage0Config("search");
  c.stage0.init = join(tmpdir(), "seed-no-such-checkpoint");
  const dir = mkdtempSync(join(tmpdir(), "seed-stage0-init-bad-"));
  try {
    await assert.rejects(runStage0(c, { outDir: join(dir, "out"), quiet: true }), (e: unknown) => e instanceof UsageError && /stage0\.init .*seed-no-such-checkpoint is not a checkpoint directory/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
