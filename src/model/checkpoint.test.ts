import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../core/rng.ts";
import { CheckpointError } from "../core/errors.ts";
import { presetConfig, toHfConfig, type ModelConfig } from "./config.ts";
import { ParamStore } from "./params.ts";
import { CHECKPOINT_FORMAT_VERSION, loadCheckpoint, saveCheckpoint, type OptimizerState } from "./checkpoint.ts";
import { writeSafetensors } from "./safetensors.ts";
import { trainBpe } from "./tokenizer/train.ts";
import { Transformer } from "./transformer.ts";
import { tokenizerJsonText } from "./tokenizer/hf-json.ts";

const root = mkdtempSync(join(tmpdir(), "seed-ckpt-"));
test.after(() => rmSync(root, { recursive: true, force: true }));

const tok = trainBpe("go to the desk 1. open drawer 2. take apple from fridge 1.\n".repeat(20), { vocabSize: 300 });
const config = presetConfig("tiny", { vocabSize: 320 });

function bits(a: Float32Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

function randomOptimizer(c: ModelConfig, seed: number): OptimizerState {
  const rng = Rng.from(seed);
  const m = ParamStore.zeros(c), v = ParamStore.zeros(c);
  for (const [, t] of m.entries()) for (let i = 0; i < t.length; i++) t[i] = rng.normal() * 1e-3;
  for (const [, t] of v.entries()) for (let i = 0; i < t.length; i++) t[i] = rng.float() * 1e-6;
  return { step: 7, m: m.tensors(), v: v.tensors() };
}

test("checkpoint round-trip: weights, optimizer moments, step, RNG states, extra and tokenizer, bit for bit", () => {
  const params = ParamStore.init(config, Rng.from(1));
  const optimizer = randomOptimizer(config, 2);
  const rng = Rng.from(3);
  rng.float();
  const dir = join(root, "rt", "step-000002");
  saveCheckpoint(dir, { config, params, tokenizer: tok, optimizer, state: { rng: { sampler: rng.state() }, extra: { cursor: 5, note: "x" } } });
  const back = loadCheckpoint(dir);
  assert.deepEqual(back.config, config);
  for (const [name, t] of params.entries()) assert.deepEqual(bits(back.params.get(name)), bits(t), name);
  assert.equal(back.optimizer!.step, 7);
  for (const [name, t] of optimizer.m) assert.deepEqual(bits(back.optimizer!.m.get(name)!), bits(t));
  for (const [name, t] of optimizer.v) assert.deepEqual(bits(back.optimizer!.v.get(name)!), bits(t));
  assert.deepEqual(back.state, { rng: { sampler: rng.state() }, extra: { cursor: 5, note: "x" } });
  assert.equal(tokenizerJsonText(back.tokenizer!), tokenizerJsonText(tok));
  assert.equal(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).formatVersion, CHECKPOINT_FORMAT_VERSION);
});

test("saving over a checkpoint replaces it; a failed save leaves the old one intact and no temp files", () => {
  const parent = join(root, "atomic");
  const dir = join(parent, "ckpt");
  const a = ParamStore.init(config, Rng.from(10)), b = ParamStore.init(config, Rng.from(11));
  saveCheckpoint(dir, { config, params: a });
  saveCheckpoint(dir, { config, params: b });
  assert.deepEqual(bits(loadCheckpoint(dir).params.get("model.norm.weight")), bits(b.get("model.norm.weight")));
  assert.deepEqual(bits(loadCheckpoint(dir).params.get("model.embed_tokens.weight")), bits(b.get("model.embed_tokens.weight")));
  const broken = { step: 1, m: new Map<string, Float32Array>(), v: new Map<string, Float32Array>() };
  assert.throws(() => saveCheckpoint(dir, { config, params: a, optimizer: broken }), (e: unknown) => e instanceof CheckpointError && /lacks m\./.test(e.message));
  assert.deepEqual(bits(loadCheckpoint(dir).params.get("model.embed_tokens.weight")), bits(b.get("model.embed_tokens.weight")));
  assert.deepEqual(readdirSync(parent), ["ckpt"]);
});

