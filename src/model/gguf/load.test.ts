// A tiny Llama model written as llama.cpp's converter writes it (q/k rows permuted, dims
// fastest-first, no output tensor when tied) loads back as the same config, weights and logits,
// also out of a zip (stored or deflated); `seed model import-gguf` writes a checkpoint that loads
// the same; files we cannot load faithfully are clear errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../../core/rng.ts";
import { presetConfig } from "../config.ts";
import { loadCheckpoint } from "../checkpoint.ts";
import { KvCache } from "../kv-cache.ts";
import { ParamStore } from "../params.ts";
import { Transformer } from "../transformer.ts";
import { GGML_TYPE } from "./dequant.ts";
import { loadGguf } from "./load.ts";
import { GGUF_VALUE } from "./reader.ts";
import { makeZip, TINY_GGUF_VOCAB, tinyLlamaGguf } from "../../testing/tiny-gguf.ts";
import { command as modelCommand } from "../../cli/commands/model.ts";

const CFG = presetConfig("tiny", { arch: "llama", qkvBias: false, vocabSize: 288, dModel: 64, ffnSize: 96, nHeads: 4, nKvHeads: 2, ropeTheta: 100000, rmsNormEps: 1e-5 });

function randomParams(seed: number): ParamStore {
  const p = ParamStore.init(CFG, Rng.from(seed), 0.1);
  const rng = Rng.from(seed + 1);
  for (const [name, t] of p.entries()) if (name.endsWith("norm.weight")) for (let i = 0; i < t.length; i++) t[i] = 1 + 0.2 * rng.normal();
  return p;
}

function withDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "seed-gguf-"));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function logitsOf(cfg: typeof CFG, params: ParamStore, ids: number[]): Float32Array[] {
  const cache = new KvCache(new Transformer(cfg, params), 1);
  return ids.map((id) => cache.append([0], [[id]]).slice());
}

test("GGUF load: config, every weight (q/k un-permuted) and the logits equal the model that was written", () => {
  assert.ok(CFG.vocabSize >= TINY_GGUF_VOCAB);
  const p = randomParams(1);
  withDir((dir) => {
    const path = join(dir, "tiny.gguf");
    writeFileSync(path, tinyLlamaGguf(CFG, p));
    const m = loadGguf(path);
    assert.deepEqual(m.config, CFG);
    for (const [name, t] of p.entries()) assert.deepEqual(m.params.get(name), t, name);
    assert.equal(m.name, "tiny");
    assert.equal(m.storedTypes.get("model.layers.0.self_attn.q_proj.weight"), GGML_TYPE.F32);
    const ids = [5, 70, 200, 3, 9, 100];
    const want = logitsOf(CFG, p, ids), got = logitsOf(m.config, m.params, ids);
    want.forEach((w, i) => assert.deepEqual(got[i], w));
  });
});

test("GGUF load: Q8_0 and Q4_1 matrices dequantise close to the originals and keep the logits close", () => {
  const p = randomParams(2);
  withDir((dir) => {
    for (const [type, tol] of [[GGML_TYPE.Q8_0, 0.002], [GGML_TYPE.Q4_1, 0.03]] as const) {
      const path = join(dir, `t${type}.gguf`);
      writeFileSync(path, tinyLlamaGguf(CFG, p, type));
      const m = loadGguf(path);
      assert.equal(m.storedTypes.get("model.layers.1.mlp.down_proj.weight"), type);
      for (const [name, t] of p.entries()) {
        const got = m.params.get(name);
        let worst = 0;
        for (let i = 0; i < t.length; i++) worst = Math.max(worst, Math.abs(got[i]! - t[i]!));
        assert.ok(worst <= tol, `${name}: ${worst}`);
      }
    }
  });
});

