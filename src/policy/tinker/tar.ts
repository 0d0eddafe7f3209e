/**
 * The `.tar.gz` archives of sampler checkpoints (`/training_runs/{model}/checkpoints/{id}/archive`):
 * `packDir` writes one of a flat directory (our server), `unpackTo` extracts one (regular files
 * and directories of a ustar archive; links and other entries are skipped, leading `/` is dropped
 * and a path that would leave the target is refused).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { DataError } from "../../core/errors.ts";

function header(name: string, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, at: number) => h.set(new TextEncoder().encode(s), at);
  put(name, 0);
  put("0000644\0", 100);
  put("0000000\0", 108);
  put("0000000\0", 116);
  put(size.toString(8).padStart(11, "0") + "\0", 124);
  put("00000000000\0", 136);
  put("        ", 148);
  put("0", 156);
  put("ustar\0" + "00", 257);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

/** A gzipped tar of the regular files directly in `dir` (names sorted). */
export function packDir(dir: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (!statSync(p).isFile()) continue;
    if (new TextEncoder().encode(name).length > 99) throw new DataError(`file name too long for the archive: ${name}`);
    const data = readFileSync(p);
    parts.push(header(name, data.length), data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  return gzipSync(Buffer.concat(parts));
}

function field(h: Uint8Array, at: number, len: number): string {
  const s = new TextDecoder().decode(h.subarray(at, at + len));
  const nul = s.indexOf("\0");
  return nul < 0 ? s : s.slice(0, nul);
}

/** Extracts a gzipped (or plain) tar into `dir`; returns the files written. */
export function unpackTo(archive: Uint8Array, dir: string): string[] {
  const gz = archive[0] === 0x1f && archive[1] === 0x8b;
  const tar = gz ? new Uint8Array(gunzipSync(archive)) : archive;
  const written: string[] = [];
  mkdirSync(dir, { recursive: true });
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const name = (field(h, 345, 155) ? `${field(h, 345, 155)}/` : "") + field(h, 0, 100);
    const size = parseInt(field(h, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(h[156]!);
    const body = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    // Leading "/" and "./" are dropped (as tar does); ".." is refused.
    const rel = normalize(name).replace(/^[/\\]+/, "").replace(/^(\.\/)+/, "").replace(/[/\\]+$/, "");
    if (rel === "" || rel === ".") continue;
    if (rel === ".." || rel.startsWith(`..${sep}`)) throw new DataError(`archive entry '${name}' would leave ${dir}`);
    const target = join(dir, rel);
    if (type === "5") mkdirSync(target, { recursive: true });
    else if (type === "0" || type === "\0") {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, body);
      written.push(rel);
    }
  }
  return written;
}
