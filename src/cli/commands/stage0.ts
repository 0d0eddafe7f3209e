/**
 * `seed stage0`: build the embedded base agent (behaviour cloning on noisy-expert episodes, some
 * with hints inserted by H) and report its success without and with hints and the hint log-prob
 * shift. Settings are the `stage0` and `env` sections of the resolved config.
 */
import { join, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { assertReplaceable } from "../../core/fs.ts";
import { resolveConfig } from "../../config/presets.ts";
import { splitOverrideArgs } from "../../config/overrides.ts";
import { runStage0, STAGE_OUTPUT } from "../../train/pretrain/stage0.ts";
import { parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed stage0 --out DIR [--quick] [--config FILE] [--<key>=<value> ...]

Build the embedded base agent. Writes DIR/model (weights + tokenizer) and DIR/stage0.json.

options:
  --out DIR            output directory (required)
  --data DIR           real data instead of generated games/shop (same as --env.data=DIR): ALFWorld json_2.1.1,
                       or WebShop's folder with items_shuffle_1000.json (with --env.name=webshop);
                       Search-QA (--env.name=search) trains on its generated knowledge base only
  --quick              tiny model and corpus (seconds)
  --config FILE        a JSON file with a partial config
  --json               print the report as one JSON object
  --quiet              no progress bars
  --<key>=<value>      e.g. --stage0.games=200 --stage0.steps=800 --stage0.model=tiny
                       --stage0.init=DIR fine-tunes a pretrained checkpoint (seed model import-gguf)
                       instead of a fresh model, e.g. --stage0.steps=150 --stage0.batch=2 --stage0.lr=1e-4`;

const OPTIONS = {
  out: { type: "string" }, data: { type: "string" }, quick: { type: "boolean" }, config: { type: "string" }, json: { type: "boolean" },
  quiet: { type: "boolean" }, help: { type: "boolean", short: "h" },
} as const;

/** The `stage0` command. */
export const command: Command = {
  summary: "behaviour-clone a base agent for the embedded model",
  async run(argv) {
    const { overrides, rest } = splitOverrideArgs(argv);
    const { values } = parseOptions(rest, OPTIONS, false);
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (values.out === undefined) throw new UsageError("missing required option --out");
    assertReplaceable(values.out, STAGE_OUTPUT, "--out");
    if (values.data !== undefined) overrides.push(`--env.data=${resolve(values.data)}`);
    const config = resolveConfig({ quick: values.quick ?? false, ...(values.config !== undefined ? { file: values.config } : {}), overrides });
    const r = await runStage0(config, { outDir: values.out, quiet: values.quiet ?? false });
    if (values.json) printJson(r);
    else {
      console.log(`stage0: ${r.episodes} episodes (${r.hintedEpisodes} hinted), ${r.model.parameters} parameters, BC loss ${r.bc.firstLoss.toFixed(3)} -> ${r.bc.finalLoss.toFixed(3)}`);
      if ("env" in r) {
        const line = (o: { score: number; success: number }) => `score ${o.score.toFixed(3)}, success ${o.success.toFixed(3)}`;
        console.log(`  ${r.evalSplit} goals (${r.evalGames}): ${line(r.noHint)} without a hint; ${line(r.correctHint)} with the correct hint; ${line(r.misleadingHint)} with a misleading one`);
      } else {
        console.log(`  held-out success: ${r.successNoHint.toFixed(3)} without a hint, ${r.successCorrectHint.toFixed(3)} with the correct hint (${r.evalGames} games)`);
        console.log(`  hint log-prob shift per expert action: correct - misleading ${r.logprobShiftCorrectVsMisleading.toFixed(3)}, correct - none ${r.logprobShiftCorrectVsNone.toFixed(3)} (${r.shiftActions} actions)`);
      }
      console.log(`  wrote ${join(values.out, "model")} and ${join(values.out, "stage0.json")}`);
    }
    return 0;
  },
};
