import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../core/rng.ts";
import { CheckpointError } from "../core/errors.ts";
import { readSafetensors, readSafetensorsHeader, writeSafetensors } from "./safetensors.ts";

const dir = mkdtempSync(join(tmpdir(), "seed-st-"));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function randomTensors(seed: number): Map<string, { data: Float32Array; shape: number[] }> {
  const rng = Rng.from(seed);
  const m = new Map<string, { data: Float32Array; shape: number[] }>();
  for (const [name, shape] of [["b.weight", [3, 5]], ["a.bias", [7]], ["scalar", []], ["empty", [0, 4]]] as const) {
    const n = shape.reduce((x: number, y: number) => x * y, 1);
    m.set(name, { data: Float32Array.from({ length: n }, () => rng.normal()), shape: [...shape] });
  }
  return m;
}

/** A file with a hand-made header and `dataBytes` zero bytes of data. */
function rawFile(name: string, header: unknown, dataBytes: number, headerText?: string): string {
  const json = new TextEncoder().encode(headerText ?? JSON.stringify(header));
  const buf = new Uint8Array(8 + json.length + dataBytes);
  new DataView(buf.buffer).setBigUint64(0, BigInt(json.length), true);
  buf.set(json, 8);
  const p = join(dir, name);
  writeFileSync(p, buf);
  return p;
}

function assertCheckpointError(fn: () => unknown, path: string, problem: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CheckpointError, `expected CheckpointError, got ${String(e)}`);
    assert.ok(e.message.startsWith(path), `message names the file: ${e.message}`);
    assert.match(e.message, problem);
    return true;
  });
}

test("F32 round-trips bit for bit, with metadata, shapes and an 8-byte aligned header", () => {
  const p = join(dir, "f32.safetensors");
  const src = randomTensors(1);
  writeSafetensors(p, src, { metadata: { step: "12", format: "seed" } });
  const { tensors, header } = readSafetensors(p);
  assert.deepEqual(header.metadata, { step: "12", format: "seed" });
  for (const [name, t] of src) {
    assert.deepEqual(header.tensors.get(name)!.shape, t.shape);
    assert.deepEqual(new Uint32Array(tensors.get(name)!.buffer), new Uint32Array(t.data.buffer));
  }
  const headerLen = Number(readFileSync(p).readBigUInt64LE(0));
  assert.equal((8 + headerLen) % 8, 0);
});

test("BF16 and F16 are written rounded to nearest even and widen back exactly", () => {
  const values = Float32Array.from([0, -0, 1, -2.5, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 65504, 70000, 2 ** -24, 2 ** -26, Infinity, -Infinity, 3.140625]);
  const src = new Map([["x", { data: values, shape: [values.length] }]]);
  const bf = join(dir, "bf16.safetensors"), hf = join(dir, "f16.safetensors");
  writeSafetensors(bf, src, { dtype: "BF16" });
  writeSafetensors(hf, src, { dtype: "F16" });
  assert.equal(readSafetensorsHeader(bf).tensors.get("x")!.dtype, "BF16");
  // bf16 keeps 7 mantissa bits (spacing 2^-7 at 1): 1+2^-8 is a tie that rounds to even (1), and
  // 1+3*2^-8 a tie that rounds to even (1+2^-6); 65504 and 70000 round to multiples of 2^8 / 2^9.
  const b = readSafetensors(bf).tensors.get("x")!;
  assert.deepEqual(Array.from(b), [0, -0, 1, -2.5, 1, 1 + 2 ** -6, 65536, 70144, 2 ** -24, 2 ** -26, Infinity, -Infinity, 3.140625]);
  // f16: max 65504, overflow to Infinity, 2^-24 is the smallest subnormal, 2^-26 underflows to 0.
  const h = readSafetensors(hf).tensors.get("x")!;
  assert.deepEqual(Array.from(h), [0, -0, 1, -2.5, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 65504, Infinity, 2 ** -24, 0, Infinity, -Infinity, 3.140625]);
  const nan = new Map([["n", { data: Float32Array.from([NaN]), shape: [1] }]]);
  writeSafetensors(bf, nan, { dtype: "BF16" });
  assert.ok(Number.isNaN(readSafetensors(bf).tensors.get("n")![0]));
});