/** A Hugging Face style directory: bf16 weights in two shards with an index, tied embeddings, a stray rotary buffer. */
function writeHfDir(dir: string, c: ModelConfig, params: ParamStore): void {
  mkdirSync(dir, { recursive: true });
  const hf = toHfConfig(c);
  delete hf["seed_qkv_bias"];
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...hf, torch_dtype: "bfloat16", transformers_version: "4.43.1", use_sliding_window: false, sliding_window: 32768 }));
  const names = params.specs.map((s) => s.name);
  const half = Math.ceil(names.length / 2);
  const weightMap: Record<string, string> = {};
  const shards = [names.slice(0, half), names.slice(half)];
  shards.forEach((group, i) => {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    const m = new Map<string, { data: Float32Array; shape: readonly number[] }>();
    for (const s of params.specs.filter((s) => group.includes(s.name))) {
      m.set(s.name, { data: params.get(s.name), shape: s.shape });
      weightMap[s.name] = file;
    }
    if (i === 0) {
      m.set("model.layers.0.self_attn.rotary_emb.inv_freq", { data: new Float32Array(4), shape: [4] });
      weightMap["model.layers.0.self_attn.rotary_emb.inv_freq"] = file;
    }
    writeSafetensors(join(dir, file), m, { dtype: "BF16", metadata: { format: "pt" } });
  });
  writeFileSync(join(dir, "model.safetensors.index.json"), JSON.stringify({ metadata: { total_size: 0 }, weight_map: weightMap }));
  writeFileSync(join(dir, "tokenizer.json"), tokenizerJsonText(tok));
}

test("a Hugging Face Qwen2 directory (sharded bf16, index, tied embeddings) loads with the same code", () => {
  const dir = join(root, "hf");
  const params = ParamStore.init(config, Rng.from(4));
  writeHfDir(dir, config, params);
  const ck = loadCheckpoint(dir);
  assert.equal(ck.config.dtype, "bf16");
  assert.equal(ck.config.qkvBias, true);
  assert.equal(ck.optimizer, null);
  assert.equal(ck.state, null);
  assert.equal(ck.tokenizer!.vocabSize, tok.vocabSize);
  for (const [name, t] of params.entries()) {
    const got = ck.params.get(name);
    for (let i = 0; i < t.length; i++) assert.ok(Math.abs(got[i]! - t[i]!) <= Math.abs(t[i]!) * 2 ** -8, `${name}[${i}] bf16-rounded`);
  }
  assert.equal(loadCheckpoint(dir, { dtype: "f32" }).config.dtype, "f32");
});

function expectError(fn: () => unknown, file: string, problem: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CheckpointError, String(e));
    assert.ok(e.message.includes(file), `names ${file}: ${e.message}`);
    assert.match(e.message, problem);
    return true;
  });
}

test("mismatched, missing and corrupt parts give CheckpointErrors naming the file", () => {
  const dir = join(root, "bad");
  const params = ParamStore.init(config, Rng.from(5));
  const save = () => saveCheckpoint(dir, { config, params, tokenizer: tok, optimizer: randomOptimizer(config, 6), state: { rng: {}, extra: null } });
  save();
  // config.json says a wider model than the weights hold
  writeFileSync(join(dir, "config.json"), JSON.stringify(toHfConfig({ ...config, ffnSize: 64 })));
  expectError(() => loadCheckpoint(dir), "model.safetensors", /tensor model\.layers\.0\.mlp\.down_proj\.weight has shape \[32, 48\], config\.json implies \[32, 64\]/);
  writeFileSync(join(dir, "config.json"), JSON.stringify(toHfConfig({ ...config, nLayers: 1 })));
  expectError(() => loadCheckpoint(dir), "model.safetensors", /has tensor model\.layers\.1\..*does not call for/);
  writeFileSync(join(dir, "config.json"), JSON.stringify(toHfConfig({ ...config, nLayers: 3 })));
  expectError(() => loadCheckpoint(dir), "bad", /weights lack .* model\.layers\.2\./);
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...toHfConfig(config), hidden_act: "gelu" }));
  expectError(() => loadCheckpoint(dir), "config.json", /hidden_act/);
  writeFileSync(join(dir, "config.json"), "{");
  expectError(() => loadCheckpoint(dir), "config.json", /not valid JSON/);
  save();
  writeFileSync(join(dir, "state.json"), JSON.stringify({ formatVersion: 99, rng: {}, extra: null }));
  expectError(() => loadCheckpoint(dir), "state.json", /formatVersion 99 is written by a newer version/);
  writeFileSync(join(dir, "state.json"), JSON.stringify({ formatVersion: CHECKPOINT_FORMAT_VERSION, rng: { a: [1, 2] } }));
  expectError(() => loadCheckpoint(dir), "state.json", /rng\.a is not four/);
  // The recorded checksums catch these first; without them (older checkpoints) parsing does.
  const withoutChecksums = () => {
    const st = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
    delete st.checksums;
    writeFileSync(join(dir, "state.json"), JSON.stringify(st));
  };
  save();
  const model = readFileSync(join(dir, "model.safetensors"));
  writeFileSync(join(dir, "model.safetensors"), model.subarray(0, model.length - 100));
  expectError(() => loadCheckpoint(dir), "model.safetensors", /is corrupt: its SHA-256/);
  withoutChecksums();
  expectError(() => loadCheckpoint(dir), "model.safetensors", /truncated/);
  save();
  writeSafetensors(join(dir, "optimizer.safetensors"), new Map([["m.x", { data: new Float32Array(1), shape: [1] }]]), { metadata: { step: "-1" } });
  expectError(() => loadCheckpoint(dir), "optimizer.safetensors", /is corrupt/);
  withoutChecksums();
  expectError(() => loadCheckpoint(dir), "optimizer.safetensors", /step "-1"/);
  saveCheckpoint(dir, { config: { ...config, vocabSize: 200 }, params: ParamStore.init({ ...config, vocabSize: 200 }, Rng.from(1)), tokenizer: tok });
  expectError(() => loadCheckpoint(dir), "tokenizer.json", /has \d+ tokens but config\.json's vocab_size is 200/);
  save();
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify({ model: { type: "Unigram" } }));
  expectError(() => loadCheckpoint(dir), "tokenizer.json", /only BPE/);
  rmSync(join(dir, "model.safetensors"));
  expectError(() => loadCheckpoint(dir), "model.safetensors", /is missing \(state\.json records its checksum\)/);
  withoutChecksums();
  expectError(() => loadCheckpoint(dir), "bad", /neither model\.safetensors nor/);
  expectError(() => loadCheckpoint(join(root, "nowhere")), "nowhere", /no such checkpoint directory/);
  assert.ok(!existsSync(join(root, "nowhere")));
});

