/**
 * The safetensors format: an 8-byte little-endian header length, a JSON header mapping each
 * tensor name to `{dtype, shape, data_offsets: [begin, end]}` (offsets relative to the byte
 * after the header) plus an optional `__metadata__` of string values, then the raw data.
 *
 * Reading accepts F32, BF16 and F16 and always returns f32 (BF16/F16 widen exactly). Every
 * structural rule is checked before any tensor is used: header within the file, valid JSON,
 * known dtype, shape/offset agreement, offsets inside the data, no overlaps and no holes.
 * Any violation is a `CheckpointError` naming the file and the problem. Writing produces F32 by
 * default (bit-exact round trip) or BF16/F16 (rounded to nearest even), tensors sorted by name,
 * the header padded with spaces to a multiple of 8, and the file fsynced.
 *
 * Not here: which tensors a model needs (`params.ts`) or checkpoint directories (`checkpoint.ts`).
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import { endianness } from "node:os";
import { CheckpointError } from "../core/errors.ts";

/** Element types we read and write. */
export type SafetensorsDtype = "F32" | "BF16" | "F16";

const DTYPE_BYTES: Readonly<Record<SafetensorsDtype, number>> = { F32: 4, BF16: 2, F16: 2 };
/** The reference implementation refuses headers above 100 MB; so do we (a corrupt length would otherwise allocate wildly). */
const MAX_HEADER_BYTES = 100_000_000;

if (endianness() !== "LE") throw new Error("safetensors I/O assumes a little-endian host");

/** Where one tensor lives in a file. Offsets are absolute file positions. */
export type TensorInfo = {
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  readonly start: number;
  readonly end: number;
};

/** The parsed, validated header of a safetensors file. */
export type SafetensorsHeader = {
  readonly path: string;
  readonly tensors: ReadonlyMap<string, TensorInfo>;
  readonly metadata: Readonly<Record<string, string>>;
};

/** One tensor to write. */
export type TensorToWrite = { readonly data: Float32Array; readonly shape: readonly number[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function readExactly(fd: number, into: Uint8Array, position: number, path: string): void {
  let done = 0;
  while (done < into.length) {
    let n: number;
    try {
      n = readSync(fd, into, done, into.length - done, position + done);
    } catch (e) {
      throw new CheckpointError(path, `cannot read: ${(e as Error).message}`, { cause: e });
    }
    if (n === 0) throw new CheckpointError(path, `truncated: wanted ${into.length} bytes at offset ${position}, file ended`);
    done += n;
  }
}

function parseHeader(path: string, fd: number): SafetensorsHeader {
  const fail = (problem: string): never => {
    throw new CheckpointError(path, problem);
  };
  const size = fstatSync(fd).size;
  if (size < 8) fail(`truncated: ${size} bytes, less than the 8-byte header length`);
  const lenBytes = new Uint8Array(8);
  readExactly(fd, lenBytes, 0, path);
  const len = new DataView(lenBytes.buffer).getBigUint64(0, true);
  if (len > BigInt(MAX_HEADER_BYTES)) fail(`header length ${len} is over the 100 MB limit (not a safetensors file?)`);
  const headerLen = Number(len);
  if (8 + headerLen > size) fail(`truncated: header says ${headerLen} bytes but only ${size - 8} follow`);
  const headerBytes = new Uint8Array(headerLen);
  readExactly(fd, headerBytes, 8, path);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(headerBytes));
  } catch (e) {
    return fail(`bad header JSON: ${(e as Error).message}`);
  }
  if (!isObject(json)) return fail("bad header JSON: not an object");
  const dataStart = 8 + headerLen;
  const dataLen = size - dataStart;
  const metadata: Record<string, string> = {};
  const tensors = new Map<string, TensorInfo>();
  for (const [name, entry] of Object.entries(json)) {
    if (name === "__metadata__") {
      if (!isObject(entry)) fail("__metadata__ is not an object");
      for (const [k, v] of Object.entries(entry as Record<string, unknown>)) {
        if (typeof v !== "string") fail(`__metadata__.${k} is not a string`);
        metadata[k] = v as string;
      }
      continue;
    }
    if (!isObject(entry)) return fail(`tensor ${name}: entry is not an object`);
    const { dtype, shape, data_offsets: offsets } = entry;
    if (typeof dtype !== "string" || !(dtype in DTYPE_BYTES)) fail(`tensor ${name}: dtype ${JSON.stringify(dtype)} is not supported (F32, BF16, F16)`);
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) fail(`tensor ${name}: shape ${JSON.stringify(shape)} is not a list of non-negative integers`);
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
      fail(`tensor ${name}: data_offsets ${JSON.stringify(offsets)} is not [begin, end] with 0 <= begin <= end`);
    }
    const [begin, end] = offsets as [number, number];
    const dims = shape as number[];
    const need = dims.reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype as SafetensorsDtype];
    if (end - begin !== need) fail(`tensor ${name}: shape [${dims.join(", ")}] of ${dtype} needs ${need} bytes but data_offsets span ${end - begin}`);
    if (end > dataLen) fail(`truncated: tensor ${name} ends at data byte ${end} but the data section has ${dataLen} bytes`);
    tensors.set(name, { dtype: dtype as SafetensorsDtype, shape: dims, start: dataStart + begin, end: dataStart + end });
  }
  const spans = [...tensors].sort((a, b) => a[1].start - b[1].start || a[1].end - b[1].end);
  let cursor = dataStart;
  for (const [name, t] of spans) {
    if (t.start < cursor) fail(`tensor ${name} overlaps the tensor before it (data_offsets start at ${t.start - dataStart}, previous ends at ${cursor - dataStart})`);
    if (t.start > cursor) fail(`hole of ${t.start - cursor} unindexed bytes before tensor ${name}`);
    cursor = t.end;
  }
  if (cursor !== size) fail(`${size - cursor} unindexed bytes after the last tensor`);
  return { path, tensors, metadata };
}

