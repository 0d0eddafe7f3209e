/**
 * The real training split as it ships in `../shared/data/alfworld`: 3,553 games packed as
 * `json_2.1.1_train.tar.xz` (5.6 MB; 303 MB unpacked) next to the unpacked evaluation splits.
 * When a data root has the archive but no `train` folder, the archive is unpacked once into a
 * per-user cache and its `train` folder is used from there, so `--env.data` can name the shipped
 * folder as it is. The cache entry is keyed by the archive's size and modification time and
 * appears atomically (unpacked into a temporary folder, then renamed), so concurrent runs and a
 * crash halfway through never leave a partial split behind.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataError } from "../../core/errors.ts";
import { seedCacheDir } from "../../core/fs.ts";

/** The archive's file name inside a data root (beside `json_2.1.1/`). */
export const TRAIN_ARCHIVE = "json_2.1.1_train.tar.xz";

/** The archive of a data root (`<root>/json_2.1.1_train.tar.xz`, or beside a `json_2.1.1` root), or undefined. */
export function trainArchiveOf(root: string): string | undefined {
  for (const path of [join(root, TRAIN_ARCHIVE), join(root, "..", TRAIN_ARCHIVE)]) if (existsSync(path)) return resolve(path);
  return undefined;
}

/**
 * The `train` folder unpacked from `archive` (done now if it is not cached yet).
 * @throws DataError when `tar` cannot unpack it, or it holds no `json_2.1.1/train`
 */
export function unpackedTrainSplit(archive: string, cacheDir: string = seedCacheDir()): string {
  const st = statSync(archive);
  const final = join(cacheDir, `alfworld-train-${st.size}-${Math.floor(st.mtimeMs)}`);
  const split = join(final, "json_2.1.1", "train");
  if (existsSync(split)) return split;
  mkdirSync(cacheDir, { recursive: true });
  const tmp = mkdtempSync(join(cacheDir, ".alfworld-train-"));
  try {
    execFileSync("tar", ["-xJf", archive, "-C", tmp], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    const why = ((e as { stderr?: Buffer }).stderr?.toString() ?? "").trim().split("\n")[0] || (e as Error).message;
    throw new DataError(`${archive}: cannot unpack the training games (${why}); unpack it yourself with 'tar -xJf' beside json_2.1.1/`);
  }
  if (!existsSync(join(tmp, "json_2.1.1", "train"))) {
    rmSync(tmp, { recursive: true, force: true });
    throw new DataError(`${archive}: the archive holds no json_2.1.1/train folder`);
  }
  try {
    renameSync(tmp, final);
  } catch {
    // Another run unpacked the same archive first: use its copy.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(split)) throw new DataError(`${final}: cannot place the unpacked training games in the cache`);
  }
  return split;
}
