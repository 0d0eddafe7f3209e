/**
 * `seed report <run-or-experiment-dir>`: writes `<dir>/report.html` (a self-contained page
 * rendered from the run directories) and prints the results tables as markdown.
 */
import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { experimentMarkdown, experimentSummary, readExperiment } from "../../eval/experiment-results.ts";
import { writeReport } from "../../eval/report.ts";
import { isRunDir } from "../../run/run-dir.ts";
import { parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed report <run-or-experiment-dir> [--out <file.html>] [--json] [--quiet]

Renders <dir>/report.html from the run directories (config.json, metrics.jsonl, samples/, eval/,
analysis/) and prints the results tables (markdown) on stdout.

  --out <file>   where to write the page (default <dir>/report.html)
  --json         print the aggregated results as one JSON object instead of markdown
  --quiet        print only the report's path`;

/** The `report` command. */
export const command: Command = {
  summary: "render an HTML report from run directories",
  async run(argv) {
    const { values, positionals } = parseOptions(argv, { out: { type: "string" }, json: { type: "boolean" }, quiet: { type: "boolean" }, help: { type: "boolean", short: "h" } });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(`give one run or experiment directory\n${USAGE}`);
    const dir = resolve(positionals[0]!);
    const path = writeReport(dir, values.out !== undefined ? { out: resolve(values.out) } : {});
    if (!values.quiet) {
      const data = readExperiment(dir);
      if (values.json) printJson({ report: path, ...experimentSummary(data) });
      else console.log(experimentMarkdown(isRunDir(dir) ? { ...data, name: data.arms[0]?.runs[0]?.config?.method.name ?? data.name } : data));
    }
    if (values.quiet || !values.json) console.error(`report: ${path}`);
    return 0;
  },
};
