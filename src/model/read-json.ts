/**
 * Reading the JSON files of a model directory (config.json, tokenizer.json, the shard index):
 * `core/fs.ts`'s reader with the checkpoint's error, which names the file.
 */
import { CheckpointError } from "../core/errors.ts";
import { readJsonFile } from "../core/fs.ts";

/** The parsed JSON file; unreadable or malformed is a `CheckpointError` naming the file. */
export function readModelJson(path: string): unknown {
  return readJsonFile(path, {
    unreadable: (p, _reason, cause) => new CheckpointError(p, `cannot read: ${(cause as Error).message}`, { cause }),
    invalid: (p, reason, cause) => new CheckpointError(p, `not valid JSON: ${reason}`, { cause }),
  });
}
