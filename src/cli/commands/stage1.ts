/**
 * `seed stage1`: offline collection with the base policy, external analyzer labels with their
 * acceptance rate, and hindsight-skill SFT with the analyzer template the policy uses in Stage 2.
 */
import { join, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { assertReplaceable } from "../../core/fs.ts";
import { baseDirs, defaultCacheDir, resolveBase } from "../../train/pretrain/base.ts";
import { resolveConfig } from "../../config/presets.ts";
import { splitOverrideArgs } from "../../config/overrides.ts";
import { runStage0, STAGE_OUTPUT } from "../../train/pretrain/stage0.ts";
import { runStage1 } from "../../train/pretrain/stage1.ts";
import { existsSync } from "node:fs";
import { parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed stage1 --out DIR [--base DIR] [--quick] [--<key>=<value> ...]

Collect M x K0 rollouts of the base policy, label them with the external analyzer, validate, and
SFT the policy on (trajectory -> skill). Writes DIR/model, DIR/stage1.json, DIR/labels.jsonl.

options:
  --out DIR            output directory (required)
  --base DIR           starting checkpoint (default: the cached Stage-0 base of this config, built if needed)
  --data DIR           real data to collect on (same as --env.data=DIR), as for seed stage0
  --analyzer NAME      rule (default) | llm | degraded (same as --stage1.analyzer=NAME)
  --endpoint URL       OpenAI-compatible base URL for the llm analyzer (e.g. http://127.0.0.1:8000/v1)
  --model NAME         model name at the endpoint
  --cache-dir DIR      cache of the Stage-0 base (default $SEED_CACHE_DIR, else ~/.cache/seed-rl)
  --quick              tiny sizes
  --config FILE        a JSON file with a partial config
  --json               print the report as one JSON object
  --quiet              no progress bars
  --<key>=<value>      e.g. --stage1.tasks=180 --stage1.rollouts=8`;

const OPTIONS = {
  out: { type: "string" }, base: { type: "string" }, data: { type: "string" }, analyzer: { type: "string" }, endpoint: { type: "string" }, model: { type: "string" },
  "cache-dir": { type: "string" }, quick: { type: "boolean" }, config: { type: "string" }, json: { type: "boolean" }, quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The `stage1` command. */
export const command: Command = {
  summary: "collect, label and SFT hindsight skills",
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
    if (values.analyzer !== undefined) overrides.push(`--stage1.analyzer=${values.analyzer}`);
    if (values.endpoint !== undefined) overrides.push(`--stage1.endpoint=${values.endpoint}`);
    if (values.model !== undefined) overrides.push(`--stage1.model=${values.model}`);
    const config = resolveConfig({ quick: values.quick ?? false, ...(values.config !== undefined ? { file: values.config } : {}), overrides });
    const quiet = values.quiet ?? false;
    let base = values.base ?? (config.policy.base === "" ? undefined : resolveBase(config.policy.base));
    if (base === undefined) {
      const dirs = baseDirs(config, values["cache-dir"] ?? defaultCacheDir());
      if (!existsSync(join(dirs.stage0, "model", "config.json"))) await runStage0(config, { outDir: dirs.stage0, quiet });
      base = join(dirs.stage0, "model");
    }
    const r = await runStage1(config, { baseDir: base, outDir: values.out, quiet });
    if (values.json) printJson(r);
    else {
      console.log(`stage1: ${r.trajectories} trajectories (${r.tasks} tasks x ${r.rollouts}), base success ${r.collectionSuccess.toFixed(3)}`);
      console.log(`  analyzer ${r.analyzer}: acceptance rate ${r.acceptanceRate.toFixed(3)} (${r.accepted} accepted, ${r.droppedTooLong} too long for the answer budget)`);
      console.log(`  SFT ${r.sftExamples} examples, ${r.sft.steps} steps, loss ${r.sft.firstLoss.toFixed(3)} -> ${r.sft.finalLoss.toFixed(3)}`);
      console.log(`  the policy's own skill validity on ${r.heldOut} held-out trajectories: ${r.baseSkillValidRate.toFixed(3)} before SFT, ${r.policySkillValidRate.toFixed(3)} after`);
    }
    return 0;
  },
};
