/**
 * `seed env play <env> ...`: replay an action file through an environment and print the
 * transcript, for debugging agents and for differential tests against the reference engines.
 * With `--json`, one object per line: the reset first (`step`, `observation`, `admissible`),
 * then per action `step`, `action`, `observation`, `admissible`, `reward`, `done`, `won`.
 *
 * ALFWorld plays a real game file (`--game`) or a generated game (`--split`, `--index`,
 * `--seed`); every other environment of the registry plays the `--index`-th task of `--split`.
 * An environment with its own options gets an entry in `PLAYERS`.
 */
import { readFileSync } from "node:fs";
import { UsageError } from "../../core/errors.ts";
import type { Env, Observation, TaskSpec } from "../../envs/env.ts";
import { GENERATED_SPLITS, alfworldGeneratedTasks, loadGameFile, makeAlfworldEnv, type GeneratedSplit } from "../../envs/alfworld/index.ts";
import { ENV_NAMES, isEnvName, makeEnv, taskSource } from "../../envs/registry.ts";
import { numberOption, parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed env play alfworld --game <game.tw-pddl> --actions <file> [--json]
       seed env play <env> --split <split> --index N [--seed N] [--data <path>] --actions <file> [--json]

Replay one action per line of <file> ('-' reads stdin) and print the transcript. Any line is
sent as is (an invalid one gets the benchmark's answer, 'Nothing happens.' in ALFWorld). The
replay stops when the episode ends; unused actions are reported on stderr.

<env> is alfworld, or any environment of the registry (webshop, search, sokoban, ezpoints),
whose task is the N-th of the split.

options:
  --game <file>        a real ALFWorld game file
  --split <split>      task split (ALFWorld generated games: ${GENERATED_SPLITS.join(", ")})
  --index N            task index within the split (default 0)
  --seed N             generator / world seed (default 0)
  --data <path>        real benchmark data for registry environments (their dataPath)
  --actions <file>     the actions, one per line
  --max-steps N        step limit (default: the protocol's, 30 for ALFWorld)
  --json               one JSON object per line instead of a readable transcript`;

const OPTIONS = {
  game: { type: "string" }, split: { type: "string" }, index: { type: "string" }, seed: { type: "string" }, data: { type: "string" },
  actions: { type: "string" }, "max-steps": { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" },
} as const;

type PlayOptions = {
  game?: string | undefined; split?: string | undefined; index?: string | undefined; seed?: string | undefined;
  data?: string | undefined; maxSteps?: number | undefined;
};

/** How `play` builds an environment and its task from the command-line options. */
type Player = (o: PlayOptions) => { env: Env; task: TaskSpec };

function intOption(value: string | undefined, flag: string, fallback: number): number {
  const n = numberOption(value, flag, fallback);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${flag} expects a non-negative integer, got '${value}'`);
  return n;
}

const PLAYERS: Readonly<Record<string, Player>> = {
  alfworld(o) {
    const env = makeAlfworldEnv(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {});
    if (o.game !== undefined) {
      if (o.split !== undefined) throw new UsageError("give either --game or --split, not both");
      return { env, task: { id: o.game, split: "file", payload: { game: loadGameFile(o.game) } } };
    }
    if (o.split === undefined) throw new UsageError("alfworld needs --game <game.tw-pddl> or --split <split> for a generated game");
    if (!(GENERATED_SPLITS as readonly string[]).includes(o.split)) throw new UsageError(`unknown split '${o.split}' (one of ${GENERATED_SPLITS.join(", ")})`);
    const index = intOption(o.index, "index", 0);
    const seed = intOption(o.seed, "seed", 0);
    const task = alfworldGeneratedTasks(o.split as GeneratedSplit, index + 1, { seed })[index]!;
    return { env, task };
  },
};

/** Any other environment of the registry: the `--index`-th task of `--split`. */
function registryPlayer(name: string): Player {
  return (o) => {
    if (o.game !== undefined) throw new UsageError(`--game is for alfworld; ${name} takes --split and --index`);
    if (o.split === undefined) throw new UsageError(`${name} needs --split <split> (and --index N)`);
    const index = intOption(o.index, "index", 0);
    const seed = intOption(o.seed, "seed", 0);
    const options = { seed, ...(o.data !== undefined ? { dataPath: o.data } : {}), ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}) };
    const tasks = taskSource(name, o.split, { ...options, count: index + 1 });
    const task = tasks[index];
    if (task === undefined) throw new UsageError(`${name} split '${o.split}' has only ${tasks.length} tasks`);
    return { env: makeEnv(name, options), task };
  };
}

function readActions(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read --actions ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function admissibleOf(obs: Observation): readonly string[] | undefined {
  return obs.admissible;
}

async function play(name: string, o: PlayOptions & { actions?: string | undefined; json?: boolean | undefined }): Promise<number> {
  if (PLAYERS[name] === undefined && !isEnvName(name)) throw new UsageError(`unknown environment '${name}' (one of ${ENV_NAMES.join(", ")})`);
  const player = PLAYERS[name] ?? registryPlayer(name);
  if (o.actions === undefined) throw new UsageError("missing required option --actions <file>");
  const actions = readActions(o.actions);
  const { env, task } = player(o);
  const first = env.reset(task, 0);
  if (o.json === true) printJson({ step: 0, observation: first.text, admissible: admissibleOf(first) ?? null });
  else console.log(first.text);
  let step = 0;
  for (const action of actions) {
    await env.prepare?.(action);
    const r = env.step(action);
    step++;
    if (o.json === true) {
      printJson({ step, action, observation: r.observation.text, admissible: admissibleOf(r.observation) ?? null, reward: r.reward, done: r.done, won: r.won });
    } else {
      console.log(`\n> ${action}\n${r.observation.text}${r.reward !== 0 ? `\n[reward ${r.reward}]` : ""}${r.done ? `\n[done, ${r.won ? "won" : "not won"}]` : ""}`);
    }
    if (r.done) break;
  }
  if (step < actions.length) console.error(`seed env play: the episode ended after ${step} actions; ${actions.length - step} left unused`);
  return 0;
}

/** The `seed env` command. */
export const command: Command = {
  summary: "play an environment from an action file",
  async run(argv) {
    const { values: o, positionals } = parseOptions(argv, OPTIONS);
    if (o.help === true || positionals.length === 0) {
      console.log(HELP);
      return o.help === true ? 0 : 2;
    }
    const [action, name, ...extra] = positionals;
    if (action !== "play") throw new UsageError(`unknown action '${action}' (play); see 'seed env --help'`);
    if (name === undefined) throw new UsageError("seed env play needs an environment name (alfworld)");
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
    const maxSteps = o["max-steps"] === undefined ? undefined : intOption(o["max-steps"], "max-steps", 30);
    if (maxSteps === 0) throw new UsageError("--max-steps must be at least 1");
    return play(name, { game: o.game, split: o.split, index: o.index, seed: o.seed, data: o.data, maxSteps, actions: o.actions, json: o.json });
  },
};
