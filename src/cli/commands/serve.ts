/**
 * `seed serve --checkpoint <dir> --port <p>`: serves an embedded checkpoint over the
 * OpenAI-compatible API of `policy/openai-server.ts` on 127.0.0.1 until interrupted. When
 * listening it prints one JSON line on stdout (`{"url": ..., "model": ...}`), so scripts and tests
 * can start it with `--port 0` and read the port it got.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { AddressInfo } from "node:net";
import { UsageError } from "../../core/errors.ts";
import { apiKeyFrom, exposureWarning } from "../../core/http.ts";
import { resolveCheckpoint } from "../../run/run-dir.ts";
import { checkpointAgentSettings } from "../../eval/agent-settings.ts";
import { createOpenAiServer } from "../../policy/openai-server.ts";
import { EmbeddedPolicy } from "../../policy/embedded.ts";
import { numberOption, parseOptions, requireOption } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed serve --checkpoint <dir> [--port 8000] [--host 127.0.0.1] [--name <model>] [--seed 0]
                  [--api-key <key>] [--max-body-mb 8] [--quiet]
       seed serve --api tinker --checkpoint <dir> [--port P] ...   (the Tinker training protocol; --api tinker --help)

Serves /v1/models, /v1/completions (logprobs, echo) and /v1/chat/completions for the checkpoint:
a run directory (its newest checkpoint), one checkpoint, or a policy directory. The settings it
was trained with (its run's or stage report's environment, prompt style and history) are at
/v1/seed/agent, where 'seed eval --policy' finds them.
--port 0 picks a free port; the chosen URL is printed as one JSON line on stdout.
--api-key (or SEED_API_KEY) makes every request but GET /health need "Authorization: Bearer <key>";
binding beyond 127.0.0.1 without one prints a warning. A body over --max-body-mb gets 413; a client
has 10 s for its headers and 60 s for its whole request (408 after), and at most 128 connections
are open at once.`;

export const command: Command = {
  summary: "serve a checkpoint over an OpenAI-compatible API",
  async run(argv) {
    // `--api tinker`: the Tinker training protocol instead (serve-tinker.ts).
    const api = argv.find((a, i) => a.startsWith("--api=") || argv[i - 1] === "--api");
    if (api !== undefined && api.replace(/^--api=/, "") === "tinker") return (await import("./serve-tinker.ts")).serveTinker(argv);
    const { values } = parseOptions(argv, {
      api: { type: "string" },
      checkpoint: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      name: { type: "string" },
      seed: { type: "string" },
      "api-key": { type: "string" },
      "max-body-mb": { type: "string" },
      quiet: { type: "boolean" },
      help: { type: "boolean" },
    }, false);
    if (values.api !== undefined && values.api !== "openai") throw new UsageError(`--api must be openai or tinker, got '${values.api}'`);
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    // The same paths as `seed eval --checkpoint`: a run directory (its newest checkpoint), one
    // checkpoint, or a bare policy directory.
    const given = requireOption(values.checkpoint, "checkpoint");
    const target = resolveCheckpoint(given);
    const dir = target.policyDir;
    // Published at /v1/seed/agent: `seed eval --policy` then acts as this checkpoint was trained.
    const agent = checkpointAgentSettings(target);
    const port = numberOption(values.port, "port", 8000);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer in [0, 65535], got ${port}`);
    const host = values.host ?? "127.0.0.1";
    const modelName = values.name ?? basename(resolve(given));
    const bodyMb = numberOption(values["max-body-mb"], "max-body-mb", 8);
    if (!(bodyMb > 0 && bodyMb <= 1024)) throw new UsageError(`--max-body-mb must be in (0, 1024], got ${bodyMb}`);
    const apiKey = apiKeyFrom(values["api-key"], "SEED_API_KEY");
    const policy = await EmbeddedPolicy.load(dir);
    const tokenizerPath = join(dir, "tokenizer.json");
    const server = createOpenAiServer(policy, {
      modelName,
      seed: numberOption(values.seed, "seed", 0),
      ...(existsSync(tokenizerPath) ? { tokenizerJson: readFileSync(tokenizerPath, "utf8") } : {}),
      ...(values.quiet ? {} : { log: (line: string) => process.stderr.write(`${line}\n`) }),
      ...(agent !== null ? { documents: { agent: { source: agent.source, config: agent.config } } } : {}),
      limits: { maxBodyBytes: Math.ceil(bodyMb * 1024 * 1024) },
      ...(apiKey !== undefined ? { apiKey } : {}),
    });
    const warning = exposureWarning(host, apiKey !== undefined);
    if (warning !== null) process.stderr.write(`${warning}\n`);
    await new Promise<void>((ok, fail) => {
      server.once("error", (e: NodeJS.ErrnoException) => fail(new UsageError(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`)));
      server.listen(port, host, () => ok());
    });
    const address = server.address() as AddressInfo;
    const url = `http://${host}:${address.port}/v1`;
    process.stdout.write(JSON.stringify({ url, model: modelName, maxContext: policy.maxContext }) + "\n");
    if (!values.quiet) process.stderr.write(`serving ${dir} as '${modelName}' at ${url} (Ctrl-C to stop)\n`);
    await new Promise<void>((done) => {
      const stop = () => server.close(() => done());
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return 0;
  },
};