test("GGUF load: read straight out of a zip / wheel, stored or deflated; archives without exactly one .gguf are refused", () => {
  const p = randomParams(3);
  const gguf = tinyLlamaGguf(CFG, p);
  withDir((dir) => {
    for (const deflate of [false, true]) {
      const whl = join(dir, `m-${deflate}.whl`);
      writeFileSync(whl, makeZip([{ name: "pkg/__init__.py", data: new TextEncoder().encode("x = 1\n"), deflate }, { name: "pkg/tiny.gguf", data: gguf, deflate }]));
      const m = loadGguf(whl);
      assert.deepEqual(m.params.get("model.layers.1.self_attn.k_proj.weight"), p.get("model.layers.1.self_attn.k_proj.weight"));
    }
    const none = join(dir, "none.zip");
    writeFileSync(none, makeZip([{ name: "a.txt", data: new Uint8Array(3), deflate: false }]));
    assert.throws(() => loadGguf(none), /none\.zip: is a zip archive with 0 \.gguf members/);
  });
});

test("GGUF load: another architecture, rope scaling, or tensors that disagree with the metadata are errors naming the file", () => {
  const p = randomParams(4);
  const S = GGUF_VALUE.STRING;
  withDir((dir) => {
    const write = (name: string, bytes: Uint8Array) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    };
    const scaled = write("scaled.gguf", tinyLlamaGguf(CFG, p, GGML_TYPE.F32, [{ key: "llama.rope.scaling.type", type: S, value: "linear" }]));
    assert.throws(() => loadGguf(scaled), /scaled\.gguf: llama\.rope\.scaling\.type "linear" is not supported/);
    // Metadata that disagrees with the tensors: 128-wide MLP tensors, feed_forward_length patched to 96.
    const bytes = tinyLlamaGguf({ ...CFG, ffnSize: 128 }, ParamStore.init({ ...CFG, ffnSize: 128 }, Rng.from(1)));
    const lie = Buffer.from(bytes);
    const key = Buffer.from("llama.feed_forward_length");
    const at = lie.indexOf(key) + key.length + 4; // after the key and its u32 value type
    lie.writeUInt32LE(96, at);
    assert.throws(() => loadGguf(write("lie.gguf", lie)), /lie\.gguf: tensor blk\.0\.ffn_gate\.weight has dims \[64, 128\], the metadata implies \[64, 96\]/);
    const arch = Buffer.from(tinyLlamaGguf(CFG, p));
    const a = arch.indexOf(Buffer.from("llama", "latin1"), arch.indexOf(Buffer.from("general.architecture")) + 20);
    arch.write("qwen3", a, "latin1");
    assert.throws(() => loadGguf(write("arch.gguf", arch)), /arch\.gguf: general\.architecture "qwen3" is not supported/);
  });
});

test("seed model import-gguf writes a checkpoint folder that loads as the same model and tokenizer", async () => {
  const p = randomParams(5);
  const dir = mkdtempSync(join(tmpdir(), "seed-gguf-"));
  try {
    const src = join(dir, "tiny.gguf"), out = join(dir, "ckpt");
    writeFileSync(src, tinyLlamaGguf(CFG, p));
    const log = console.log;
    const lines: string[] = [];
    console.log = (s: string) => lines.push(s);
    try {
      assert.equal(await modelCommand.run(["import-gguf", src, "--out", out, "--context", "32"]), 0);
    } finally {
      console.log = log;
    }
    assert.match(lines.join("\n"), /imported tiny: llama, .*checkpoint: /s);
    const ck = loadCheckpoint(out);
    assert.deepEqual(ck.config, { ...CFG, maxContext: 32 });
    for (const [name, t] of p.entries()) assert.deepEqual(ck.params.get(name), t, name);
    const m = loadGguf(src);
    assert.equal(ck.tokenizer!.eosId, m.tokenizer.eosId);
    assert.deepEqual(ck.tokenizer!.encode("hello world 12 <act>"), m.tokenizer.encode("hello world 12 <act>"));
    await assert.rejects(modelCommand.run(["import-gguf", src]), /missing required option --out/);
    await assert.rejects(modelCommand.run(["convert", src, "--out", out]), /unknown action 'convert'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
