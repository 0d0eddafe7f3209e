/**
 * The three file habits every layer shares: reading a JSON file with a one-line error, writing a
 * file atomically (a temporary sibling, fsynced, renamed over the target, so a reader never sees
 * half a file and a crash leaves the old one), and fsyncing a path (a directory after a rename).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { DataError } from "./errors.ts";

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
