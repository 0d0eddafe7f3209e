/**
 * The GGUF container (llama.cpp's model file, versions 2 and 3): header, metadata key/values,
 * tensor infos and the aligned data section. This file only parses the layout; turning tensor
 * bytes into f32 is `dequant.ts`, and mapping names onto our parameters is `load.ts`.
 *
 * Layout (all little-endian): "GGUF", u32 version, u64 tensor count, u64 metadata count; then each
 * key/value (string key, u32 value type, value); then each tensor info (string name, u32 number of
 * dims, u64 dims listed fastest-varying first, u32 ggml type, u64 offset into the data section);
 * then padding to `general.alignment` (default 32), then the data section.
 */
import { CheckpointError } from "../../core/errors.ts";

/** A metadata value: numbers (64-bit integers as bigint), booleans, strings, or arrays of them. */
export type GgufValue = number | bigint | boolean | string | GgufValue[];

/** A metadata value's type as the file records it. */
export type GgufValueType = { readonly type: number; readonly itemType?: number };

/** One tensor's entry in the file. */
export type GgufTensorInfo = {
  readonly name: string;
  /** Dims as the file lists them: fastest-varying first (a [out, in] matrix is listed [in, out]). */
  readonly dims: readonly number[];
  /** The ggml type id (see `GGML_TYPE` in dequant.ts). */
  readonly type: number;
  /** Byte offset of the tensor from the start of the file (data section start + its offset). */
  readonly fileOffset: number;
};

/** A parsed GGUF file over its bytes (tensors are not copied out until asked for). */
export type GgufFile = {
  readonly version: number;
  readonly metadata: ReadonlyMap<string, GgufValue>;
  /** The value type of each metadata key (`GGUF_VALUE`), and of its items for arrays: what a writer needs to copy it. */
  readonly metadataTypes: ReadonlyMap<string, GgufValueType>;
  readonly tensors: ReadonlyMap<string, GgufTensorInfo>;
  readonly alignment: number;
  /** Start of the data section in `bytes`. */
  readonly dataOffset: number;
  readonly bytes: Uint8Array;
};

