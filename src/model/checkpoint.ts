/**
 * Checkpoint directories. Ours and Hugging Face's share one layout, so a real Qwen2 model
 * directory loads with the same code:
 *
 *   config.json                     Hugging Face Qwen2 config (`toHfConfig` / `fromHfConfig`)
 *   model.safetensors               weights under HF names, F32 when we write them
 *     or model.safetensors.index.json + shards (HF sharded layout; read only)
 *   tokenizer.json                  HF tokenizer (optional)
 *   optimizer.safetensors           AdamW moments `m.<param>` / `v.<param>`, step in metadata (ours)
 *   state.json                      { formatVersion, rng: {name: state}, extra, checksums } (ours)
 *
 * `checksums` holds the SHA-256 of model.safetensors and optimizer.safetensors; loading verifies
 * them before parsing, so a flipped bit is an error naming the file instead of silently different
 * weights (checkpoints written before checksums were recorded load without the check). Loaded
 * weights are also checked to be finite: a NaN names the file and the tensor.
 *
 * Saving is atomic: everything is written and fsynced into a temporary directory next to the
 * target, which is then renamed into place (a previous checkpoint of that name is moved aside
 * first and removed after), so the final name never holds a half-written checkpoint.
 * Loading checks the format version and every tensor's shape against config.json, and names the
 * file in every error. Not here: what the trainer puts in `extra` (it is opaque JSON to us).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { CheckpointError, ConfigError } from "../core/errors.ts";
import { assertReplaceable, fsyncPath, type OwnedLayout } from "../core/fs.ts";
import type { RngState } from "../core/rng.ts";
import { fromHfConfig, toHfConfig, type ComputeDtype, type ModelConfig } from "./config.ts";
import { GLOBAL_NAMES, ParamStore, paramSpecs, type TensorSpec } from "./params.ts";
import { readModelJson } from "./read-json.ts";
import { readSafetensors, readSafetensorsHeader, writeSafetensors, type TensorInfo } from "./safetensors.ts";
import { loadTokenizer, tokenizerJsonText } from "./tokenizer/hf-json.ts";
import type { BpeTokenizer } from "./tokenizer/bpe.ts";

/**
 * Version of our additions to the layout (optimizer.safetensors, state.json). Bump it when they
 * change, keep a fixture of the old version in tests, and teach `loadCheckpoint` to migrate it.
 */
export const CHECKPOINT_FORMAT_VERSION = 1;

/** AdamW state: first and second moments under parameter names, and the step count. */
export type OptimizerState = {
  readonly step: number;
  readonly m: ReadonlyMap<string, Float32Array>;
  readonly v: ReadonlyMap<string, Float32Array>;
};

/** What `state.json` carries besides the format version. */
export type CheckpointState = {
  /** Named RNG states (`Rng.state()`), restored with `Rng.fromState`. */
  readonly rng: Readonly<Record<string, RngState>>;
  /** Anything else the caller needs to resume (task cursor, update count); must be JSON. */
  readonly extra: unknown;
};

/** `state.json` as read: the state, and the recorded file checksums (empty for older checkpoints). */
type StateFile = CheckpointState & { readonly checksums: Readonly<Record<string, string>> };

/** A checkpoint in memory. */
export type Checkpoint = {
  readonly config: ModelConfig;
  readonly params: ParamStore;
  /** Null when the directory has no tokenizer.json. */
  readonly tokenizer: BpeTokenizer | null;
  /** Null for weights-only directories (e.g. a Hugging Face model). */
  readonly optimizer: OptimizerState | null;
  /** Null when there is no state.json (e.g. a Hugging Face model). */
  readonly state: CheckpointState | null;
};

/** What `saveCheckpoint` writes; absent parts are not written. */
export type CheckpointToSave = {
  readonly config: ModelConfig;
  readonly params: ParamStore;
  readonly tokenizer?: BpeTokenizer;
  readonly optimizer?: OptimizerState;
  readonly state?: CheckpointState;
};

function writeFileSynced(path: string, text: string): void {
  writeFileSync(path, text);
  fsyncPath(path);
}

let tempCounter = 0;

/** A checkpoint folder seed wrote: only these entries, and a state.json with a format version. */
export const CHECKPOINT_LAYOUT: OwnedLayout = {
  what: "a checkpoint",
  names: ["config.json", "model.safetensors", "tokenizer.json", "optimizer.safetensors", "state.json"],
  isSignature: (dir) => {
    try {
      const j = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as { formatVersion?: unknown };
      return typeof j?.formatVersion === "number";
    } catch {
      return false;
    }
  },
};

