/**
 * Where the tests find the real ALFWorld files (`../shared/data/alfworld` beside the repository
 * root) and a once-per-process extraction of the training archive into a temporary directory.
 * Test support only: nothing in the library imports this file, and the embedded defaults never
 * need the data.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** `../shared/data/alfworld` relative to the repository root, or undefined when absent. */
export function alfworldDataRoot(): string | undefined {
  const dir = join(REPO_ROOT, "..", "shared", "data", "alfworld");
  return existsSync(join(dir, "json_2.1.1")) ? dir : undefined;
}

/** Reason string for `test(..., { skip })` when the data is absent. */
export const NO_DATA = "../shared/data/alfworld is absent (real ALFWorld files are not shipped with the repository)";

let extracted: string | undefined;

/**
 * A data root holding all three splits: the training archive extracted once per process into
 * a temporary directory (removed at exit), with the evaluation splits linked beside it.
 * Undefined when the data or `tar` is unavailable.
 */
export function alfworldAllSplitsRoot(): string | undefined {
  if (extracted !== undefined) return extracted;
  const data = alfworldDataRoot();
  const archive = data === undefined ? undefined : join(data, "json_2.1.1_train.tar.xz");
  if (data === undefined || archive === undefined || !existsSync(archive)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "seed-alfworld-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  try {
    execFileSync("tar", ["-xJf", archive, "-C", dir], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  mkdirSync(join(dir, "json_2.1.1"), { recursive: true });
  for (const split of ["valid_seen", "valid_unseen"]) {
    const src = join(data, "json_2.1.1", split);
    if (existsSync(src)) symlinkSync(src, join(dir, "json_2.1.1", split));
  }
  extracted = dir;
  return dir;
}
