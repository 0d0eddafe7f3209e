/**
 * The file habits every layer shares: reading a JSON file with a one-line error, writing a
 * file atomically (a temporary sibling, fsynced, renamed over the target, so a reader never sees
 * half a file and a crash leaves the old one), fsyncing a path (a directory after a rename), and
 * replacing an output folder only when seed wrote it (`assertReplaceable`): a folder or file the
 * user owns is never deleted; and where seed keeps what it builds once per machine (`seedCacheDir`).
 */
import { closeSync, mkdtempSync, rmdirSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { DataError, UsageError } from "./errors.ts";

/**
 * Where seed caches what it builds once per machine (Stage-0/1 bases, unpacked benchmark
 * archives): `$SEED_CACHE_DIR`, else `~/.cache/seed-rl`.
 */
export function seedCacheDir(): string {
  const env = process.env["SEED_CACHE_DIR"];
  return env !== undefined && env !== "" ? resolve(env) : join(homedir(), ".cache", "seed-rl");
}

/**
 * How `readJsonFile` reports a file it cannot read, or whose text is not JSON. `reason` is the
 * error code (else the message) or the parser's message; `cause` the error thrown.
 */
export type JsonErrors = {
  /** @default a `DataError` "cannot read <path>: <code>" */
  readonly unreadable?: (path: string, reason: string, cause: unknown) => Error;
  /** @default a `DataError` "<path>: not valid JSON (<parser message>)" */
  readonly invalid?: (path: string, reason: string, cause: unknown) => Error;
};

/** The parsed contents of a JSON file; a missing, unreadable or malformed file is one clear error. */
export function readJsonFile(path: string, errors: JsonErrors = {}): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw errors.unreadable?.(path, reason, e) ?? new DataError(`cannot read ${path}: ${reason}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = (e as Error).message;
    throw errors.invalid?.(path, reason, e) ?? new DataError(`${path}: not valid JSON (${reason})`);
  }
}

/** fsync a file or a directory by path (a directory after a rename, so the new name is durable). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` to `path` atomically: `<path>.tmp`, fsynced, renamed over `path`. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  fsyncPath(tmp);
  renameSync(tmp, path);
}

/** `writeFileAtomic` of a value as indented JSON with a final newline. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n");
}

/**
 * How to recognise a folder seed wrote as a whole (a Stage-0 output, a checkpoint): the entries
 * it writes, and a file only seed writes there. A folder is seed's when it holds that file and
 * nothing but those entries, so a user's file dropped into it also protects it from replacement.
 */
export type OwnedLayout = {
  /** What the folder is, for messages ("a Stage-0 output"). */
  readonly what: string;
  /** Every entry seed writes into such a folder. */
  readonly names: readonly string[];
  /** Whether the folder holds the file only seed writes (e.g. its report, parsed). */
  readonly isSignature: (dir: string) => boolean;
};

/** An `ErrnoException`'s code, or its message when it has none. */
function reasonOf(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code ?? err.message;
}

/**
 * Throws a one-line `UsageError` unless `path` may be (re)written as a whole by seed: it is
 * absent, an empty folder, or a folder of `layout` seed wrote. A file, a non-empty folder seed
 * did not write, or a place no folder can be made (inside a file, read-only) is refused before
 * any work is done. `label` names the option in the message (e.g. "--out").
 */
export function assertReplaceable(path: string, layout: OwnedLayout, label = "output folder"): void {
  const abs = resolve(path);
  let entries: string[] | null = null;
  try {
    const st = statSync(abs);
    if (!st.isDirectory()) throw new UsageError(`${label} ${path} is a file, not a folder; give a new folder path`);
    entries = readdirSync(abs);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") throw new UsageError(`${label} ${path}: a parent of it is a file, not a folder`);
    if (code !== "ENOENT") throw new UsageError(`${label} ${path}: cannot read it (${reasonOf(e)})`);
  }
  if (entries !== null && entries.length > 0) {
    const known = new Set(layout.names);
    const foreign = entries.filter((n) => !known.has(n));
    if (foreign.length > 0 || !layout.isSignature(abs)) {
      const shown = (foreign.length > 0 ? foreign : entries).slice(0, 3).join(", ");
      throw new UsageError(`${label} ${path} is a non-empty folder that is not ${layout.what} written by seed (it holds ${shown}${entries.length > 3 ? ", ..." : ""}); seed never deletes it: give a new or empty folder`);
    }
  }
  assertCanCreateIn(dirname(abs), `${label} ${path}`);
}

/** Throws a one-line `UsageError` when `parent` cannot be created or written (a file, read-only). */
export function assertCanCreateIn(parent: string, what: string): void {
  try {
    mkdirSync(parent, { recursive: true });
    // A real (empty, uniquely named) probe: access(W_OK) says yes to root on places where
    // creating anything still fails (sysfs, some read-only mounts).
    rmdirSync(mkdtempSync(join(parent, ".seed-probe-")));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOTDIR" || code === "EEXIST" ? "a parent of it is a file, not a folder" : code === "EACCES" || code === "EPERM" || code === "EROFS" ? `its folder ${parent} is not writable (${code})` : reasonOf(e);
    throw new UsageError(`${what}: cannot write there: ${why}`);
  }
}

let tempCounter = 0;

/**
 * Builds the folder `dir` in a fresh temporary sibling and renames it into place, replacing a
 * previous one only when `assertReplaceable(dir, layout)` allows it (checked again here, as the
 * folder may have changed while the contents were being computed). The old folder is moved
 * aside before the new one takes its name and removed after, so a crash never leaves neither.
 */
export function writeDirAtomically(dir: string, layout: OwnedLayout, fill: (tmp: string) => void, label?: string): void {
  assertReplaceable(dir, layout, label);
  const target = resolve(dir);
  const tag = `${process.pid}-${Date.now()}-${tempCounter++}`;
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${tag}`);
  mkdirSync(tmp);
  try {
    fill(tmp);
    fsyncPath(tmp);
    let old: string | null = null;
    try {
      statSync(target);
      old = join(dirname(target), `.${basename(target)}.old-${tag}`);
      renameSync(target, old);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    renameSync(tmp, target);
    if (old !== null) rmSync(old, { recursive: true, force: true });
    fsyncPath(dirname(target));
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