test("reading a subset by name; an unknown name is an error naming the file", () => {
  const p = join(dir, "subset.safetensors");
  writeSafetensors(p, randomTensors(2));
  assert.deepEqual([...readSafetensors(p, ["a.bias"]).tensors.keys()], ["a.bias"]);
  assertCheckpointError(() => readSafetensors(p, ["nope"]), p, /no tensor named nope/);
});

test("a truncated file is a CheckpointError naming the file", () => {
  const p = join(dir, "good.safetensors");
  writeSafetensors(p, randomTensors(3));
  const bytes = readFileSync(p);
  const cut = join(dir, "cut.safetensors");
  writeFileSync(cut, bytes.subarray(0, bytes.length - 10));
  assertCheckpointError(() => readSafetensors(cut), cut, /truncated/);
  writeFileSync(cut, bytes.subarray(0, 5));
  assertCheckpointError(() => readSafetensors(cut), cut, /truncated: 5 bytes/);
  writeFileSync(cut, bytes.subarray(0, 40));
  assertCheckpointError(() => readSafetensors(cut), cut, /truncated: header says/);
});

test("bad header JSON, bad offsets, overlaps, holes, shape mismatch and unknown dtype are each named", () => {
  let p = rawFile("json.safetensors", null, 0, "{\"x\": [");
  assertCheckpointError(() => readSafetensors(p), p, /bad header JSON/);
  p = rawFile("notobj.safetensors", [1, 2], 0);
  assertCheckpointError(() => readSafetensors(p), p, /bad header JSON: not an object/);
  p = rawFile("past.safetensors", { x: { dtype: "F32", shape: [4], data_offsets: [0, 16] } }, 8);
  assertCheckpointError(() => readSafetensors(p), p, /truncated: tensor x ends at data byte 16/);
  p = rawFile("neg.safetensors", { x: { dtype: "F32", shape: [1], data_offsets: [8, 4] } }, 8);
  assertCheckpointError(() => readSafetensors(p), p, /data_offsets \[8,4\]/);
  p = rawFile("overlap.safetensors", { x: { dtype: "F32", shape: [2], data_offsets: [0, 8] }, y: { dtype: "F32", shape: [2], data_offsets: [4, 12] } }, 12);
  assertCheckpointError(() => readSafetensors(p), p, /overlaps/);
  p = rawFile("hole.safetensors", { x: { dtype: "F32", shape: [1], data_offsets: [4, 8] } }, 8);
  assertCheckpointError(() => readSafetensors(p), p, /hole of 4/);
  p = rawFile("tail.safetensors", { x: { dtype: "F32", shape: [1], data_offsets: [0, 4] } }, 8);
  assertCheckpointError(() => readSafetensors(p), p, /4 unindexed bytes after/);
  p = rawFile("shape.safetensors", { x: { dtype: "F32", shape: [3, 2], data_offsets: [0, 16] } }, 16);
  assertCheckpointError(() => readSafetensors(p), p, /shape \[3, 2\] of F32 needs 24 bytes but data_offsets span 16/);
  p = rawFile("dtype.safetensors", { x: { dtype: "I64", shape: [2], data_offsets: [0, 16] } }, 16);
  assertCheckpointError(() => readSafetensors(p), p, /dtype "I64" is not supported/);
  p = rawFile("meta.safetensors", { __metadata__: { step: 3 } }, 0);
  assertCheckpointError(() => readSafetensors(p), p, /__metadata__.step is not a string/);
  p = rawFile("huge.safetensors", {}, 0);
  const bytes = readFileSync(p);
  new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(0, 2n ** 40n, true);
  writeFileSync(p, bytes);
  assertCheckpointError(() => readSafetensors(p), p, /over the 100 MB limit/);
  const missing = join(dir, "missing.safetensors");
  assertCheckpointError(() => readSafetensors(missing), missing, /cannot open/);
});

test("writing rejects a tensor whose length disagrees with its shape", () => {
  const p = join(dir, "bad-write.safetensors");
  assertCheckpointError(() => writeSafetensors(p, new Map([["x", { data: new Float32Array(5), shape: [2, 3] }]])), p, /5 elements but shape \[2, 3\]/);
});
