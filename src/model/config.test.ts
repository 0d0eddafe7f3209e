// Model config: validation reports every problem, presets are valid, the Hugging Face mapping
// round-trips, and the parameter count matches the Qwen2.5-0.5B model card (494M).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../core/errors.ts";
import { configIssues, fromHfConfig, MODEL_PRESETS, modelConfig, parameterCount, presetConfig, toHfConfig } from "./config.ts";

test("every preset is valid", () => {
  for (const name of Object.keys(MODEL_PRESETS)) assert.deepEqual(configIssues(presetConfig(name)), [], name);
});

test("validation lists every problem with its path", () => {
  const bad = { ...MODEL_PRESETS.tiny, dModel: 30, nKvHeads: 3, dtype: "f16", rmsNormEps: 0, extra: 1 };
  const issues = configIssues(bad).map((i) => i.path);
  assert.deepEqual(issues.sort(), ["dtype", "rmsNormEps"].sort());
  const shape = configIssues({ ...MODEL_PRESETS.tiny, dModel: 30, nKvHeads: 3, extra: 1 }).map((i) => i.path);
  assert.deepEqual(shape, ["nHeads", "nKvHeads", "extra"]); // 30 % 4, 4 % 3, unknown field
  assert.throws(() => modelConfig({ ...MODEL_PRESETS.tiny, nLayers: 0 }), (e: unknown) => e instanceof ConfigError && /model\.nLayers/.test(e.message));
  assert.throws(() => presetConfig("nope"), /unknown preset 'nope' \(one of tiny, embedded, bench, qwen2\.5-0\.5b\)/);
  assert.throws(() => modelConfig(null), ConfigError);
});

test("Qwen2.5-0.5B has 494M parameters (tied), and the HF config.json mapping round-trips", () => {
  const q = presetConfig("qwen2.5-0.5b");
  assert.equal(parameterCount(q), 494032768);
  assert.deepEqual(fromHfConfig(toHfConfig(q)), q);
  const untied = presetConfig("tiny", { tiedEmbeddings: false, qkvBias: false });
  assert.deepEqual(fromHfConfig(JSON.parse(JSON.stringify(toHfConfig(untied)))), untied);
});

test("a real Qwen2 config.json (abridged) loads; unsupported features are refused", () => {
  const hf = {
    architectures: ["Qwen2ForCausalLM"], hidden_act: "silu", hidden_size: 896, intermediate_size: 4864,
    max_position_embeddings: 32768, model_type: "qwen2", num_attention_heads: 14, num_hidden_layers: 24,
    num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000.0, sliding_window: 32768,
    tie_word_embeddings: true, torch_dtype: "bfloat16", use_sliding_window: false, vocab_size: 151936,
  };
  assert.deepEqual(fromHfConfig(hf), presetConfig("qwen2.5-0.5b"));
  assert.equal(fromHfConfig(hf, { dtype: "f32" }).dtype, "f32");
  assert.throws(() => fromHfConfig({ ...hf, model_type: "llama" }), /only "qwen2"/);
  assert.throws(() => fromHfConfig({ ...hf, rope_scaling: { type: "yarn" } }), /rope scaling/);
  assert.throws(() => fromHfConfig({ ...hf, hidden_size: 900 }), /nHeads/);
});