/**
 * Throws a one-line `UsageError` unless `dir` may receive a checkpoint: absent, empty, or a
 * checkpoint seed wrote. A Hugging Face model folder, a user's folder or a file is refused, never
 * replaced. `label` names the option in the message.
 */
export function assertCheckpointTarget(dir: string, label = "checkpoint folder"): void {
  assertReplaceable(dir, CHECKPOINT_LAYOUT, label);
}

/**
 * Writes a checkpoint atomically into `dir`, replacing an existing checkpoint there only when
 * seed wrote it (`assertCheckpointTarget`).
 * @throws UsageError when `dir` is a file or a folder seed did not write
 * @throws CheckpointError on I/O failure (the temporary directory is removed)
 */
export function saveCheckpoint(dir: string, ckpt: CheckpointToSave): void {
  assertCheckpointTarget(dir);
  const target = resolve(dir);
  const parent = dirname(target);
  const tag = `${process.pid}-${Date.now()}-${tempCounter++}`;
  const tmp = join(parent, `.${basename(target)}.tmp-${tag}`);
  try {
    mkdirSync(parent, { recursive: true });
    mkdirSync(tmp);
    writeFileSynced(join(tmp, "config.json"), JSON.stringify(toHfConfig(ckpt.config), null, 2) + "\n");
    const weights = new Map<string, { data: Float32Array; shape: readonly number[] }>();
    for (const s of ckpt.params.specs) weights.set(s.name, { data: ckpt.params.get(s.name), shape: s.shape });
    // Transformers refuses safetensors files without format "pt" in their metadata.
    writeSafetensors(join(tmp, "model.safetensors"), weights, { metadata: { format: "pt" } });
    if (ckpt.tokenizer !== undefined) writeFileSynced(join(tmp, "tokenizer.json"), tokenizerJsonText(ckpt.tokenizer));
    if (ckpt.optimizer !== undefined) {
      const moments = new Map<string, { data: Float32Array; shape: readonly number[] }>();
      for (const s of ckpt.params.specs) {
        for (const [prefix, store] of [["m.", ckpt.optimizer.m], ["v.", ckpt.optimizer.v]] as const) {
          const t = store.get(s.name);
          if (t === undefined) throw new CheckpointError(target, `optimizer state lacks ${prefix}${s.name}`);
          moments.set(prefix + s.name, { data: t, shape: s.shape });
        }
      }
      writeSafetensors(join(tmp, "optimizer.safetensors"), moments, { metadata: { step: String(ckpt.optimizer.step), optimizer: "adamw" } });
    }
    const checksums: Record<string, string> = { "model.safetensors": fileSha256(join(tmp, "model.safetensors")) };
    if (ckpt.optimizer !== undefined) checksums["optimizer.safetensors"] = fileSha256(join(tmp, "optimizer.safetensors"));
    const state = { formatVersion: CHECKPOINT_FORMAT_VERSION, rng: ckpt.state?.rng ?? {}, extra: ckpt.state?.extra ?? null, checksums };
    writeFileSynced(join(tmp, "state.json"), JSON.stringify(state, null, 2) + "\n");
    fsyncPath(tmp);
    if (existsSync(target)) {
      const old = join(parent, `.${basename(target)}.old-${tag}`);
      renameSync(target, old);
      renameSync(tmp, target);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, target);
    }
    fsyncPath(parent);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (e instanceof CheckpointError) throw e;
    throw new CheckpointError(target, `could not save checkpoint: ${(e as Error).message}`, { cause: e });
  }
}

/** The SHA-256 of a file's bytes, as lowercase hex. */
export function fileSha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Files of a checkpoint whose recorded checksum may be verified. */
const CHECKSUMMED = ["model.safetensors", "optimizer.safetensors"];

