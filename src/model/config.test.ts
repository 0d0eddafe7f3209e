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
  assert.throws(() => presetConfig("nope"), /unknown preset 'nope' \(one of tiny, embedded, bench, tiny-qwen3, qwen2\.5-0\.5b, qwen3-1\.7b, smollm2-135m\)/);
  const arch = configIssues({ ...MODEL_PRESETS.tiny, arch: "gpt2", headDim: 1.5 }).map((i) => i.path);
  assert.deepEqual(arch.sort(), ["arch", "headDim"]);
  assert.deepEqual(configIssues({ ...MODEL_PRESETS.tiny, arch: "llama" }).map((i) => i.message), ["llama has no q/k/v biases"]);
  assert.deepEqual(configIssues({ ...MODEL_PRESETS.tiny, headDim: 5 }).map((i) => i.path), ["headDim"]); // odd: no RoPE pairs
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
  assert.throws(() => fromHfConfig({ ...hf, model_type: "mistral" }), /only "qwen2", "qwen3", "llama" are supported/);
  assert.throws(() => fromHfConfig({ ...hf, rope_parameters: { rope_type: "yarn", rope_theta: 1e6 } }), /only "default" RoPE/);
  assert.equal(fromHfConfig({ ...hf, rope_theta: undefined, rope_parameters: { rope_type: "default", rope_theta: 5e5 } }).ropeTheta, 5e5);
  assert.throws(() => fromHfConfig({ ...hf, rope_scaling: { type: "yarn" } }), /rope scaling/);
  assert.throws(() => fromHfConfig({ ...hf, hidden_size: 900 }), /nHeads/);
});

test("Qwen3 and Llama config.json files map both ways; head_dim equal to the default is dropped", () => {
  // Qwen3-1.7B's config.json, abridged.
  const qwen3 = {
    architectures: ["Qwen3ForCausalLM"], attention_bias: false, head_dim: 128, hidden_act: "silu", hidden_size: 2048,
    intermediate_size: 6144, max_position_embeddings: 40960, max_window_layers: 28, model_type: "qwen3",
    num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 8, rms_norm_eps: 1e-6, rope_scaling: null,
    rope_theta: 1000000, sliding_window: null, tie_word_embeddings: true, torch_dtype: "bfloat16", use_sliding_window: false,
    vocab_size: 151936,
  };
  assert.deepEqual(fromHfConfig(qwen3), presetConfig("qwen3-1.7b"));
  assert.throws(() => fromHfConfig({ ...qwen3, attention_bias: true }), /biases are not supported for qwen3/);
  // SmolLM2-135M-Instruct's config.json, abridged.
  const smol = {
    architectures: ["LlamaForCausalLM"], attention_bias: false, head_dim: 64, hidden_act: "silu", hidden_size: 576,
    intermediate_size: 1536, max_position_embeddings: 8192, mlp_bias: false, model_type: "llama", num_attention_heads: 9,
    num_hidden_layers: 30, num_key_value_heads: 3, rms_norm_eps: 1e-5, rope_scaling: null, rope_theta: 100000,
    tie_word_embeddings: true, torch_dtype: "float32", vocab_size: 49152,
  };
  assert.deepEqual(fromHfConfig(smol), presetConfig("smollm2-135m"));
  assert.equal("headDim" in fromHfConfig(smol), false);
  for (const name of ["tiny-qwen3", "qwen3-1.7b", "smollm2-135m"]) {
    const c = presetConfig(name);
    assert.deepEqual(fromHfConfig(JSON.parse(JSON.stringify(toHfConfig(c)))), c, name);
  }
  assert.equal(toHfConfig(presetConfig("tiny-qwen3"))["model_type"], "qwen3");
  assert.equal(toHfConfig(presetConfig("smollm2-135m"))["model_type"], "llama");
});