/** GGUF metadata value types. */
export const GGUF_VALUE = {
  UINT8: 0, INT8: 1, UINT16: 2, INT16: 3, UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10, INT64: 11, FLOAT64: 12,
} as const;

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** A bounds-checked little-endian cursor; every overrun is a `CheckpointError` naming `source`. */
class Cursor {
  pos = 0;
  private readonly view: DataView;
  readonly bytes: Uint8Array;
  readonly source: string;
  constructor(bytes: Uint8Array, source: string) {
    this.bytes = bytes;
    this.source = source;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  fail(problem: string): never {
    throw new CheckpointError(this.source, problem);
  }
  need(n: number, what: string): void {
    if (this.pos + n > this.bytes.length) this.fail(`is truncated: ${what} at byte ${this.pos} needs ${n} bytes, the file has ${this.bytes.length}`);
  }
  u8(): number { this.need(1, "a u8"); return this.view.getUint8(this.pos++); }
  i8(): number { this.need(1, "an i8"); return this.view.getInt8(this.pos++); }
  u16(): number { this.need(2, "a u16"); const v = this.view.getUint16(this.pos, true); this.pos += 2; return v; }
  i16(): number { this.need(2, "an i16"); const v = this.view.getInt16(this.pos, true); this.pos += 2; return v; }
  u32(): number { this.need(4, "a u32"); const v = this.view.getUint32(this.pos, true); this.pos += 4; return v; }
  i32(): number { this.need(4, "an i32"); const v = this.view.getInt32(this.pos, true); this.pos += 4; return v; }
  f32(): number { this.need(4, "an f32"); const v = this.view.getFloat32(this.pos, true); this.pos += 4; return v; }
  f64(): number { this.need(8, "an f64"); const v = this.view.getFloat64(this.pos, true); this.pos += 8; return v; }
  u64(): bigint { this.need(8, "a u64"); const v = this.view.getBigUint64(this.pos, true); this.pos += 8; return v; }
  i64(): bigint { this.need(8, "an i64"); const v = this.view.getBigInt64(this.pos, true); this.pos += 8; return v; }
  /** A u64 that must fit a JS number (counts, lengths, offsets). */
  size(what: string): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${v} is too large`);
    return Number(v);
  }
  str(what: string): string {
    const n = this.size(`length of ${what}`);
    this.need(n, what);
    try {
      return DECODER.decode(this.bytes.subarray(this.pos, (this.pos += n)));
    } catch {
      return this.fail(`${what} at byte ${this.pos - n} is not valid UTF-8`);
    }
  }
}

function readValue(c: Cursor, type: number, key: string): GgufValue {
  switch (type) {
    case GGUF_VALUE.UINT8: return c.u8();
    case GGUF_VALUE.INT8: return c.i8();
    case GGUF_VALUE.UINT16: return c.u16();
    case GGUF_VALUE.INT16: return c.i16();
    case GGUF_VALUE.UINT32: return c.u32();
    case GGUF_VALUE.INT32: return c.i32();
    case GGUF_VALUE.FLOAT32: return c.f32();
    case GGUF_VALUE.FLOAT64: return c.f64();
    case GGUF_VALUE.UINT64: return c.u64();
    case GGUF_VALUE.INT64: return c.i64();
    case GGUF_VALUE.BOOL: {
      const b = c.u8();
      if (b > 1) c.fail(`metadata ${key} holds bool byte ${b}`);
      return b === 1;
    }
    case GGUF_VALUE.STRING: return c.str(`metadata ${key}`);
    case GGUF_VALUE.ARRAY: {
      const itemType = c.u32();
      const n = c.size(`length of metadata array ${key}`);
      // Each item takes at least one byte: a huge count in a short file is corruption, not a loop.
      if (n > c.bytes.length - c.pos) c.fail(`metadata array ${key} claims ${n} items, more than the bytes left`);
      const out: GgufValue[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readValue(c, itemType, key);
      return out;
    }
    default: return c.fail(`metadata ${key} has unknown value type ${type}`);
  }
}

/**
 * Parses a GGUF file held in memory.
 * @param source the file name used in errors
 * @throws CheckpointError naming `source` on a bad magic, version, truncation or inconsistency
 */
export function parseGguf(bytes: Uint8Array, source: string): GgufFile {
  const c = new Cursor(bytes, source);
  if (bytes.length < 4 || DECODER.decode(bytes.subarray(0, 4)) !== "GGUF") c.fail("is not a GGUF file (its first bytes are not \"GGUF\")");
  c.pos = 4;
  const version = c.u32();
  if (version !== 2 && version !== 3) c.fail(`GGUF version ${version} is not supported (2 or 3)`);
  const nTensors = c.size("tensor count");
  const nKv = c.size("metadata count");
  const metadata = new Map<string, GgufValue>();
  const metadataTypes = new Map<string, GgufValueType>();
  for (let i = 0; i < nKv; i++) {
    const key = c.str(`metadata key ${i}`);
    const type = c.u32();
    if (metadata.has(key)) c.fail(`metadata key ${key} appears twice`);
    const itemType = type === GGUF_VALUE.ARRAY && c.pos + 4 <= bytes.length ? new DataView(bytes.buffer, bytes.byteOffset + c.pos, 4).getUint32(0, true) : undefined;
    metadata.set(key, readValue(c, type, key));
    metadataTypes.set(key, itemType === undefined ? { type } : { type, itemType });
  }
  const align = metadata.get("general.alignment") ?? 32;
  if (typeof align !== "number" || !Number.isInteger(align) || align < 1 || (align & (align - 1)) !== 0) c.fail(`general.alignment ${String(align)} is not a power of two`);
  const infos: { name: string; dims: number[]; type: number; offset: number }[] = [];
  for (let i = 0; i < nTensors; i++) {
    const name = c.str(`tensor name ${i}`);
    const nDims = c.u32();
    if (nDims < 1 || nDims > 4) c.fail(`tensor ${name} has ${nDims} dims (1 to 4)`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(c.size(`dim ${d} of tensor ${name}`));
    const type = c.u32();
    const offset = c.size(`offset of tensor ${name}`);
    if (offset % (align as number) !== 0) c.fail(`tensor ${name} offset ${offset} is not a multiple of the alignment ${align}`);
    infos.push({ name, dims, type, offset });
  }
  const a = align as number;
  const dataOffset = Math.ceil(c.pos / a) * a;
  if (dataOffset > bytes.length) c.fail("is truncated before its data section");
  const tensors = new Map<string, GgufTensorInfo>();
  for (const t of infos) {
    if (tensors.has(t.name)) c.fail(`tensor ${t.name} appears twice`);
    tensors.set(t.name, { name: t.name, dims: t.dims, type: t.type, fileOffset: dataOffset + t.offset });
  }
  return { version, metadata, metadataTypes, tensors, alignment: a, dataOffset, bytes };
}

/** A required metadata value of one JS type, or a `CheckpointError` naming the key. */
export function metaValue<T extends "number" | "string" | "boolean" | "array">(
  file: GgufFile, source: string, key: string, kind: T,
): T extends "number" ? number : T extends "string" ? string : T extends "boolean" ? boolean : GgufValue[] {
  const v = file.metadata.get(key);
  if (v === undefined) throw new CheckpointError(source, `lacks metadata ${key}`);
  const ok = kind === "array" ? Array.isArray(v) : kind === "number" ? typeof v === "number" || typeof v === "bigint" : typeof v === kind;
  if (!ok) throw new CheckpointError(source, `metadata ${key} is not a ${kind}`);
  return (typeof v === "bigint" ? Number(v) : v) as never;
}
