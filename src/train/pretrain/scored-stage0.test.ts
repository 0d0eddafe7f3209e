// Stage 0 of the benchmarks scored per episode (WebShop, Search-QA) at tiny sizes: BC runs, the
// report scores the base agent on the held-out tasks and is written next to the model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinyStage0Config } from "../../testing/stage0-config.ts";
import { runStage0 } from "./stage0.ts";
import type { ScoredStage0Report } from "./scored-stage0.ts";

for (const env of ["webshop", "search"] as const) {
  test(`${env} Stage 0 at tiny sizes: BC runs and the report scores the base agent on the test split`, async () => {
    const dir = mkdtempSync(join(tmpdir(), `seed-${env}-stage0-`));
    try {
      const out = join(dir, "base");
      const r = (await runStage0(tinyStage0Config(env), { outDir: out, quiet: true })) as ScoredStage0Report;
      assert.equal(r.env, env);
      assert.equal(r.episodes, 8);
      assert.equal(r.bc.steps, 3);
      assert.ok(Number.isFinite(r.bc.firstLoss) && Number.isFinite(r.bc.finalLoss));
      assert.equal(r.evalSplit, "test");
      assert.equal(r.noHint.episodes, 2);
      assert.ok(r.noHint.score >= 0 && r.noHint.score <= 1);
      assert.equal(r.demo.hinted.episodes + r.demo.plain.episodes, 8);
      assert.equal(r.model.preset, "tiny");
      const saved = JSON.parse(readFileSync(join(out, "stage0.json"), "utf8")) as ScoredStage0Report;
      assert.equal(saved.trainedTokens, r.trainedTokens);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