function verifyChecksums(dir: string, checksums: Readonly<Record<string, string>>): void {
  for (const [name, want] of Object.entries(checksums)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw new CheckpointError(path, "is missing (state.json records its checksum)");
    let got: string;
    try {
      got = fileSha256(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CheckpointError(path, code === "EISDIR" ? "is a folder, not a safetensors file" : `cannot read: ${code ?? (e as Error).message}`, { cause: e });
    }
    if (got !== want) throw new CheckpointError(path, `is corrupt: its SHA-256 is ${got.slice(0, 16)}..., state.json records ${want.slice(0, 16)}... (damaged on disk or edited after saving)`);
  }
}

/** Throws naming `file` and the tensor when a loaded tensor holds NaN or an infinity. */
function assertFinite(file: string, tensors: Iterable<[string, Float32Array]>, what: string): void {
  for (const [name, t] of tensors) {
    for (let i = 0; i < t.length; i++) {
      if (!Number.isFinite(t[i]!)) {
        let bad = 0;
        for (let j = i; j < t.length; j++) if (!Number.isFinite(t[j]!)) bad++;
        throw new CheckpointError(file, `${what} ${name} holds ${bad} non-finite value(s) (the first, ${t[i]}, at index ${i}); the checkpoint is unusable: resume from an earlier one`);
      }
    }
  }
}

/** Tensors some real checkpoints carry that are not parameters (recomputed buffers). */
function isIgnorable(name: string, config: ModelConfig): boolean {
  return name.endsWith("rotary_emb.inv_freq") || (config.tiedEmbeddings && name === GLOBAL_NAMES.lmHead);
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Which file holds each tensor: one model.safetensors, or the shards of an index. */
function weightFiles(dir: string): Map<string, string[]> {
  const single = join(dir, "model.safetensors");
  const index = join(dir, "model.safetensors.index.json");
  if (existsSync(single)) return new Map([[single, [...readSafetensorsHeader(single).tensors.keys()]]]);
  if (!existsSync(index)) throw new CheckpointError(dir, "has neither model.safetensors nor model.safetensors.index.json");
  const json = readModelJson(index) as { weight_map?: unknown };
  const map = json?.weight_map;
  if (typeof map !== "object" || map === null || Array.isArray(map)) throw new CheckpointError(index, "has no weight_map object");
  const files = new Map<string, string[]>();
  for (const [name, file] of Object.entries(map)) {
    if (typeof file !== "string" || file.includes("/") || file.includes("\\")) throw new CheckpointError(index, `weight_map.${name} is not a file name in the directory`);
    const p = join(dir, file);
    let list = files.get(p);
    if (list === undefined) files.set(p, (list = []));
    list.push(name);
  }
  return files;
}

/** Reads the weights and checks each against its spec; errors name the file that is wrong. */
function loadWeights(dir: string, config: ModelConfig): ParamStore {
  const specs = new Map<string, TensorSpec>(paramSpecs(config).map((s) => [s.name, s]));
  const tensors = new Map<string, Float32Array>();
  for (const [file, names] of weightFiles(dir)) {
    const header = readSafetensorsHeader(file);
    const wanted: string[] = [];
    for (const name of names) {
      const info: TensorInfo | undefined = header.tensors.get(name);
      if (info === undefined) throw new CheckpointError(file, `lacks tensor ${name} (the index says it is here)`);
      if (isIgnorable(name, config)) continue;
      const spec = specs.get(name);
      if (spec === undefined) throw new CheckpointError(file, `has tensor ${name}, which config.json does not call for`);
      if (!sameShape(info.shape, spec.shape)) {
        throw new CheckpointError(file, `tensor ${name} has shape [${info.shape.join(", ")}], config.json implies [${spec.shape.join(", ")}]`);
      }
      wanted.push(name);
    }
    const read = readSafetensors(file, wanted).tensors;
    assertFinite(file, read, "tensor");
    for (const [name, t] of read) tensors.set(name, t);
  }
  const missing = [...specs.keys()].filter((n) => !tensors.has(n));
  if (missing.length > 0) {
    throw new CheckpointError(dir, `weights lack ${missing.length} tensor(s) config.json calls for: ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", ..." : ""}`);
  }
  return ParamStore.fromTensors(config, tensors);
}

function loadOptimizer(path: string, config: ModelConfig): OptimizerState {
  const { tensors, header } = readSafetensors(path);
  const step = Number(header.metadata["step"]);
  if (!Number.isInteger(step) || step < 0) throw new CheckpointError(path, `metadata step ${JSON.stringify(header.metadata["step"])} is not a non-negative integer`);
  const m = new Map<string, Float32Array>(), v = new Map<string, Float32Array>();
  for (const s of paramSpecs(config)) {
    for (const [prefix, into] of [["m.", m], ["v.", v]] as const) {
      const info = header.tensors.get(prefix + s.name);
      if (info === undefined) throw new CheckpointError(path, `lacks tensor ${prefix}${s.name}`);
      if (!sameShape(info.shape, s.shape)) throw new CheckpointError(path, `tensor ${prefix}${s.name} has shape [${info.shape.join(", ")}], config.json implies [${s.shape.join(", ")}]`);
      into.set(s.name, tensors.get(prefix + s.name)!);
    }
  }
  if (tensors.size !== 2 * m.size) throw new CheckpointError(path, `has ${tensors.size - 2 * m.size} tensor(s) that match no parameter`);
  assertFinite(path, tensors, "moment");
  return { step, m, v };
}

function isRngState(x: unknown): x is RngState {
  return Array.isArray(x) && x.length === 4 && x.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffffffff);
}

function loadState(path: string): StateFile {
  const json = readModelJson(path);
  if (typeof json !== "object" || json === null) throw new CheckpointError(path, "is not a JSON object");
  const j = json as Record<string, unknown>;
  const version = j["formatVersion"];
  if (version !== CHECKPOINT_FORMAT_VERSION) {
    const why = typeof version === "number" && version > CHECKPOINT_FORMAT_VERSION ? "written by a newer version of seed" : "not a format this version reads";
    throw new CheckpointError(path, `formatVersion ${JSON.stringify(version)} is ${why} (expected ${CHECKPOINT_FORMAT_VERSION})`);
  }
  const rng = j["rng"] ?? {};
  if (typeof rng !== "object" || rng === null || Array.isArray(rng)) throw new CheckpointError(path, "rng is not an object");
  for (const [k, s] of Object.entries(rng)) {
    if (!isRngState(s)) throw new CheckpointError(path, `rng.${k} is not four unsigned 32-bit integers`);
  }
  const checksums = j["checksums"] ?? {};
  if (typeof checksums !== "object" || checksums === null || Array.isArray(checksums)) throw new CheckpointError(path, "checksums is not an object");
  for (const [k, v] of Object.entries(checksums)) {
    if (!CHECKSUMMED.includes(k) || typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v)) throw new CheckpointError(path, `checksums.${k} is not the SHA-256 of a weights file`);
  }
  return { rng: rng as Record<string, RngState>, extra: j["extra"] ?? null, checksums: checksums as Record<string, string> };
}