/** Reads and validates only the header (names, dtypes, shapes, metadata) of a file. */
export function readSafetensorsHeader(path: string): SafetensorsHeader {
  const fd = openOrFail(path, "r");
  try {
    return parseHeader(path, fd);
  } finally {
    closeSync(fd);
  }
}

function openOrFail(path: string, flags: string): number {
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (e) {
    throw new CheckpointError(path, `cannot open: ${(e as Error).message}`, { cause: e });
  }
  // A folder opens for reading on Linux and fails only at the first read (EISDIR).
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw new CheckpointError(path, "is a folder, not a safetensors file");
  }
  return fd;
}

/** f16 bits -> f32 value, exact (subnormals, infinities and NaN included). */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

let halfTable: Float32Array | undefined;

function decodeTensor(bytes: Uint8Array, info: TensorInfo): Float32Array {
  const n = (info.end - info.start) / DTYPE_BYTES[info.dtype];
  if (info.dtype === "F32") return new Float32Array(bytes.buffer, bytes.byteOffset, n);
  const half = new Uint16Array(bytes.buffer, bytes.byteOffset, n);
  const out = new Float32Array(n);
  if (info.dtype === "BF16") {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) bits[i] = half[i]! << 16;
  } else {
    if (halfTable === undefined) {
      halfTable = new Float32Array(65536);
      for (let h = 0; h < 65536; h++) halfTable[h] = halfToFloat(h);
    }
    for (let i = 0; i < n; i++) out[i] = halfTable[half[i]!]!;
  }
  return out;
}

/** Loaded tensors (always f32) with their shapes and the file's metadata. */
export type SafetensorsContents = {
  readonly tensors: Map<string, Float32Array>;
  readonly header: SafetensorsHeader;
};

/**
 * Reads a safetensors file, validated, into f32 arrays (one fresh, aligned array per tensor).
 * @param names read only these tensors (all when omitted); a name not in the file is an error
 */
export function readSafetensors(path: string, names?: Iterable<string>): SafetensorsContents {
  const fd = openOrFail(path, "r");
  try {
    const header = parseHeader(path, fd);
    const wanted = names === undefined ? [...header.tensors.keys()] : [...names];
    const tensors = new Map<string, Float32Array>();
    for (const name of wanted) {
      const info = header.tensors.get(name);
      if (info === undefined) throw new CheckpointError(path, `has no tensor named ${name}`);
      // A fresh ArrayBuffer per tensor keeps every view aligned whatever the file offset.
      const bytes = new Uint8Array(new ArrayBuffer(info.end - info.start));
      readExactly(fd, bytes, info.start, path);
      tensors.set(name, decodeTensor(bytes, info));
    }
    return { tensors, header };
  } finally {
    closeSync(fd);
  }
}

/** f32 -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN. */
function floatToBf16(bits: number): number {
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) | 0x40) & 0xffff;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** f32 -> f16 bits, round to nearest even, overflow to infinity, subnormals kept. */
function floatToHalf(x: number): number {
  const f = new Float32Array([x]);
  const bits = new Uint32Array(f.buffer)[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff, mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000, shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    if (rest > half || (rest === half && (r & 1))) r++;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1))) r++;
  return sign | r;
}

function encodeTensor(data: Float32Array, dtype: SafetensorsDtype): Uint8Array {
  if (dtype === "F32") return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint16Array(data.length);
  if (dtype === "BF16") {
    const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
    for (let i = 0; i < data.length; i++) out[i] = floatToBf16(bits[i]!);
  } else {
    for (let i = 0; i < data.length; i++) out[i] = floatToHalf(data[i]!);
  }
  return new Uint8Array(out.buffer);
}

/** Options of `writeSafetensors`. */
export type WriteOptions = {
  /** Stored element type. @default "F32" */
  readonly dtype?: SafetensorsDtype;
  /** String key/values stored as `__metadata__`. */
  readonly metadata?: Readonly<Record<string, string>>;
};

/**
 * Writes tensors to `path` (overwriting it) and fsyncs the file. Atomicity is the caller's
 * business (checkpoints write into a temporary directory and rename it).
 * @throws CheckpointError when a tensor's length disagrees with its shape, or on I/O failure
 */
export function writeSafetensors(path: string, tensors: ReadonlyMap<string, TensorToWrite>, options: WriteOptions = {}): void {
  const dtype = options.dtype ?? "F32";
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (options.metadata !== undefined) header["__metadata__"] = { ...options.metadata };
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length) throw new CheckpointError(path, `tensor ${name} has ${t.data.length} elements but shape [${t.shape.join(", ")}]`);
    const bytes = n * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape: [...t.shape], data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(json);
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  const fd = openOrFail(path, "w");
  try {
    writeSync(fd, prefix);
    writeSync(fd, headerBytes);
    for (const name of names) {
      const bytes = encodeTensor(tensors.get(name)!.data, dtype);
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    }
    fsyncSync(fd);
  } catch (e) {
    if (e instanceof CheckpointError) throw e;
    throw new CheckpointError(path, `write failed: ${(e as Error).message}`, { cause: e });
  } finally {
    closeSync(fd);
  }
}
