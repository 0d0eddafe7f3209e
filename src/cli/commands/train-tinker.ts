/**
 * The `--trainer tinker:URL` side of `seed train`: writes the run's Tinker base directory
 * (`<run>/tinker-base/`: `tinker.json` + the tokenizer) and points `policy.init` at it, so the
 * trainer loads a `TinkerPolicy` through the policy-loader registry and nothing else changes;
 * after training, exports the final weights through the protocol into `<run>/final-weights/`.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import type { SeedConfig } from "../../config/config.ts";
import { TinkerClient } from "../../policy/tinker/client.ts";
import { writeDescriptor, type TinkerDescriptor } from "../../policy/tinker/descriptor.ts";
import type { ReductionSetting } from "../../policy/tinker/reduction.ts";
import { setTinkerConnectDefaults, TinkerPolicy } from "../../policy/tinker/tinker-policy.ts";
import { TinkerError } from "../../policy/tinker/transport.ts";

/** The flags of a Tinker run. */
export type TinkerTrainFlags = {
  readonly trainer: string;
  readonly baseModel?: string;
  readonly loraRank?: string;
  readonly tokenizer?: string;
  readonly maxContext?: string;
  readonly reduction?: string;
  readonly wire?: string;
  readonly timeout?: string;
};

/** Parses `tinker:URL`. */
export function tinkerUrl(trainer: string): string {
  const m = /^tinker:(https?:\/\/.+)$/.exec(trainer);
  if (m === null) throw new UsageError(`--trainer must be tinker:http://HOST:PORT (or https://...), got '${trainer}'`);
  return m[1]!.replace(/\/+$/, "");
}

function intFlag(v: string | undefined, flag: string, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag} must be an integer >= ${min}, got '${v}'`);
  return n;
}

/** Writes `<runDir>/tinker-base` for `flags` and returns `config` with `policy.init` pointing at it. */
export async function prepareTinkerRun(config: SeedConfig, runDir: string, flags: TinkerTrainFlags): Promise<SeedConfig> {
  const url = tinkerUrl(flags.trainer);
  const loraRank = intFlag(flags.loraRank, "lora-rank", 0, 0);
  const reduction = (flags.reduction ?? "probe") as ReductionSetting;
  if (!["probe", "sum", "sequence-mean"].includes(reduction)) throw new UsageError(`--reduction must be probe, sum or sequence-mean, got '${flags.reduction}'`);
  const wire = flags.wire ?? "proto";
  if (wire !== "proto" && wire !== "json") throw new UsageError(`--wire must be proto or json, got '${wire}'`);
  const timeoutMs = intFlag(flags.timeout, "request-timeout", 120, 1) * 1000;
  setTinkerConnectDefaults({ timeoutMs });
  const apiKey = process.env["TINKER_API_KEY"];
  const client = await TinkerClient.connect({ baseUrl: url, wire, timeoutMs, retries: 2, ...(apiKey !== undefined ? { apiKey } : {}) });
  try {
    let baseModel = flags.baseModel;
    if (baseModel === undefined) {
      const models = await client.supportedModels();
      if (models.length !== 1) throw new UsageError(`${url} offers ${models.length === 0 ? "no base models" : `several base models (${models.join(", ")})`}; name one with --base-model`);
      baseModel = models[0]!;
    }
    // Our server publishes the base model's tokenizer and context; other servers need the flags.
    let info: { max_context?: number; tokenizer_json?: string | null } = {};
    try {
      info = (await client.transport.getJson(`seed/model_info?base_model=${encodeURIComponent(baseModel)}`)) as typeof info;
    } catch (e) {
      if (!(e instanceof TinkerError) || e.status === 0) throw e;
    }
    const dir = join(resolve(runDir), "tinker-base");
    mkdirSync(dir, { recursive: true });
    if (flags.tokenizer !== undefined) {
      if (!existsSync(flags.tokenizer)) throw new UsageError(`--tokenizer ${flags.tokenizer}: no such file`);
      copyFileSync(flags.tokenizer, join(dir, "tokenizer.json"));
    } else if (typeof info.tokenizer_json === "string") writeFileSync(join(dir, "tokenizer.json"), info.tokenizer_json);
    else throw new UsageError(`${url} does not publish the tokenizer of '${baseModel}'; give --tokenizer PATH (its tokenizer.json)`);
    const maxContext = intFlag(flags.maxContext, "max-context", info.max_context ?? 32768, 2);
    const desc: TinkerDescriptor = { format: 1, url, baseModel, loraRank, maxContext, reduction, wire, seed: config.run.seed };
    writeDescriptor(dir, desc);
    return { ...config, policy: { ...config.policy, init: dir } };
  } finally {
    client.close();
  }
}

/**
 * Exports the trained weights of `policyDir` (a Tinker policy directory) into `<runDir>/final-weights`.
 * `loadable` says whether they form a checkpoint this build loads (ours do; a LoRA server's archive
 * holds adapter files, kept as they came).
 */
export async function exportFinalWeights(policyDir: string, runDir: string): Promise<{ dir: string; files: string[]; loadable: boolean }> {
  const policy = await TinkerPolicy.open(policyDir);
  try {
    const dir = join(resolve(runDir), "final-weights");
    const files = await policy.exportWeights(dir);
    return { dir, files, loadable: files.includes("config.json") };
  } finally {
    policy.close();
  }
}