/** Options of `loadCheckpoint`. */
export type LoadOptions = {
  /** Override the compute dtype recorded in config.json (e.g. run a bf16 model in f32). */
  readonly dtype?: ComputeDtype;
};

/**
 * Loads a checkpoint directory (ours or a Hugging Face Qwen2 model directory).
 * @throws CheckpointError naming the file and the problem (missing, corrupt, version, shapes)
 */
export function loadCheckpoint(dir: string, options: LoadOptions = {}): Checkpoint {
  if (!existsSync(dir)) throw new CheckpointError(dir, "no such checkpoint directory");
  const statePath = join(dir, "state.json");
  const stateFile = existsSync(statePath) ? loadState(statePath) : null;
  // Before any parsing: a flipped bit anywhere in the weights is this one clear error.
  if (stateFile !== null) verifyChecksums(dir, stateFile.checksums);
  const state: CheckpointState | null = stateFile === null ? null : { rng: stateFile.rng, extra: stateFile.extra };
  const configPath = join(dir, "config.json");
  let config: ModelConfig;
  try {
    config = fromHfConfig(readModelJson(configPath), options.dtype === undefined ? {} : { dtype: options.dtype });
  } catch (e) {
    if (e instanceof ConfigError) throw new CheckpointError(configPath, e.message.replaceAll("\n", "; "), { cause: e });
    throw e;
  }
  const params = loadWeights(dir, config);
  const tokPath = join(dir, "tokenizer.json");
  const tokenizer = existsSync(tokPath) ? loadTokenizer(tokPath) : null;
  if (tokenizer !== null && tokenizer.vocabSize > config.vocabSize) {
    throw new CheckpointError(tokPath, `has ${tokenizer.vocabSize} tokens but config.json's vocab_size is ${config.vocabSize}`);
  }
  const optPath = join(dir, "optimizer.safetensors");
  const optimizer = existsSync(optPath) ? loadOptimizer(optPath, config) : null;
  return { config, params, tokenizer, optimizer, state };
}
