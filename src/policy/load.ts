/**
 * The one door from a directory to a `TrainablePolicy`: the trainer (and anything that resumes
 * or evaluates a run) loads through `loadTrainablePolicy` and never names an implementation. Each
 * kind of policy directory is one entry of `POLICY_LOADERS`, recognised by its files; a new
 * `TrainablePolicy` (a remote trainer) adds its entry here and nothing in `train/` changes.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CheckpointError } from "../core/errors.ts";
import { EmbeddedPolicy } from "./embedded.ts";
import type { TrainablePolicy } from "./policy.ts";
import { isTinkerDir } from "./tinker/descriptor.ts";
import { TinkerPolicy } from "./tinker/tinker-policy.ts";

/** One kind of policy directory. */
export type PolicyLoader = {
  readonly name: string;
  /** Whether `dir` holds this kind of policy. */
  readonly detect: (dir: string) => boolean;
  readonly load: (dir: string) => Promise<TrainablePolicy>;
};

/** The kinds, tried in order. */
export const POLICY_LOADERS: readonly PolicyLoader[] = [
  {
    name: "tinker",
    // A model on a Tinker server: tinker.json names the server, base model and checkpoints.
    detect: isTinkerDir,
    load: (dir) => TinkerPolicy.open(dir),
  },
  {
    name: "embedded",
    // Our checkpoints and Hugging Face Qwen2 directories both hold a config.json with the weights.
    detect: (dir) => existsSync(join(dir, "config.json")),
    load: (dir) => EmbeddedPolicy.load(dir),
  },
];

/**
 * The trainable policy stored in `dir` (a checkpoint's `policy/`, a Stage-0/1 base, an analyzer
 * snapshot), or a `CheckpointError` naming the directory and the kinds it was checked against.
 */
export async function loadTrainablePolicy(dir: string): Promise<TrainablePolicy> {
  const loader = POLICY_LOADERS.find((l) => l.detect(dir));
  if (loader === undefined) throw new CheckpointError(dir, `holds no policy this build can load (kinds: ${POLICY_LOADERS.map((l) => l.name).join(", ")})`);
  return loader.load(dir);
}

/** Whether `dir` holds a policy of any kind `loadTrainablePolicy` knows. */
export function isPolicyDir(dir: string): boolean {
  return POLICY_LOADERS.some((l) => l.detect(dir));
}
