/**
 * `seed experiment <preset>`: methods x seeds from `configs/experiments/<preset>.json` (or a file),
 * trained, evaluated and analysed into `<out>/runs/<arm>/s<seed>/`, then aggregated into
 * `results.json`, `results.md` and `report.html`. Resumable: run the same command again.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { runExperiment } from "../../eval/experiment.ts";
import { experimentMarkdown, readExperiment, writeExperimentResults } from "../../eval/experiment-results.ts";
import { listExperimentNames, readExperimentSpec } from "../../eval/experiment-spec.ts";
import { writeReport } from "../../eval/report.ts";
import { splitOverrideArgs } from "../../config/overrides.ts";
import { numberOption, parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed experiment <preset|file.json> [--out <dir>] [options] [--<key>=<value> ...]
       seed experiment --list

Runs every arm x seed of an experiment preset (configs/experiments/), resumably, then writes
results.json, results.md and report.html into --out.

  --out <dir>          output folder (default runs/experiments/<preset>)
  --seeds <list>       training seeds, e.g. 1,2,3 (default: the preset's)
  --only <arms>        only these arms (comma-separated names)
  --eval-count <n>     evaluate only the first n tasks of each split (0: whole splits)
  --quick              apply the quick size overlay to every arm (a smoke run)
  --cache-dir <dir>    where Stage-0/1 bases are cached (default <out>/cache)
  --report-only        do not run anything: aggregate what is there and write the report
  --list               list the presets
  --json               print results.json's content at the end
  --quiet              no progress bars
  --<key>=<value>      a config override for every arm, e.g. --run.updates=20 --env.data=../shared/data/alfworld`;

function numberList(text: string | undefined, flag: string): number[] | undefined {
  if (text === undefined) return undefined;
  return text.split(",").map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${flag} expects non-negative integers separated by commas, got '${text}'`);
    return n;
  });
}

/** The `experiment` command. */
export const command: Command = {
  summary: "methods x seeds, sweeps, with confidence intervals",
  async run(argv) {
    const { overrides, rest } = splitOverrideArgs(argv);
    const { values, positionals } = parseOptions(rest, {
      out: { type: "string" }, seeds: { type: "string" }, only: { type: "string" }, "eval-count": { type: "string" }, quick: { type: "boolean" },
      "cache-dir": { type: "string" }, "report-only": { type: "boolean" }, list: { type: "boolean" }, json: { type: "boolean" }, quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (values.list) {
      for (const name of listExperimentNames()) {
        const spec = readExperimentSpec(name);
        console.log(`${name.padEnd(20)} ${spec.summary}\n${"".padEnd(20)} arms: ${spec.arms.map((a) => a.name).join(", ")}; seeds ${spec.seeds.join(",")}`);
      }
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(`give one experiment preset\n${USAGE}`);
    const spec = readExperimentSpec(positionals[0]!);
    const out = resolve(values.out ?? `runs/experiments/${spec.name}`);
    const evalCount = values["eval-count"] === undefined ? undefined : numberOption(values["eval-count"], "eval-count", 0);
    if (evalCount !== undefined && (!Number.isInteger(evalCount) || evalCount < 0)) throw new UsageError(`--eval-count must be a non-negative integer, got ${values["eval-count"]}`);
    const seeds = numberList(values.seeds, "seeds");
    if (!values["report-only"]) {
      await runExperiment(spec, {
        out, quick: values.quick ?? false, overrides, quiet: values.quiet ?? false,
        ...(seeds ? { seeds } : {}), ...(values.only ? { only: values.only.split(",").map((s) => s.trim()) } : {}),
        ...(evalCount !== undefined ? { evalCount } : {}), ...(values["cache-dir"] !== undefined ? { cacheDir: resolve(values["cache-dir"]) } : {}),
      });
    }
    const data = readExperiment(out);
    const files = writeExperimentResults(data);
    const report = writeReport(out);
    if (values.json) printJson(JSON.parse(readFileSync(files.json, "utf8")));
    else console.log(experimentMarkdown(data));
    console.error(`results: ${files.md}\nreport: ${report}`);
    return 0;
  },
};
