/**
 * `seed eval`: evaluates a served model (`--policy openai:<base-url> --model <name>`) or an
 * embedded checkpoint (`--checkpoint <dir>`) on one environment and prints one JSON object with
 * at least `episodes`, `success_rate` and `valid_action_rate` (`--json`), or a short table.
 *
 * Environments and tasks come from the registry (`envs/registry.ts`): generated worlds by default
 * (Sokoban/EZPoints validation seeds, the generated shop's test goals, the synthetic knowledge
 * base's test questions), real data with `--data`. ALFWorld reads real games from `--data`
 * (default split `valid_seen`).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import type { Env, TaskSpec } from "../../envs/env.ts";
import { REGISTRY, envEntry, makeEnv, taskSource } from "../../envs/registry.ts";
import type { Policy } from "../../policy/policy.ts";
import { RemotePolicy } from "../../policy/remote.ts";
import { loadTokenizer } from "../../model/tokenizer/hf-json.ts";
import { appendTrajectories } from "../../agent/jsonl.ts";
import type { HistoryOption } from "../../agent/rollout.ts";
import { evaluate } from "../../eval/evaluate.ts";
import { numberOption, parseOptions, printJson, requireOption } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed eval (--policy openai:<base-url> --model <name> | --checkpoint <dir>) --env <env> [options]

  --env <id>               alfworld, webshop, search, sokoban, ezpoints
  --split <name>           default: valid_seen (alfworld), test (webshop, search), validation (sokoban, ezpoints)
  --episodes <n>           evaluate the first n tasks (default: 128 for generated envs, the whole split otherwise)
  --history <mode>         window, window:<k> or full (default: window with the protocol's k)
  --temperature <t>        default 0.4 (SEED validation)
  --max-action-tokens <n>  default 512
  --action-mask            restrict actions to the admissible list (embedded policies only)
  --seed <n>               default 0
  --data <dir>             real data: ALFWorld games (json_2.1.1/...; default ../shared/data/alfworld),
                           the WebShop catalogue folder, or the Search-QA question sets
  --retriever-url <url>    Search-QA: a Search-R1 /retrieve endpoint instead of in-process BM25
  --tokenizer <file>       the served model's tokenizer.json (not needed with 'seed serve')
  --token-ids <how>        server (default; exact ids) or retokenize (servers without token ids)
  --samples <file.jsonl>   also write the trajectories
  --json                   one JSON object on stdout`;

/** An environment factory and the tasks of a split. */
type EnvSetup = { makeEnv: () => Env; tasks: TaskSpec[]; split: string };

async function setupEnv(envId: string, split: string | undefined, episodes: number | undefined, data: string | undefined, retrieverUrl: string | undefined): Promise<EnvSetup> {
  if (envId === "alfworld" && "missing" in REGISTRY.alfworld) {
    // Until the registry has its ALFWorld entry: the real games from --data.
    const { AlfworldEnv } = await import("../../envs/alfworld/env.ts");
    const { alfworldTasks } = await import("../../envs/alfworld/load.ts");
    const fallback = resolve("../shared/data/alfworld");
    const root = data ?? (existsSync(fallback) ? fallback : undefined);
    if (root === undefined) throw new UsageError("alfworld evaluation reads the real games: pass --data <dir holding json_2.1.1>");
    const s = split ?? "valid_seen";
    return { makeEnv: () => new AlfworldEnv(), tasks: alfworldTasks(root, s), split: s };
  }
  const entry = envEntry(envId);
  const s = split ?? entry.evalSplits[0]!;
  const options = {
    ...(data !== undefined ? { dataPath: resolve(data) } : {}),
    ...(retrieverUrl !== undefined ? { retrieverUrl } : {}),
  };
  const tasks = taskSource(envId, s, { ...options, ...(episodes !== undefined ? { count: episodes } : {}) });
  return { makeEnv: () => makeEnv(envId, options), tasks, split: s };
}

function historyOption(text: string | undefined): HistoryOption | undefined {
  if (text === undefined) return undefined;
  if (text === "full") return { mode: "full" };
  if (text === "window") return { mode: "window" };
  const m = /^window:(\d+)$/.exec(text);
  if (m) return { mode: "window", k: Number(m[1]) };
  throw new UsageError(`--history expects window, window:<k> or full, got '${text}'`);
}

