/**
 * `seed train`: one method (a preset from `configs/`) trained into a run directory, resumed by
 * running the same command again. Config = defaults ← preset ← `--quick` overlay ← `--config`
 * file ← dotted overrides (`--opd.beta=0`); every config problem is reported at once.
 */
import { UsageError } from "../../core/errors.ts";
import { listPresets, presetFormula, resolveConfig } from "../../config/presets.ts";
import { splitOverrideArgs } from "../../config/overrides.ts";
import { train } from "../../train/trainer.ts";
import { parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed train [--preset NAME] [--run-dir DIR] [--quick] [options] [--<key>=<value> ...]
       seed train --list-presets [--json]

Train with a method preset; run the same command again to resume from the newest checkpoint.

options:
  --preset NAME        method preset or its paper spelling (default seed); --algo is an alias
  --run-dir DIR        run directory (default runs/<preset>)
  --quick              tiny model and games, 2 updates: a smoke run in well under a minute
  --config FILE        a JSON file with a partial config (or a preset-shaped object)
  --cache-dir DIR      where the Stage-0/1 bases are cached (default ~/.cache/seed-rl)
  --list-presets       list the presets and the formula each implements
  --print-config       print the resolved config and exit
  --json               print one JSON summary at the end
  --quiet              no progress bar
  --<key>=<value>      override any config key, e.g. --opd.beta=0 --grpo.std=bessel --run.updates=20

remote training (docs/SCALE-OUT.md):
  --trainer tinker:URL train on a Tinker server (SkyRL, verl_tinker, hosted Tinker, seed serve --api tinker)
  --base-model NAME    the server's base model (default: its only one)
  --lora-rank R        LoRA rank; 0 trains all weights where the server allows it (default 0)
  --tokenizer PATH     the base model's tokenizer.json (default: fetched from seed serve)
  --max-context N      longest sequence (default: from seed serve, else 32768)
  --reduction MODE     probe (default), sum, or sequence-mean (SkyRL's JAX back end)
  --wire MODE          proto (default, SDK >= 0.25, SkyRL) or json (JSON-era servers)
  --request-timeout S  per-request timeout in seconds (default 120); X-API-Key from $TINKER_API_KEY`;

const OPTIONS = {
  preset: { type: "string" }, algo: { type: "string" }, "run-dir": { type: "string" }, quick: { type: "boolean" }, config: { type: "string" },
  "cache-dir": { type: "string" }, "list-presets": { type: "boolean" }, "print-config": { type: "boolean" }, json: { type: "boolean" },
  quiet: { type: "boolean" }, help: { type: "boolean", short: "h" },
  trainer: { type: "string" }, "base-model": { type: "string" }, "lora-rank": { type: "string" }, tokenizer: { type: "string" },
  "max-context": { type: "string" }, reduction: { type: "string" }, wire: { type: "string" }, "request-timeout": { type: "string" },
} as const;

/** The `train` command. */
export const command: Command = {
  summary: "train with a preset (seed, grpo, opsd, ...)",
  async run(argv) {
    const { overrides, rest } = splitOverrideArgs(argv);
    const { values, positionals } = parseOptions(rest, OPTIONS, false);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (values["list-presets"]) {
      const presets = listPresets();
      if (values.json) printJson(presets.map((p) => ({ name: p.name, aliases: p.aliases, summary: p.summary, formula: presetFormula(p) })));
      else for (const p of presets) console.log(`${p.name.padEnd(20)} ${p.summary}\n${"".padEnd(20)} ${presetFormula(p)}${p.aliases.length ? `\n${"".padEnd(20)} aliases: ${p.aliases.join(", ")}` : ""}`);
      return 0;
    }
    if (values.preset !== undefined && values.algo !== undefined) throw new UsageError("give --preset or --algo, not both");
    let config = resolveConfig({
      preset: values.preset ?? values.algo ?? "seed",
      quick: values.quick ?? false,
      ...(values.config !== undefined ? { file: values.config } : {}),
      overrides,
    });
    if (values["print-config"]) {
      console.log(JSON.stringify(config, null, 2));
      return 0;
    }
    const runDir = values["run-dir"] ?? `runs/${config.method.name}`;
    const tinker = values.trainer === undefined ? null : await import("./train-tinker.ts");
    if (tinker !== null) {
      config = await tinker.prepareTinkerRun(config, runDir, {
        trainer: values.trainer!, ...definedFlags({ baseModel: values["base-model"], loraRank: values["lora-rank"], tokenizer: values.tokenizer, maxContext: values["max-context"], reduction: values.reduction, wire: values.wire, timeout: values["request-timeout"] }),
      });
    }
    const result = await train(config, { runDir, quiet: values.quiet ?? false, ...(values["cache-dir"] !== undefined ? { cacheDir: values["cache-dir"] } : {}) });
    const exported = tinker !== null && result.ran > 0 ? await tinker.exportFinalWeights(result.policyDir, result.runDir) : null;
    if (exported !== null && !exported.loadable) console.error(`seed train: the server exported ${exported.files.join(", ") || "nothing"} into ${exported.dir} (not a checkpoint seed eval loads; the trained model stays on the server)`);
    const summary = { run_dir: result.runDir, ...(exported !== null ? { final_weights: exported.dir } : {}), preset: config.method.name, updates: result.updates, ran: result.ran, resumed_from: result.resumedFrom, policy: result.policyDir, last: result.last };
    if (values.json) printJson(summary);
    else {
      const l = result.last ?? {};
      console.error(`seed train: ${config.method.name} done, ${result.updates} updates in ${result.runDir} (success ${fmt(l["success_rate"])}, tie ${fmt(l["tie_rate"])}${l["gate_mean"] !== undefined ? `, gate ${fmt(l["gate_mean"])}` : ""})`);
    }
    return 0;
  },
};

function definedFlags<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: string };
}

function fmt(x: unknown): string {
  return typeof x === "number" ? x.toFixed(3) : "-";
}