test("the format-version-1 fixture still loads and computes what it computed when written", () => {
  // Written by an early version of this code: a 1-layer model after one AdamW step, with the
  // log-probs of `extra.tokens` it gave then. Keep this fixture; add one per new formatVersion.
  const ck = loadCheckpoint(join(import.meta.dirname, "testdata", "checkpoint-v1"));
  assert.equal(ck.optimizer!.step, 1);
  assert.deepEqual(ck.state!.rng["data"], Rng.from(7).state());
  const extra = ck.state!.extra as { tokens: number[]; logprobs: number[] };
  const model = new Transformer(ck.config, ck.params);
  const [lp] = model.logprobs([{ tokens: extra.tokens, start: 1 }]);
  for (let i = 0; i < lp!.length; i++) assert.ok(Math.abs(lp![i]! - extra.logprobs[i]!) < 1e-4, `position ${i}`);
  assert.equal(ck.tokenizer!.decode(extra.tokens), "go to desk 1. open drawer 2.");
});

test("each checkpoint records the SHA-256 of its weights; a flipped bit anywhere is an error naming the file", () => {
  const dir = join(root, "checksum");
  saveCheckpoint(dir, { config, params: ParamStore.init(config, Rng.from(21)), tokenizer: tok, optimizer: randomOptimizer(config, 22), state: { rng: {}, extra: null } });
  const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
  assert.deepEqual(Object.keys(state.checksums).sort(), ["model.safetensors", "optimizer.safetensors"]);
  loadCheckpoint(dir);
  for (const file of ["model.safetensors", "optimizer.safetensors"]) {
    const path = join(dir, file);
    const good = readFileSync(path);
    // One bit in the tensor data (past the header), and one in the header.
    for (const at of [good.length - 5, 9]) {
      const bad = Buffer.from(good);
      bad[at] = bad[at]! ^ 0x04;
      writeFileSync(path, bad);
      assert.throws(() => loadCheckpoint(dir), (e: unknown) => e instanceof CheckpointError && e.path === path && /is corrupt: its SHA-256 is [0-9a-f]{16}\.\.\., state\.json records/.test(e.message), `${file} @${at}`);
    }
    writeFileSync(path, good);
  }
  loadCheckpoint(dir);
  // A checkpoint written before checksums were recorded (no `checksums` in state.json) still loads.
  delete state.checksums;
  writeFileSync(join(dir, "state.json"), JSON.stringify(state));
  loadCheckpoint(dir);
  state.checksums = { "model.safetensors": "nonsense" };
  writeFileSync(join(dir, "state.json"), JSON.stringify(state));
  assert.throws(() => loadCheckpoint(dir), /checksums\.model\.safetensors is not the SHA-256/);
});

test("NaN or infinite weights are an error naming the checkpoint file and the tensor", () => {
  const dir = join(root, "nan");
  const params = ParamStore.init(config, Rng.from(23));
  params.get("model.norm.weight")[3] = Number.NaN;
  params.get("model.norm.weight")[5] = Number.POSITIVE_INFINITY;
  saveCheckpoint(dir, { config, params, tokenizer: tok });
  assert.throws(() => loadCheckpoint(dir), (e: unknown) => e instanceof CheckpointError && e.path === join(dir, "model.safetensors") && /tensor model\.norm\.weight holds 2 non-finite value\(s\) \(the first, NaN, at index 3\); the checkpoint is unusable/.test(e.message));
});
