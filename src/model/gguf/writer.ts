/**
 * Writing GGUF files (the layout `reader.ts` parses), and encoding f32 into the ggml types we
 * read. Used by the tests (small GGUF files built in memory) and by the llama.cpp comparison (an
 * F32 copy of a quantised model, to separate llama.cpp's activation rounding from our forward).
 * The quantisers follow llama.cpp's reference ones (per block of 32: Q8_0 d = max|x| / 127;
 * Q4_1 d = (max - min) / 15, m = min; Q4_0 d = signed max / -8).
 */
import { writeFileSync } from "node:fs";
import { floatToHalf, GGML_TYPE } from "./dequant.ts";
import { GGUF_VALUE, type GgufValue } from "./reader.ts";

/** One metadata entry to write: key, value type (`GGUF_VALUE`), item type for arrays, value. */
export type GgufMetaEntry = { readonly key: string; readonly type: number; readonly itemType?: number; readonly value: GgufValue };

/** One tensor to write: dims fastest-varying first, ggml type, and its encoded bytes. */
export type GgufTensorEntry = { readonly name: string; readonly dims: readonly number[]; readonly type: number; readonly data: Uint8Array };

const ENCODER = new TextEncoder();

/** Growable little-endian byte buffer. */
class Out {
  buf = new Uint8Array(1 << 16);
  n = 0;
  private view = new DataView(this.buf.buffer);
  reserve(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
    this.view = new DataView(b.buffer);
  }
  u8(v: number) { this.reserve(1); this.view.setUint8(this.n, v); this.n += 1; }
  i8(v: number) { this.reserve(1); this.view.setInt8(this.n, v); this.n += 1; }
  u16(v: number) { this.reserve(2); this.view.setUint16(this.n, v, true); this.n += 2; }
  i16(v: number) { this.reserve(2); this.view.setInt16(this.n, v, true); this.n += 2; }
  u32(v: number) { this.reserve(4); this.view.setUint32(this.n, v, true); this.n += 4; }
  i32(v: number) { this.reserve(4); this.view.setInt32(this.n, v, true); this.n += 4; }
  f32(v: number) { this.reserve(4); this.view.setFloat32(this.n, v, true); this.n += 4; }
  f64(v: number) { this.reserve(8); this.view.setFloat64(this.n, v, true); this.n += 8; }
  u64(v: number | bigint) { this.reserve(8); this.view.setBigUint64(this.n, BigInt(v), true); this.n += 8; }
  i64(v: number | bigint) { this.reserve(8); this.view.setBigInt64(this.n, BigInt(v), true); this.n += 8; }
  bytes(b: Uint8Array) { this.reserve(b.length); this.buf.set(b, this.n); this.n += b.length; }
  str(s: string) { const b = ENCODER.encode(s); this.u64(b.length); this.bytes(b); }
  pad(align: number) { while (this.n % align !== 0) this.u8(0); }
}

function writeValue(o: Out, type: number, v: GgufValue, itemType: number | undefined, key: string): void {
  const num = () => {
    if (typeof v !== "number" && typeof v !== "bigint") throw new Error(`GGUF metadata ${key}: expected a number`);
    return Number(v);
  };
  switch (type) {
    case GGUF_VALUE.UINT8: return o.u8(num());
    case GGUF_VALUE.INT8: return o.i8(num());
    case GGUF_VALUE.UINT16: return o.u16(num());
    case GGUF_VALUE.INT16: return o.i16(num());
    case GGUF_VALUE.UINT32: return o.u32(num());
    case GGUF_VALUE.INT32: return o.i32(num());
    case GGUF_VALUE.FLOAT32: return o.f32(num());
    case GGUF_VALUE.FLOAT64: return o.f64(num());
    case GGUF_VALUE.UINT64: return o.u64(typeof v === "bigint" ? v : num());
    case GGUF_VALUE.INT64: return o.i64(typeof v === "bigint" ? v : num());
    case GGUF_VALUE.BOOL: return o.u8(v === true ? 1 : 0);
    case GGUF_VALUE.STRING:
      if (typeof v !== "string") throw new Error(`GGUF metadata ${key}: expected a string`);
      return o.str(v);
    case GGUF_VALUE.ARRAY: {
      if (!Array.isArray(v) || itemType === undefined) throw new Error(`GGUF metadata ${key}: an array needs an item type`);
      o.u32(itemType);
      o.u64(v.length);
      for (const x of v) writeValue(o, itemType, x, undefined, key);
      return;
    }
    default: throw new Error(`GGUF metadata ${key}: unknown value type ${type}`);
  }
}

