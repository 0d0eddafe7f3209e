// Our Qwen2, Qwen3 and Llama forward against Hugging Face Transformers (PyPI, in .venv): random
// checkpoints written by our own HF-format writer (`saveCheckpoint`), loaded by
// `AutoModelForCausalLM.from_pretrained`, and every next-token logit compared in f32. Both of our
// paths are checked: KV-cache decoding (logits) and the training forward (log-probs of targets).
// About 10 s, most of it importing torch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../core/rng.ts";
import { pythonSkip, runPython } from "../testing/python.ts";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.ts";
import { presetConfig, type ModelConfig } from "./config.ts";
import { KvCache } from "./kv-cache.ts";
import { ParamStore } from "./params.ts";
import { Transformer } from "./transformer.ts";

const skip = pythonSkip("torch", "transformers");

const HF_LOGITS = `
import json, sys, torch
from transformers import AutoModelForCausalLM
torch.manual_seed(0)
out = []
for job in json.load(sys.stdin):
    model = AutoModelForCausalLM.from_pretrained(job["dir"], dtype=torch.float32)
    model.eval()
    with torch.no_grad():
        rows = [model(torch.tensor([ids])).logits[0].tolist() for ids in job["rows"]]
    out.append({"class": type(model).__name__, "logits": rows})
print(json.dumps(out))
`;

/** Random weights that exercise every tensor: biases and norm weights away from their init. */
function randomParams(cfg: ModelConfig, seed: number): ParamStore {
  const p = ParamStore.init(cfg, Rng.from(seed), 0.08);
  const rng = Rng.from(seed + 1);
  for (const [name, t] of p.entries()) {
    if (name.endsWith("norm.weight")) for (let i = 0; i < t.length; i++) t[i] = 1 + 0.2 * rng.normal();
    else if (name.endsWith(".bias")) for (let i = 0; i < t.length; i++) t[i] = 0.05 * rng.normal();
  }
  return p;
}

const CASES: { name: string; cls: string; cfg: ModelConfig }[] = [
  { name: "qwen2 (qkv bias, tied, GQA)", cls: "Qwen2ForCausalLM", cfg: presetConfig("tiny", { vocabSize: 300, dModel: 64, ffnSize: 96, maxContext: 128, ropeTheta: 1e6 }) },
  { name: "qwen3 (q/k norm, head size 24 != 64/4, untied)", cls: "Qwen3ForCausalLM", cfg: presetConfig("tiny-qwen3", { vocabSize: 300, dModel: 64, ffnSize: 96, headDim: 24, maxContext: 128, tiedEmbeddings: false }) },
  { name: "qwen3 (tied, head size 16)", cls: "Qwen3ForCausalLM", cfg: presetConfig("tiny-qwen3", { vocabSize: 300, dModel: 64, ffnSize: 96, headDim: 16, maxContext: 128 }) },
  { name: "llama (no bias, tied, GQA)", cls: "LlamaForCausalLM", cfg: presetConfig("tiny", { arch: "llama", qkvBias: false, vocabSize: 300, dModel: 64, ffnSize: 96, maxContext: 128, ropeTheta: 1e5, rmsNormEps: 1e-5 }) },
];

test("Transformers loads our Qwen2 / Qwen3 / Llama checkpoints and computes our logits (max abs diff <= 1e-4, f32)", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "seed-hf-parity-"));
  try {
    const rng = Rng.from(42);
    const jobs = CASES.map((c, i) => {
      const path = join(dir, `m${i}`);
      saveCheckpoint(path, { config: c.cfg, params: randomParams(c.cfg, 10 + i) });
      const rows = [37, 64].map((len) => Array.from({ length: len }, () => rng.int(c.cfg.vocabSize)));
      return { dir: path, rows };
    });
    const hf = JSON.parse(runPython(HF_LOGITS, JSON.stringify(jobs))) as { class: string; logits: number[][][] }[];
    CASES.forEach((c, i) => {
      assert.equal(hf[i]!.class, c.cls, c.name);
      // What we wrote is what we compare: reload it rather than reuse the in-memory weights.
      const ck = loadCheckpoint(jobs[i]!.dir);
      assert.deepEqual(ck.config, c.cfg);
      const model = new Transformer(ck.config, ck.params);
      const V = c.cfg.vocabSize;
      let worstLogit = 0, worstLogp = 0;
      jobs[i]!.rows.forEach((ids, r) => {
        const want = hf[i]!.logits[r]!;
        const cache = new KvCache(model, 1);
        const lp = model.logprobs([{ tokens: ids, start: 1 }])[0]!;
        for (let t = 0; t < ids.length; t++) {
          const logits = cache.append([0], [[ids[t]!]]);
          for (let v = 0; v < V; v++) worstLogit = Math.max(worstLogit, Math.abs(logits[v]! - want[t]![v]!));
          if (t + 1 < ids.length) {
            const row = want[t]!, mx = Math.max(...row);
            const lse = mx + Math.log(row.reduce((s, x) => s + Math.exp(x - mx), 0));
            worstLogp = Math.max(worstLogp, Math.abs(lp[t]! - (row[ids[t + 1]!]! - lse)));
          }
        }
      });
      assert.ok(worstLogit <= 1e-4, `${c.name}: max abs logit difference ${worstLogit}`);
      assert.ok(worstLogp <= 1e-4, `${c.name}: max abs log-prob difference ${worstLogp}`);
      // Logits of random weights are not all ~0: the bound above is not met trivially.
      const spread = Math.max(...hf[i]!.logits[0]![5]!) - Math.min(...hf[i]!.logits[0]![5]!);
      assert.ok(spread > 0.1, `${c.name}: logit spread ${spread}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
