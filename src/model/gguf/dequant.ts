/**
 * ggml tensor types to f32. Block layouts (llama.cpp's `ggml-common.h`), each block covering 32
 * consecutive elements of a row:
 * - Q4_0 (18 bytes): f16 scale d, 16 bytes of nibbles; w = d * (q - 8).
 * - Q4_1 (20 bytes): f16 scale d, f16 min m, 16 bytes of nibbles; w = d * q + m.
 * - Q8_0 (34 bytes): f16 scale d, 32 signed bytes; w = d * q.
 * In the nibble formats byte j holds element j in its low nibble and element j + 16 in its high
 * nibble. F32, F16 and BF16 are plain arrays. Other types (the K-quants, IQ*) are refused with an
 * error naming the type: the SmolLM2 file holds only F32, Q8_0 and Q4_1.
 */
import { CheckpointError } from "../../core/errors.ts";

/** ggml type ids of the types we know by name (the numbering is fixed by the file format). */
export const GGML_TYPE = {
  F32: 0, F16: 1, Q4_0: 2, Q4_1: 3, Q5_0: 6, Q5_1: 7, Q8_0: 8, Q8_1: 9,
  Q2_K: 10, Q3_K: 11, Q4_K: 12, Q5_K: 13, Q6_K: 14, Q8_K: 15, BF16: 30,
} as const;

/** Name of a ggml type id, for messages. */
export function ggmlTypeName(type: number): string {
  return Object.entries(GGML_TYPE).find(([, v]) => v === type)?.[0] ?? `type ${type}`;
}

/** Elements per block and bytes per block of the types we dequantise. */
const LAYOUT: Readonly<Record<number, { block: number; bytes: number }>> = {
  [GGML_TYPE.F32]: { block: 1, bytes: 4 },
  [GGML_TYPE.F16]: { block: 1, bytes: 2 },
  [GGML_TYPE.BF16]: { block: 1, bytes: 2 },
  [GGML_TYPE.Q4_0]: { block: 32, bytes: 18 },
  [GGML_TYPE.Q4_1]: { block: 32, bytes: 20 },
  [GGML_TYPE.Q8_0]: { block: 32, bytes: 34 },
};

/** True when `dequantize` handles the type. */
export function isSupportedType(type: number): boolean {
  return LAYOUT[type] !== undefined;
}

/**
 * Bytes a tensor of `count` elements of `type` occupies.
 * @throws CheckpointError (naming `source`) for an unsupported type or a count that is not whole blocks
 */
export function tensorBytes(type: number, count: number, source: string, name: string): number {
  const l = LAYOUT[type];
  if (l === undefined) throw new CheckpointError(source, `tensor ${name} has ggml type ${ggmlTypeName(type)}, which seed cannot dequantise (F32, F16, BF16, Q4_0, Q4_1, Q8_0)`);
  if (count % l.block !== 0) throw new CheckpointError(source, `tensor ${name} has ${count} elements, not a whole number of ${l.block}-element ${ggmlTypeName(type)} blocks`);
  return (count / l.block) * l.bytes;
}

/** f16 bit pattern -> f32 value, for all 65536 patterns (a table: dequantising is hot). */
const HALF = (() => {
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
    t[h] = e === 0 ? s * f * 2 ** -24 : e === 31 ? (f === 0 ? s * Infinity : NaN) : s * (1 + f / 1024) * 2 ** (e - 15);
  }
  return t;
})();

/** The f32 value of an f16 bit pattern. */
export function halfToFloat(bits: number): number {
  return HALF[bits & 0xffff]!;
}

const F32_BUF = new Float32Array(1);
const U32_BUF = new Uint32Array(F32_BUF.buffer);

/** The f16 bit pattern nearest to `x` (round to nearest even; overflow to infinity), as ggml's converter does. */
export function floatToHalf(x: number): number {
  F32_BUF[0] = x;
  const b = U32_BUF[0]!, sign = (b >>> 16) & 0x8000, e = (b >>> 23) & 0xff, m = b & 0x7fffff;
  if (e === 0xff) return sign | 0x7c00 | (m !== 0 ? 0x200 : 0);
  const ex = e - 127 + 15;
  if (ex >= 31) return sign | 0x7c00;
  if (ex <= 0) {
    if (ex < -10) return sign;
    const mm = m | 0x800000, shift = 14 - ex;
    let h = mm >>> shift;
    const rem = mm & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1) === 1)) h++;
    return sign | h;
  }
  let h = (ex << 10) | (m >>> 13);
  const rem = m & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1) === 1)) h++; // a carry into the exponent is still correct
  return sign | h;
}

/**
 * Dequantises `count` elements of `type` starting at `bytes[offset]` into a new f32 array.
 * @throws CheckpointError naming `source` and the tensor for unsupported types or truncation
 */
export function dequantize(bytes: Uint8Array, offset: number, type: number, count: number, source: string, name: string): Float32Array {
  const n = tensorBytes(type, count, source, name);
  if (offset + n > bytes.length) throw new CheckpointError(source, `is truncated: tensor ${name} needs bytes ${offset}..${offset + n}, the file has ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, n);
  const out = new Float32Array(count);
  switch (type) {
    case GGML_TYPE.F32:
      for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, true);
      break;
    case GGML_TYPE.F16:
      for (let i = 0; i < count; i++) out[i] = HALF[view.getUint16(2 * i, true)]!;
      break;
    case GGML_TYPE.BF16:
      for (let i = 0; i < count; i++) {
        U32_BUF[0] = view.getUint16(2 * i, true) << 16;
        out[i] = F32_BUF[0]!;
      }
      break;
    case GGML_TYPE.Q8_0:
      for (let b = 0, o = 0; o < count; b += 34, o += 32) {
        const d = HALF[view.getUint16(b, true)]!;
        for (let j = 0; j < 32; j++) out[o + j] = d * view.getInt8(b + 2 + j);
      }
      break;
    case GGML_TYPE.Q4_0:
      for (let b = 0, o = 0; o < count; b += 18, o += 32) {
        const d = HALF[view.getUint16(b, true)]!;
        for (let j = 0; j < 16; j++) {
          const q = view.getUint8(b + 2 + j);
          out[o + j] = d * ((q & 15) - 8);
          out[o + j + 16] = d * ((q >> 4) - 8);
        }
      }
      break;
    case GGML_TYPE.Q4_1:
      for (let b = 0, o = 0; o < count; b += 20, o += 32) {
        const d = HALF[view.getUint16(b, true)]!, m = HALF[view.getUint16(b + 2, true)]!;
        for (let j = 0; j < 16; j++) {
          const q = view.getUint8(b + 4 + j);
          out[o + j] = d * (q & 15) + m;
          out[o + j + 16] = d * (q >> 4) + m;
        }
      }
      break;
  }
  return out;
}

/**
 * The per-block mins m of a Q4_1 tensor of `rows` rows of `cols` (a multiple of 32) elements, as
 * f32 [rows, cols / 32] (what an exact emulation of llama.cpp's Q4_1 dot product needs).
 */
export function q4_1Mins(bytes: Uint8Array, offset: number, rows: number, cols: number): Float32Array {
  const nb = (rows * cols) / 32, out = new Float32Array(nb);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, nb * 20);
  for (let b = 0; b < nb; b++) out[b] = HALF[view.getUint16(20 * b + 2, true)]!;
  return out;
}
