// The GGUF container: a file written by our writer (every metadata value type, tensors, a
// non-default alignment) parses back to the same values and offsets; broken files are clear errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CheckpointError } from "../../core/errors.ts";
import { GGML_TYPE } from "./dequant.ts";
import { GGUF_VALUE, metaValue, parseGguf } from "./reader.ts";
import { encodeGguf, type GgufMetaEntry } from "./writer.ts";

const V = GGUF_VALUE;
const META: GgufMetaEntry[] = [
  { key: "u8", type: V.UINT8, value: 250 }, { key: "i8", type: V.INT8, value: -5 },
  { key: "u16", type: V.UINT16, value: 65000 }, { key: "i16", type: V.INT16, value: -30000 },
  { key: "u32", type: V.UINT32, value: 4000000000 }, { key: "i32", type: V.INT32, value: -2000000000 },
  { key: "f32", type: V.FLOAT32, value: 0.5 }, { key: "f64", type: V.FLOAT64, value: Math.PI },
  { key: "u64", type: V.UINT64, value: 2n ** 60n }, { key: "i64", type: V.INT64, value: -(2n ** 40n) },
  { key: "yes", type: V.BOOL, value: true }, { key: "name", type: V.STRING, value: "héllo ✓" },
  { key: "list", type: V.ARRAY, itemType: V.STRING, value: ["a", "", "ü"] },
  { key: "nums", type: V.ARRAY, itemType: V.INT32, value: [1, -2, 3] },
  { key: "general.alignment", type: V.UINT32, value: 64 },
];

test("GGUF: metadata of every value type, tensor infos and aligned offsets read back", () => {
  const a = new Uint8Array(5 * 4).fill(1), b = new Uint8Array(3 * 34).fill(2);
  const bytes = encodeGguf(META, [
    { name: "a", dims: [5], type: GGML_TYPE.F32, data: a },
    { name: "b.weight", dims: [32, 3], type: GGML_TYPE.Q8_0, data: b },
  ], 64);
  const f = parseGguf(bytes, "t.gguf");
  assert.equal(f.version, 3);
  assert.equal(f.alignment, 64);
  for (const m of META) assert.deepEqual(f.metadata.get(m.key), m.value, m.key);
  assert.deepEqual(f.metadataTypes.get("list"), { type: V.ARRAY, itemType: V.STRING });
  assert.deepEqual(f.metadataTypes.get("f32"), { type: V.FLOAT32 });
  assert.equal(f.dataOffset % 64, 0);
  const ta = f.tensors.get("a")!, tb = f.tensors.get("b.weight")!;
  assert.deepEqual([ta.dims, ta.type], [[5], GGML_TYPE.F32]);
  assert.deepEqual([tb.dims, tb.type], [[32, 3], GGML_TYPE.Q8_0]);
  assert.equal(ta.fileOffset, f.dataOffset);
  assert.equal(tb.fileOffset, f.dataOffset + 64); // 20 bytes padded to the alignment
  assert.deepEqual([...bytes.subarray(tb.fileOffset, tb.fileOffset + b.length)], [...b]);
  assert.equal(metaValue(f, "t.gguf", "u64", "number"), 2 ** 60);
  assert.throws(() => metaValue(f, "t.gguf", "name", "number"), /metadata name is not a number/);
  assert.throws(() => metaValue(f, "t.gguf", "absent", "string"), /lacks metadata absent/);
});

test("GGUF: bad magic, unsupported version, truncation and misaligned offsets are errors naming the file", () => {
  const good = encodeGguf(META, [{ name: "a", dims: [4], type: GGML_TYPE.F32, data: new Uint8Array(16) }], 64);
  assert.throws(() => parseGguf(new TextEncoder().encode("PK\u0003\u0004 not gguf"), "x.bin"), (e: unknown) => e instanceof CheckpointError && /x\.bin.*not a GGUF file/.test(e.message));
  const v9 = good.slice();
  new DataView(v9.buffer).setUint32(4, 9, true);
  assert.throws(() => parseGguf(v9, "v9.gguf"), /GGUF version 9 is not supported/);
  assert.throws(() => parseGguf(good.subarray(0, 200), "cut.gguf"), /cut\.gguf.*truncated/);
  const bad = encodeGguf([], [{ name: "a", dims: [4], type: GGML_TYPE.F32, data: new Uint8Array(16) }], 32);
  // Header (24 bytes), then the one tensor info: name (8 + 1), n_dims (4), dims (8), type (4), offset at byte 49.
  assert.equal(parseGguf(bad, "ok.gguf").tensors.get("a")!.dims[0], 4);
  new DataView(bad.buffer).setBigUint64(49, 4n, true);
  assert.throws(() => parseGguf(bad, "mis.gguf"), /offset 4 is not a multiple of the alignment 32/);
});
