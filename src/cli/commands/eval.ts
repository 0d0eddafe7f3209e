/**
 * `seed eval`: evaluates an embedded checkpoint (`--checkpoint`: a run directory, one of its
 * checkpoints, or a policy directory) or a served model (`--policy openai:<base-url> --model
 * <name>`) on one benchmark split, and prints the paper's columns with 95% intervals: ALFWorld
 * success per task type and the macro average (`--split valid_seen`: all 140 games; `valid_unseen`:
 * all 134), WebShop score and success on the 128 test goals, Search-QA exact match per dataset and
 * the average. `--json` prints one JSON object (stable keys), `--markdown` a table.
 *
 * A checkpoint is evaluated the way it was trained to act (its run's config, or a Stage-0/1
 * model's recorded settings: environment, prompt style, history mode, action budget, action mask,
 * evaluation skill of Skill-GRPO* and Skill-Prompt; `eval/agent-settings.ts`); flags override. A
 * model served by `seed serve` gets the same settings, which the server publishes, so served and
 * in-process evaluations of one checkpoint agree; other servers' models get verl-agent's prompt
 * and the protocol's window history unless told otherwise. Tasks come from `--data`
 * (real benchmark files) or the run's own world (generated ALFWorld games, the generated shop,
 * the synthetic knowledge base).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { defaultConfig, mergeConfig, type SeedConfig } from "../../config/config.ts";
import { benchmarkJson, defaultEvalSplit, evalSuite, evaluateBenchmark, type Decoding } from "../../eval/benchmark.ts";
import { apiKeyFrom } from "../../core/http.ts";
import { connectServedPolicy, openPolicyDir, servedAgentSettings } from "../../eval/policies.ts";
import { checkpointAgentSettings } from "../../eval/agent-settings.ts";
import { CHOICES } from "../../config/check.ts";
import { writeEvalRecord } from "../../eval/run-data.ts";
import { resolveCheckpoint } from "../../run/run-dir.ts";
import { resultsTable } from "../../eval/tables.ts";
import { aggregate } from "../../eval/aggregate.ts";
import { numberOption, parseOptions, printJson, requireOption } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed eval (--checkpoint <dir> | --policy openai:<base-url> --model <name>) [--env <env>] [options]

  --checkpoint <dir>       a run directory (its newest checkpoint), checkpoints/update-N, or a policy dir
  --env <id>               alfworld, webshop, search, sokoban, ezpoints (default: the run's)
  --split <name>           alfworld: valid_seen (default) or valid_unseen; webshop: test; search: a dataset
                           name or 'all'; sokoban/ezpoints: validation
  --data <dir>             real data: the ALFWorld root (json_2.1.1/...), the WebShop folder, the Search-QA
                           folder; default: the run's data (generated worlds for the embedded defaults);
                           served models on alfworld default to ../shared/data/alfworld
  --episodes <n>           only the first n tasks (default: the whole split)
  --panel-seed <n>         with --episodes: draw the n tasks from the whole split with this seed
                           (Search-QA 'all': from all sets together); the panel's hash is printed
  --greedy                 greedy decoding (default: sampling at the run's eval temperature, 0.4)
  --temperature <t>        sampling temperature
  --seed <n>               seed of sampling and environment resets (default 0)
  --history <mode>         window, window:<k> or full (default: the checkpoint's; unknown served models: window)
  --prompt <style>         compact or verl (default: the checkpoint's; unknown served models: verl)
  --max-action-tokens <n>  default: the run's (48 embedded), 512 for served models
  --max-steps <n>          step limit (default: real ALFWorld games 30; else the run's; else the protocol's:
                           ALFWorld 30, WebShop 15, Search 4)
  --action-mask            restrict actions to the admissible list (embedded policies only)
  --tokenizer <file>       the served model's tokenizer.json (not needed with 'seed serve')
  --token-ids <how>        server (default; exact ids) or retokenize
  --api-key <key>          sent as "Authorization: Bearer <key>" to the served model (default: SEED_API_KEY)
  --retriever-url <url>    Search-QA: a Search-R1 /retrieve endpoint instead of in-process BM25
  --samples <file.jsonl>   also write the trajectories
  --record                 write the result into the run directory (eval/<split>.json)
  --json                   one JSON object on stdout
  --markdown               a markdown table on stdout`;

function historyPatch(text: string | undefined): Partial<SeedConfig["rollout"]> {
  if (text === undefined) return {};
  if (text === "full") return { history: "full" };
  if (text === "window") return { history: "window", window: -1 };
  const m = /^window:(\d+)$/.exec(text);
  if (m) return { history: "window", window: Number(m[1]) };
  throw new UsageError(`--history expects window, window:<k> or full, got '${text}'`);
}

function quietOf(values: Record<string, unknown>): boolean {
  return values["json"] === true || values["markdown"] === true;
}

function servedPolicy(values: Record<string, string | boolean | undefined>): ReturnType<typeof connectServedPolicy> {
  const spec = values["policy"] as string;
  if (!spec.startsWith("openai:")) throw new UsageError(`--policy must look like openai:<base-url>, got '${spec}'`);
  const model = requireOption(values["model"] as string | undefined, "model");
  const tokenIds = (values["token-ids"] as string | undefined) ?? "server";
  if (tokenIds !== "server" && tokenIds !== "retokenize") throw new UsageError(`--token-ids is server or retokenize, got '${tokenIds}'`);
  const tokenizerFile = values["tokenizer"] as string | undefined;
  const apiKey = apiKeyFrom(values["api-key"] as string | undefined, "SEED_API_KEY");
  return connectServedPolicy({
    baseUrl: spec.slice("openai:".length), model, tokenIds,
    ...(tokenizerFile !== undefined ? { tokenizerFile } : {}), ...(apiKey !== undefined ? { apiKey } : {}),
  });
}

/** The `eval` command. */
export const command: Command = {
  summary: "evaluate a checkpoint or a served model on a benchmark",
  async run(argv) {
    const { values } = parseOptions(argv, {
      policy: { type: "string" }, model: { type: "string" }, "api-key": { type: "string" }, checkpoint: { type: "string" }, env: { type: "string" }, split: { type: "string" },
      episodes: { type: "string" }, history: { type: "string" }, temperature: { type: "string" }, greedy: { type: "boolean" },
      "max-action-tokens": { type: "string" }, "max-steps": { type: "string" }, "action-mask": { type: "boolean" }, seed: { type: "string" }, data: { type: "string" },
      "retriever-url": { type: "string" }, tokenizer: { type: "string" }, "token-ids": { type: "string" }, samples: { type: "string" },
      "panel-seed": { type: "string" }, prompt: { type: "string" }, record: { type: "boolean" }, json: { type: "boolean" }, markdown: { type: "boolean" }, help: { type: "boolean", short: "h" },
    }, false);
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if ((values.policy === undefined) === (values.checkpoint === undefined)) throw new UsageError("give exactly one of --policy openai:<base-url> and --checkpoint <dir>");
    if (values.greedy && values.temperature !== undefined) throw new UsageError("give --greedy or --temperature, not both");
    const episodes = values.episodes === undefined ? undefined : numberOption(values.episodes, "episodes", 0);
    if (episodes !== undefined && (!Number.isInteger(episodes) || episodes < 1)) throw new UsageError(`--episodes must be a positive integer, got ${values.episodes}`);
    const seed = numberOption(values.seed, "seed", 0);
    const panelSeed = values["panel-seed"] === undefined ? undefined : numberOption(values["panel-seed"], "panel-seed", 0);
    if (panelSeed !== undefined && episodes === undefined) throw new UsageError("--panel-seed needs --episodes (the number of tasks to draw)");

    // The config the policy is evaluated under: what the checkpoint was trained with (its run's
    // config, or its stage report's settings; for a served model, what `seed serve` publishes
    // of its checkpoint), else the defaults for this env. Served and in-process evaluations of
    // one checkpoint thus see the same prompts and history; flags override either.
    const target = values.checkpoint !== undefined ? resolveCheckpoint(values.checkpoint) : null;
    const served = target === null;
    const policy = target !== null ? await openPolicyDir(target.policyDir) : await servedPolicy(values);
    const agent = target !== null ? checkpointAgentSettings(target) : await servedAgentSettings(policy);
    let config: SeedConfig = agent?.config ?? structuredClone(defaultConfig);
    const envId = values.env ?? (agent !== null ? config.env.name : requireOption(values.env, "env"));
    if (agent !== null && values.env !== undefined && values.env !== config.env.name) throw new UsageError(`${agent.source} trained on ${config.env.name}, not ${values.env}`);
    let data = values.data !== undefined ? resolve(values.data) : agent !== null ? config.env.data : "";
    if (served && agent === null && envId === "alfworld" && data === "" && existsSync(resolve("../shared/data/alfworld"))) data = resolve("../shared/data/alfworld");
    // Step limit: the benchmark's own on real ALFWorld games (30, whatever the run trained with);
    // else the checkpoint's; a bare checkpoint on generated ALFWorld keeps the embedded default;
    // anything else takes the protocol's (ALFWorld 30, WebShop 15, Search-QA 4, ...).
    const realAlfworld = envId === "alfworld" && data !== "";
    const maxSteps = values["max-steps"] !== undefined ? numberOption(values["max-steps"], "max-steps", 0)
      : !realAlfworld && (agent !== null || (!served && envId === "alfworld")) ? config.env.maxSteps : 0;
    if (!Number.isInteger(maxSteps) || maxSteps < 0) throw new UsageError(`--max-steps must be a non-negative integer, got ${values["max-steps"]}`);
    const prompt = values.prompt;
    if (prompt !== undefined && !(CHOICES["rollout.prompt"] ?? []).includes(prompt)) throw new UsageError(`--prompt is one of ${(CHOICES["rollout.prompt"] ?? []).join(", ")}, got '${prompt}'`);
    config = mergeConfig(config, {
      env: { name: envId, data, maxSteps },
      rollout: {
        // A served model nothing is known about is taken for a pretrained LLM: verl-agent's prompt.
        ...(served && agent === null ? { history: "window", window: -1, maxActionTokens: 512, prompt: "verl" } : {}),
        // A server cannot apply an action mask; the checkpoint's run may have used one.
        ...(served ? { actionMask: false } : {}),
        ...(prompt !== undefined ? { prompt } : {}),
        ...historyPatch(values.history),
        ...(values["max-action-tokens"] !== undefined ? { maxActionTokens: numberOption(values["max-action-tokens"], "max-action-tokens", 48) } : {}),
        ...(values["action-mask"] ? { actionMask: true } : {}),
      },
    });
    if (served && agent?.config.rollout.actionMask === true && !quietOf(values)) process.stderr.write("note: the checkpoint acted with an action mask, which a served model cannot apply; actions are unmasked\n");
    const decoding: Decoding = values.greedy ? { kind: "greedy" }
      : { kind: "sampled", temperature: values.temperature !== undefined ? numberOption(values.temperature, "temperature", 0.4) : config.eval.temperature };
    if (decoding.kind === "sampled" && decoding.temperature === 0) throw new UsageError("--temperature 0 is greedy decoding: pass --greedy");
    const split = values.split ?? defaultEvalSplit(envId, data);
    const retrieverUrl = values["retriever-url"];
    const suite = evalSuite(config, split, {
      data, ...(episodes !== undefined ? { count: episodes } : {}), ...(panelSeed !== undefined ? { panelSeed } : {}), ...(retrieverUrl !== undefined ? { retrieverUrl } : {}),
    });
    const quietProgress = values.json || values.markdown;
    const result = await evaluateBenchmark(policy, config, suite, {
      decoding, seed,
      ...(values.samples !== undefined ? { samplesFile: resolve(values.samples) } : {}),
      ...(quietProgress ? {} : { onBatch: (done: number, total: number) => process.stderr.write(`\r${done}/${total} episodes`) }),
    });
    if (!quietProgress) process.stderr.write("\n");
    const b = result.breakdown;
    const extra: Record<string, unknown> = {
      policy: target?.policyDir ?? `${values.policy}#${values.model}`,
      ...(target ? { update: target.update, run: target.runDir } : {}),
      data: data || "generated",
    };
    if (envId === "alfworld") {
      extra["per_type"] = Object.fromEntries(b.columns.filter((c) => c !== "All").map((c) => [c, { success: b.metrics[c]?.value ?? null, low: b.metrics[c]?.low ?? null, high: b.metrics[c]?.high ?? null, games: b.counts[c] ?? 0 }]));
      extra["macro_average"] = b.metrics["All"]?.value ?? null;
    }
    const json = benchmarkJson(result, extra);
    if (values.record) {
      if (target?.runDir == null) throw new UsageError("--record needs a checkpoint inside a run directory");
      writeEvalRecord(target.runDir, { ...json, split, settings: { decoding, count: episodes ?? 0, panelSeed: panelSeed ?? null, data: config.env.data, seed, update: target.update } });
    }
    if (values.json) printJson(json);
    else if (values.markdown) console.log(resultsTable([{ method: target?.runDir ? config.method.name : String(json["policy"]), results: { [`${envId}/${split}`]: aggregate([b]) } }], [`${envId}/${split}`]));
    else {
      const cols = b.columns.map((c) => `${c} ${(100 * (b.metrics[c]?.value ?? Number.NaN)).toFixed(1)}`).join(", ");
      console.log(`${envId}/${split}: ${b.episodes} episodes (${decoding.kind === "greedy" ? "greedy" : `T=${decoding.temperature}`}); ${cols}; valid actions ${(100 * result.summary.valid_action_rate).toFixed(1)}%, mean length ${result.summary.mean_length.toFixed(1)} (${result.summary.seconds.toFixed(1)} s)`);
      console.log(`panel ${result.panel.hash} (${result.panel.count} tasks${result.panel.seed === null ? "" : `, drawn with seed ${result.panel.seed}`})`);
      if (b.note) console.log(b.note);
    }
    return 0;
  },
};