/** The bytes of a GGUF (version 3) file holding `metadata` and `tensors`, tensors aligned to `alignment`. */
export function encodeGguf(metadata: readonly GgufMetaEntry[], tensors: readonly GgufTensorEntry[], alignment = 32): Uint8Array {
  const o = new Out();
  o.bytes(ENCODER.encode("GGUF"));
  o.u32(3);
  o.u64(tensors.length);
  o.u64(metadata.length);
  for (const m of metadata) {
    o.str(m.key);
    o.u32(m.type);
    writeValue(o, m.type, m.value, m.itemType, m.key);
  }
  let offset = 0;
  for (const t of tensors) {
    o.str(t.name);
    o.u32(t.dims.length);
    for (const d of t.dims) o.u64(d);
    o.u32(t.type);
    o.u64(offset);
    offset += Math.ceil(t.data.length / alignment) * alignment;
  }
  o.pad(alignment);
  for (const t of tensors) {
    o.bytes(t.data);
    o.pad(alignment);
  }
  return o.buf.slice(0, o.n);
}

/** Writes `encodeGguf(...)` to a file. */
export function writeGguf(path: string, metadata: readonly GgufMetaEntry[], tensors: readonly GgufTensorEntry[], alignment = 32): void {
  writeFileSync(path, encodeGguf(metadata, tensors, alignment));
}

/**
 * f32 values encoded as a ggml type (F32, F16, BF16, Q4_0, Q4_1, Q8_0); block types need a
 * multiple of 32 values.
 * @throws Error for another type or a length that is not whole blocks
 */
export function encodeTensor(x: Float32Array, type: number): Uint8Array {
  const blocks = (bytes: number) => {
    if (x.length % 32 !== 0) throw new Error(`${x.length} values are not whole blocks of 32`);
    return new DataView(new ArrayBuffer((x.length / 32) * bytes));
  };
  let v: DataView;
  switch (type) {
    case GGML_TYPE.F32:
      v = new DataView(new ArrayBuffer(4 * x.length));
      x.forEach((f, i) => v.setFloat32(4 * i, f, true));
      break;
    case GGML_TYPE.F16:
      v = new DataView(new ArrayBuffer(2 * x.length));
      x.forEach((f, i) => v.setUint16(2 * i, floatToHalf(f), true));
      break;
    case GGML_TYPE.BF16: {
      v = new DataView(new ArrayBuffer(2 * x.length));
      const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
      x.forEach((f, i) => {
        f32[0] = f;
        const b = u32[0]!;
        v.setUint16(2 * i, (b + 0x7fff + ((b >>> 16) & 1)) >>> 16, true); // round to nearest even
      });
      break;
    }
    case GGML_TYPE.Q8_0:
      v = blocks(34);
      for (let b = 0; b < x.length / 32; b++) {
        let amax = 0;
        for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[32 * b + j]!));
        const d = amax / 127, id = d === 0 ? 0 : 1 / d;
        v.setUint16(34 * b, floatToHalf(d), true);
        for (let j = 0; j < 32; j++) v.setInt8(34 * b + 2 + j, Math.round(x[32 * b + j]! * id));
      }
      break;
    case GGML_TYPE.Q4_1:
      v = blocks(20);
      for (let b = 0; b < x.length / 32; b++) {
        let lo = Infinity, hi = -Infinity;
        for (let j = 0; j < 32; j++) { lo = Math.min(lo, x[32 * b + j]!); hi = Math.max(hi, x[32 * b + j]!); }
        const d = (hi - lo) / 15, id = d === 0 ? 0 : 1 / d;
        v.setUint16(20 * b, floatToHalf(d), true);
        v.setUint16(20 * b + 2, floatToHalf(lo), true);
        for (let j = 0; j < 16; j++) {
          const q0 = Math.min(15, Math.trunc((x[32 * b + j]! - lo) * id + 0.5));
          const q1 = Math.min(15, Math.trunc((x[32 * b + j + 16]! - lo) * id + 0.5));
          v.setUint8(20 * b + 4 + j, q0 | (q1 << 4));
        }
      }
      break;
    case GGML_TYPE.Q4_0:
      v = blocks(18);
      for (let b = 0; b < x.length / 32; b++) {
        let amax = 0, max = 0;
        for (let j = 0; j < 32; j++) {
          const f = x[32 * b + j]!;
          if (Math.abs(f) > amax) { amax = Math.abs(f); max = f; }
        }
        const d = max / -8, id = d === 0 ? 0 : 1 / d;
        v.setUint16(18 * b, floatToHalf(d), true);
        for (let j = 0; j < 16; j++) {
          const q0 = Math.min(15, Math.trunc(x[32 * b + j]! * id + 8.5));
          const q1 = Math.min(15, Math.trunc(x[32 * b + j + 16]! * id + 8.5));
          v.setUint8(18 * b + 2 + j, q0 | (q1 << 4));
        }
      }
      break;
    default:
      throw new Error(`cannot encode ggml type ${type}`);
  }

  return new Uint8Array(v.buffer);
}
