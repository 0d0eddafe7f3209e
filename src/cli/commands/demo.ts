/**
 * `seed demo [--quick] [--out <dir>]`: Stage 0 → Stage 1 → SEED and GRPO → evaluation on the
 * seen and unseen splits (the real ALFWorld games when their data is present, generated games
 * otherwise) → report, with progress bars; ends with the report's path and a three-line verdict.
 * The logic is `eval/demo.ts`.
 */
import { join, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { DEFAULT_ALFWORLD_DATA, DEMO_ENVS, demoPreset, hasAlfworldData, runDemo, type DemoEnv } from "../../eval/demo.ts";
import { parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed demo [--env alfworld|webshop|search] [--data <dir> | --generated] [--quick] [--out <dir>] [--seeds <n,...>] [--cache-dir <dir>] [--json] [--quiet]

The whole pipeline on the embedded defaults: Stage 0 (base agent), Stage 1 (hindsight-skill SFT),
SEED and GRPO side by side with the untrained checkpoints as the before-training rows,
evaluation on the ALFWorld seen and unseen splits, and an HTML report.

With the ALFWorld data (--data, or ${DEFAULT_ALFWORLD_DATA} when it is there) it runs on the
real games: it starts from the real-room base and its Stage-1 checkpoint shipped in
assets/bases/alfworld-real, and each split is a fixed panel of 64 real games
(configs/experiments/demo-real.json, about 17 minutes on two idle cores). Without the data, or with --generated, it runs on generated games and builds its own
Stage 0 (configs/experiments/demo.json, about 15 minutes). --quick runs the same stages at smoke
sizes in well under 3 minutes (demo-real-quick.json, demo-quick.json). Running it again with the
same --out resumes and reuses what is finished.

  --data <dir>       the ALFWorld data root (json_2.1.1/ and json_2.1.1_train.tar.xz)
  --generated        generated games even when the data is present

  --env <name>       alfworld (default); webshop: the generated shop, evaluated on its 128 test
                     goals (configs/experiments/demo-webshop.json, demo-webshop-quick.json);
                     search: the generated Search-QA world, evaluated on 500 test questions
                     (configs/experiments/demo-search.json, demo-search-quick.json)
  --out <dir>        output folder (default runs/demo, runs/demo-quick with --quick, runs/demo-webshop...)
  --seeds <list>     training seeds, e.g. 1,2,3 (default: the preset's)
  --cache-dir <dir>  where Stage-0/1 bases are cached (default <out>/cache)
  --json             print summary.json's path, the report's path and the verdict as JSON
  --quiet            no progress bars`;

/** The `demo` command. */
export const command: Command = {
  summary: "the whole pipeline on the embedded defaults, ending in a report",
  async run(argv) {
    const { values, positionals } = parseOptions(argv, {
      quick: { type: "boolean" }, env: { type: "string" }, data: { type: "string" }, generated: { type: "boolean" }, out: { type: "string" }, seeds: { type: "string" }, "cache-dir": { type: "string" },
      json: { type: "boolean" }, quiet: { type: "boolean" }, help: { type: "boolean", short: "h" },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\n${USAGE}`);
    const seeds = values.seeds?.split(",").map((s) => {
      const n = Number(s.trim());
      if (!Number.isInteger(n) || n < 0) throw new UsageError(`--seeds expects non-negative integers separated by commas, got '${values.seeds}'`);
      return n;
    });
    const env = values.env ?? "alfworld";
    if (!(DEMO_ENVS as readonly string[]).includes(env)) throw new UsageError(`--env expects one of ${DEMO_ENVS.join(", ")}, got '${env}'`);
    const demoEnv = env as DemoEnv;
    if (values.data !== undefined && values.generated) throw new UsageError("--data and --generated exclude each other");
    if (values.data !== undefined && demoEnv !== "alfworld") throw new UsageError(`--data is for the ALFWorld demo; --env ${demoEnv} runs on its generated world`);
    // Real games when the data is there (named, or at the presets' default place), unless --generated.
    const found = demoEnv === "alfworld" && !values.generated && hasAlfworldData(resolve(DEFAULT_ALFWORLD_DATA)) ? resolve(DEFAULT_ALFWORLD_DATA) : undefined;
    const data = values.data !== undefined ? resolve(values.data) : found;
    const out = resolve(values.out ?? join("runs", demoPreset(demoEnv, values.quick ?? false, data !== undefined)));
    const result = await runDemo({
      quick: values.quick ?? false, env: demoEnv, out, quiet: values.quiet ?? false, ...(data !== undefined ? { data } : {}),
      ...(seeds ? { seeds } : {}), ...(values["cache-dir"] !== undefined ? { cacheDir: resolve(values["cache-dir"]) } : {}),
    });
    if (values.json) printJson({ report: result.report, summary: result.summaryPath, verdict: result.verdict, seconds: result.seconds });
    else {
      console.log(`\nreport: ${result.report}\nsummary: ${result.summaryPath}  (${result.seconds.toFixed(0)} s)\n`);
      for (const line of result.verdict) console.log(line);
    }
    return 0;
  },
};
