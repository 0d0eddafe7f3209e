/**
 * `seed data check|import alfworld <dir>`: check a user's ALFWorld download (replay every
 * walkthrough, or play the hand-coded expert) and validate + index it. The logic lives in
 * `envs/alfworld/`; this file parses options, draws the progress bar and prints.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataError, UsageError } from "../../core/errors.ts";
import { Progress } from "../../core/progress.ts";
import {
  ALFWORLD_SPLITS, TASK_TYPES, checkGames, listGames, loadGameFile, replayWalkthrough, resolveAlfworldRoot,
  type CheckReport, type GameRef,
} from "../../envs/alfworld/index.ts";
import { numberOption, parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed data check alfworld <dir> [--walkthroughs | --expert] [options]
       seed data import alfworld <dir> [--out <file>] [--json]

<dir> holds json_2.1.1/{train,valid_seen,valid_unseen} (any subset), or those split folders.

check: replay every game's walkthrough (default), or play the hand-coded expert (--expert),
and count games and wins per split and task type.
  --walkthroughs       replay the stored walkthroughs (default)
  --expert             play the observation-only expert instead (30 steps per game)
  --epsilon X          with --expert: share of random admissible actions (noisy expert, default 0)
  --seed N             with --epsilon: seed of the random draws (default 0)
  --split a,b          splits to check (default: all present)
  --limit N            at most N games (the first N in sorted order)
  --json               print one JSON object {games, won, by_split, by_type, ...}
  --quiet              no progress bar

import: parse every game file, replay its walkthrough, and write an index of the games per
split and task type (default <dir>/seed-alfworld-index.json). Problems are listed; the exit
code is 1 if any game is broken.
  --out <file>         where to write the index
  --json               print the summary as one JSON object`;

const OPTIONS = {
  walkthroughs: { type: "boolean" }, expert: { type: "boolean" }, epsilon: { type: "string" }, seed: { type: "string" },
  split: { type: "string" }, limit: { type: "string" },
  json: { type: "boolean" }, quiet: { type: "boolean" }, out: { type: "string" }, help: { type: "boolean", short: "h" },
} as const;

function selectRefs(dir: string, split: string | undefined, limit: string | undefined): GameRef[] {
  const splits = split === undefined ? [...ALFWORLD_SPLITS] : split.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const s of splits) {
    if (!(ALFWORLD_SPLITS as readonly string[]).includes(s)) throw new UsageError(`unknown split '${s}' (one of ${ALFWORLD_SPLITS.join(", ")})`);
  }
  let refs = listGames(dir, splits);
  if (refs.length === 0) throw new DataError(`${dir}: no game.tw-pddl files under json_2.1.1/{${splits.join(",")}}/<task>/trial_<ID>/`);
  if (limit !== undefined) {
    const n = numberOption(limit, "limit", 0);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--limit expects a positive integer, got '${limit}'`);
    refs = refs.slice(0, n);
  }
  return refs;
}

function printTable(report: CheckReport, mode: string): void {
  const pct = (won: number, games: number): string => (games === 0 ? "-" : `${((100 * won) / games).toFixed(1)}%`);
  console.log(`${mode}: won ${report.won}/${report.games} (${pct(report.won, report.games)}), mean steps of won games ${report.mean_steps_won.toFixed(2)}`);
  for (const [name, t] of [...Object.entries(report.by_split), ...Object.entries(report.by_type)]) {
    if (t.games > 0) console.log(`  ${name.padEnd(32)} ${String(t.won).padStart(5)}/${String(t.games).padEnd(5)} ${pct(t.won, t.games)}`);
  }
  for (const f of report.failures) console.log(`  failed: ${f}`);
}

async function check(dir: string, o: {
  expert?: boolean; walkthroughs?: boolean; epsilon?: string; seed?: string; split?: string; limit?: string; json?: boolean; quiet?: boolean;
}): Promise<number> {
  if (o.expert === true && o.walkthroughs === true) throw new UsageError("choose one of --walkthroughs and --expert");
  const mode = o.expert === true ? "expert" : "walkthroughs";
  if (mode !== "expert" && (o.epsilon !== undefined || o.seed !== undefined)) throw new UsageError("--epsilon and --seed go with --expert");
  const epsilon = numberOption(o.epsilon, "epsilon", 0);
  if (!(epsilon >= 0 && epsilon <= 1)) throw new UsageError(`--epsilon must be in [0, 1], got '${o.epsilon}'`);
  const seed = numberOption(o.seed, "seed", 0);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed expects a non-negative integer, got '${o.seed}'`);
  const refs = selectRefs(dir, o.split, o.limit);
  const bar = new Progress(`check ${mode}`, refs.length, { silent: o.quiet === true });
  const report = checkGames(refs, mode, { epsilon, seed, onGame: () => bar.tick(1) });
  bar.done(`${report.won}/${report.games} won`);
  if (o.json === true) printJson({ mode, ...(mode === "expert" ? { epsilon } : {}), ...report });
  else printTable(report, mode);
  return mode === "walkthroughs" && report.won !== report.games ? 1 : 0;
}

async function importData(dir: string, o: { out?: string; json?: boolean; quiet?: boolean }): Promise<number> {
  const base = resolveAlfworldRoot(dir);
  const refs = listGames(dir);
  if (refs.length === 0) throw new DataError(`${dir}: no game.tw-pddl files under json_2.1.1/<split>/<task>/trial_<ID>/`);
  const bar = new Progress("import alfworld", refs.length, { silent: o.quiet === true });
  const splits: Record<string, { games: number; by_type: Record<string, number>; files: string[] }> = {};
  const problems: string[] = [];
  for (const ref of refs) {
    bar.tick(1);
    let problem: string | undefined;
    try {
      const out = replayWalkthrough(loadGameFile(ref.path, ref.id));
      if (!out.won) problem = `walkthrough does not win (${out.problem ?? "unknown"})`;
    } catch (e) {
      if (!(e instanceof DataError)) throw e;
      problem = e.message;
    }
    if (problem !== undefined) {
      problems.push(`${ref.id}: ${problem}`);
      continue;
    }
    const s = (splits[ref.split] ??= { games: 0, by_type: Object.fromEntries(TASK_TYPES.map((t) => [t, 0])), files: [] });
    s.games++;
    s.by_type[ref.taskType] = (s.by_type[ref.taskType] ?? 0) + 1;
    s.files.push(ref.id);
  }
  bar.done(`${refs.length - problems.length} valid`);
  const outPath = resolve(o.out ?? join(dir, "seed-alfworld-index.json"));
  const index = { format: "seed-alfworld-index/1", root: resolve(base), games: refs.length - problems.length, splits, problems };
  try {
    writeFileSync(outPath, JSON.stringify(index, null, 1) + "\n");
  } catch (e) {
    throw new UsageError(`cannot write the index to ${outPath} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); choose a file with --out`);
  }
  const summary = {
    games: refs.length, valid: refs.length - problems.length, problems: problems.length, index: outPath,
    by_split: Object.fromEntries(Object.entries(splits).map(([k, v]) => [k, v.games])),
  };
  if (o.json === true) printJson(summary);
  else {
    console.log(`indexed ${summary.valid}/${summary.games} games -> ${outPath}`);
    for (const [k, v] of Object.entries(summary.by_split)) console.log(`  ${k.padEnd(14)} ${v}`);
  }
  for (const p of problems.slice(0, 20)) console.error(`problem: ${p}`);
  if (problems.length > 20) console.error(`... and ${problems.length - 20} more problems (all listed in the index)`);
  return problems.length > 0 ? 1 : 0;
}

/** The `seed data` command. */
export const command: Command = {
  summary: "import and check benchmark data (ALFWorld)",
  async run(argv) {
    const { values: o, positionals } = parseOptions(argv, OPTIONS);
    if (o.help === true || positionals.length === 0) {
      console.log(HELP);
      return o.help === true ? 0 : 2;
    }
    const [action, bench, dir, ...extra] = positionals;
    if (action !== "check" && action !== "import") throw new UsageError(`unknown action '${action}' (check or import); see 'seed data --help'`);
    if (bench !== "alfworld") throw new UsageError(`seed data ${action} supports only 'alfworld', got '${bench ?? ""}'`);
    if (dir === undefined) throw new UsageError(`seed data ${action} alfworld needs a data directory`);
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
    return action === "check" ? check(dir, o) : importData(dir, o);
  },
};
