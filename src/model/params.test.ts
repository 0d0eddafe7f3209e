// Parameter store: Hugging Face Qwen2 names and shapes, seeded init, and clear errors for
// tensors that do not match the config.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { ShapeError } from "../core/errors.ts";
import { parameterCount, presetConfig } from "./config.ts";
import { ParamStore, paramSpecs } from "./params.ts";

test("names and shapes follow Hugging Face Qwen2 ([out, in] Linear weights)", () => {
  const c = presetConfig("tiny"); // D 32, 4 heads, 2 kv heads (KV 16), F 48, V 64, tied, biases
  const s = new Map(paramSpecs(c).map((t) => [t.name, t.shape]));
  assert.deepEqual(s.get("model.embed_tokens.weight"), [64, 32]);
  assert.deepEqual(s.get("model.layers.1.self_attn.q_proj.weight"), [32, 32]);
  assert.deepEqual(s.get("model.layers.1.self_attn.k_proj.weight"), [16, 32]);
  assert.deepEqual(s.get("model.layers.1.self_attn.v_proj.bias"), [16]);
  assert.deepEqual(s.get("model.layers.0.mlp.gate_proj.weight"), [48, 32]);
  assert.deepEqual(s.get("model.layers.0.mlp.down_proj.weight"), [32, 48]);
  assert.deepEqual(s.get("model.norm.weight"), [32]);
  assert.equal(s.has("lm_head.weight"), false);
  assert.equal(s.has("model.layers.0.self_attn.o_proj.bias"), false);
  const untied = paramSpecs(presetConfig("tiny", { tiedEmbeddings: false, qkvBias: false }));
  assert.ok(untied.some((t) => t.name === "lm_head.weight"));
  assert.ok(!untied.some((t) => t.name.endsWith(".bias")));
  assert.equal(ParamStore.zeros(c).size(), parameterCount(c));
});

test("init is seeded (same seed, same weights), norms are ones, biases zeros, matrices std ~0.02", () => {
  const c = presetConfig("tiny");
  const a = ParamStore.init(c, Rng.from(1)), b = ParamStore.init(c, Rng.from(1)), d = ParamStore.init(c, Rng.from(2));
  for (const [n, t] of a.entries()) assert.deepEqual(t, b.get(n));
  assert.notDeepEqual(a.get("model.embed_tokens.weight"), d.get("model.embed_tokens.weight"));
  assert.ok(a.get("model.layers.0.input_layernorm.weight").every((x) => x === 1));
  assert.ok(a.get("model.layers.0.self_attn.q_proj.bias").every((x) => x === 0));
  const e = a.get("model.embed_tokens.weight");
  const std = Math.sqrt(e.reduce((s, x) => s + x * x, 0) / e.length);
  assert.ok(Math.abs(std - 0.02) < 0.002, `std ${std}`);
});

test("fromTensors names every missing, mis-sized or unexpected tensor", () => {
  const c = presetConfig("tiny");
  const good = ParamStore.init(c, Rng.from(3));
  const m = new Map(good.tensors());
  assert.equal(ParamStore.fromTensors(c, m).get("model.norm.weight"), good.get("model.norm.weight"));
  m.set("lm_head.weight", new Float32Array(64 * 32)); // tied: an extra head copy is ignored
  assert.doesNotThrow(() => ParamStore.fromTensors(c, m));
  m.delete("model.norm.weight");
  m.set("model.layers.0.mlp.up_proj.weight", new Float32Array(5));
  m.set("model.layers.9.junk", new Float32Array(1));
  assert.throws(() => ParamStore.fromTensors(c, m), (e: unknown) => e instanceof ShapeError
    && /missing tensor model\.norm\.weight/.test(e.message) && /up_proj\.weight has 5 elements, expected \[48, 32\]/.test(e.message)
    && /unexpected tensor model\.layers\.9\.junk/.test(e.message));
  assert.throws(() => good.get("nope"), ShapeError);
});

test("clone is deep; copyFrom copies in place", () => {
  const c = presetConfig("tiny");
  const a = ParamStore.init(c, Rng.from(4)), b = a.clone();
  b.get("model.norm.weight")[0] = 7;
  assert.equal(a.get("model.norm.weight")[0], 1);
  a.copyFrom(b);
  assert.equal(a.get("model.norm.weight")[0], 7);
});