async function loadPolicy(values: Record<string, string | boolean | undefined>): Promise<{ policy: Policy; name: string }> {
  const spec = values["policy"] as string | undefined;
  const checkpoint = values["checkpoint"] as string | undefined;
  if ((spec === undefined) === (checkpoint === undefined)) throw new UsageError("give exactly one of --policy openai:<base-url> and --checkpoint <dir>");
  if (checkpoint !== undefined) {
    const { EmbeddedPolicy } = await import("../../policy/embedded.ts");
    return { policy: await EmbeddedPolicy.load(resolve(checkpoint)), name: checkpoint };
  }
  if (!spec!.startsWith("openai:")) throw new UsageError(`--policy must look like openai:<base-url>, got '${spec}'`);
  const baseUrl = spec!.slice("openai:".length);
  const model = requireOption(values["model"] as string | undefined, "model");
  const tokenIds = (values["token-ids"] as string | undefined) ?? "server";
  if (tokenIds !== "server" && tokenIds !== "retokenize") throw new UsageError(`--token-ids is server or retokenize, got '${tokenIds}'`);
  const tokenizerFile = values["tokenizer"] as string | undefined;
  const policy = await RemotePolicy.connect({
    baseUrl, model, tokenIds,
    ...(tokenizerFile !== undefined ? { tokenizer: loadTokenizer(resolve(tokenizerFile)) } : {}),
  });
  return { policy, name: `openai:${baseUrl}#${model}` };
}

export const command: Command = {
  summary: "evaluate a checkpoint or a served model on a benchmark",
  async run(argv) {
    const { values } = parseOptions(argv, {
      policy: { type: "string" },
      model: { type: "string" },
      checkpoint: { type: "string" },
      env: { type: "string" },
      split: { type: "string" },
      episodes: { type: "string" },
      history: { type: "string" },
      temperature: { type: "string" },
      "max-action-tokens": { type: "string" },
      "action-mask": { type: "boolean" },
      seed: { type: "string" },
      data: { type: "string" },
      "retriever-url": { type: "string" },
      tokenizer: { type: "string" },
      "token-ids": { type: "string" },
      samples: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean" },
    }, false);
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const envId = requireOption(values.env, "env");
    const episodes = values.episodes === undefined ? undefined : numberOption(values.episodes, "episodes", 0);
    if (episodes !== undefined && (!Number.isInteger(episodes) || episodes < 1)) throw new UsageError(`--episodes must be a positive integer, got ${values.episodes}`);
    const seed = numberOption(values.seed, "seed", 0);
    const history = historyOption(values.history);
    const setup = await setupEnv(envId, values.split, episodes, values.data, values["retriever-url"]);
    if (setup.tasks.length === 0) throw new UsageError(`${envId} has no tasks in split '${setup.split}'`);
    const { policy, name } = await loadPolicy(values);
    const { summary, trajectories } = await evaluate(policy, setup.makeEnv, setup.tasks, {
      seed,
      ...(episodes !== undefined ? { episodes: Math.min(episodes, setup.tasks.length) } : {}),
      ...(history ? { history } : {}),
      ...(values.temperature !== undefined ? { temperature: numberOption(values.temperature, "temperature", 0.4) } : {}),
      ...(values["max-action-tokens"] !== undefined ? { maxActionTokens: numberOption(values["max-action-tokens"], "max-action-tokens", 512) } : {}),
      ...(values["action-mask"] ? { actionMask: true } : {}),
      ...(values.json ? {} : { onBatch: (done: number, total: number) => process.stderr.write(`\r${done}/${total} episodes`) }),
    });
    if (values.samples !== undefined) appendTrajectories(resolve(values.samples), trajectories);
    const result = { ...summary, split: setup.split, policy: name };
    if (values.json) printJson(result);
    else {
      process.stderr.write("\n");
      console.log(`${envId}/${setup.split}: ${summary.episodes} episodes, success ${(100 * summary.success_rate).toFixed(1)}%, valid actions ${(100 * summary.valid_action_rate).toFixed(1)}%, mean return ${summary.mean_return.toFixed(2)}, mean length ${summary.mean_length.toFixed(1)} (${summary.seconds.toFixed(1)} s)`);
    }
    return 0;
  },
};
