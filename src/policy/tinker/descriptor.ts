/**
 * `tinker.json`: the policy directory of a model that lives on a Tinker server. It holds what
 * it takes to reach the weights again (server, base model, LoRA rank, the server's checkpoint
 * paths) next to a copy of the tokenizer; `loadTrainablePolicy` recognises it by this file.
 *
 *   url         server root (`http://host:port`)
 *   baseModel   the server's name of the base model
 *   loraRank    LoRA rank (0: full fine-tuning)
 *   maxContext  longest sequence sent
 *   reduction   "sum" | "sequence-mean" | "probe" (see reduction.ts)
 *   wire        "proto" | "json" (see client.ts)
 *   weights     `tinker://` training checkpoint (weights + optimizer), when trained
 *   sampler     `tinker://` sampler checkpoint, for a frozen snapshot
 *   seed        LoRA initialisation seed sent with create_model
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CheckpointError } from "../../core/errors.ts";
import { readJsonFile, writeJsonAtomic } from "../../core/fs.ts";
import type { ReductionSetting } from "./reduction.ts";

/** Name of the descriptor file. */
export const DESCRIPTOR_FILE = "tinker.json";

/** What `tinker.json` holds. */
export type TinkerDescriptor = {
  readonly format: 1;
  readonly url: string;
  readonly baseModel: string;
  readonly loraRank: number;
  readonly maxContext: number;
  readonly reduction: ReductionSetting;
  readonly wire: "proto" | "json";
  readonly seed: number;
  readonly weights?: string;
  readonly sampler?: string;
};

/** Whether `dir` is a Tinker policy directory. */
export function isTinkerDir(dir: string): boolean {
  return existsSync(join(dir, DESCRIPTOR_FILE));
}

/** Reads and checks `dir/tinker.json`. */
export function readDescriptor(dir: string): TinkerDescriptor {
  const path = join(dir, DESCRIPTOR_FILE);
  const d = readJsonFile(path) as Partial<TinkerDescriptor> | null;
  const bad = (why: string) => new CheckpointError(path, why);
  if (d === null || typeof d !== "object") throw bad("not a Tinker policy descriptor");
  if (d.format !== 1) throw bad(`format ${String(d.format)}; this build reads 1`);
  if (typeof d.url !== "string" || !/^https?:\/\//.test(d.url)) throw bad("url must be an http(s) URL");
  if (typeof d.baseModel !== "string" || d.baseModel === "") throw bad("baseModel is missing");
  if (!Number.isInteger(d.loraRank) || d.loraRank! < 0) throw bad("loraRank must be an integer >= 0");
  if (!Number.isInteger(d.maxContext) || d.maxContext! < 2) throw bad("maxContext must be an integer >= 2");
  if (d.reduction !== "sum" && d.reduction !== "sequence-mean" && d.reduction !== "probe") throw bad("reduction must be sum, sequence-mean or probe");
  if (d.wire !== "proto" && d.wire !== "json") throw bad("wire must be proto or json");
  if (!existsSync(join(dir, "tokenizer.json"))) throw new CheckpointError(join(dir, "tokenizer.json"), "missing (a Tinker policy directory keeps a copy of the model's tokenizer)");
  return d as TinkerDescriptor;
}

/** Writes `dir/tinker.json` atomically (the directory must exist). */
export function writeDescriptor(dir: string, d: TinkerDescriptor): void {
  writeJsonAtomic(join(dir, DESCRIPTOR_FILE), d);
}
