/**
 * Child process of `seed bench engine`: a Qwen2.5-0.5B-shaped model (random weights) runs
 * forward + backward on one 512-token sequence; prints one JSON line with the time and this
 * process's peak RSS. Separate so that its memory is measured alone.
 * Usage: node --import tsx bench/qwen-child.ts <seqLen> <reps>
 */
import { deriveSeed } from "../src/core/rng.ts";
import { presetConfig } from "../src/model/config.ts";
import { ParamStore } from "../src/model/params.ts";
import { Transformer } from "../src/model/transformer.ts";

const seqLen = Number(process.argv[2] ?? 512);
const reps = Number(process.argv[3] ?? 2);
const cfg = presetConfig("qwen2.5-0.5b");
const params = ParamStore.zeros(cfg);
// A fast seeded uniform fill (std 0.02): the timing does not depend on the values, and 494M
// Box-Muller draws would dominate the run.
let s = deriveSeed(7, "qwen-bench") | 1;
const a = 0.02 * Math.sqrt(3);
for (const [name, t] of params.entries()) {
  if (name.endsWith("norm.weight")) { t.fill(1); continue; }
  for (let i = 0; i < t.length; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    t[i] = ((s >>> 0) / 4294967296 * 2 - 1) * a;
  }
}
const model = new Transformer(cfg, params);
let x = deriveSeed(8, "tokens");
const tokens = Array.from({ length: seqLen + 1 }, () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x % cfg.vocabSize; });
const row = [{ tokens, start: 1 }];
const w = [new Float32Array(seqLen).fill(-1 / seqLen)];
const times: number[] = [];
for (let r = 0; r < reps; r++) {
  const t0 = performance.now();
  model.backward(row, w);
  times.push((performance.now() - t0) / 1000);
}
process.stdout.write(JSON.stringify({
  times_s: times, best_s: Math.min(...times), dtype: model.computeDtype,
  peak_rss_mb: process.resourceUsage().maxRSS / 1024, params: params.size(),
}) + "\n");
