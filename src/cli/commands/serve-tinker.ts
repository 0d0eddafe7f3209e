/**
 * `seed serve --api tinker`: our embedded engine behind the Tinker training protocol
 * (`policy/tinker/server.ts`), so the Tinker client and `seed train --trainer tinker:URL` are
 * tested against a real server on any machine. Prints one JSON line on stdout when listening
 * (`{"url", "models", "stateDir"}`); `--port 0` picks a free port.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { AddressInfo } from "node:net";
import { UsageError } from "../../core/errors.ts";
import { apiKeyFrom, exposureWarning } from "../../core/http.ts";
import { resolveCheckpoint } from "../../run/run-dir.ts";
import { TinkerEngine } from "../../policy/tinker/server-engine.ts";
import { createTinkerServer } from "../../policy/tinker/server.ts";
import { numberOption, parseOptions, requireOption } from "../args.ts";

/** Usage of the Tinker mode. */
export const TINKER_USAGE = `usage: seed serve --api tinker --checkpoint <dir> [--name <model>] [--port 8000] [--host 127.0.0.1]
                  [--state-dir DIR] [--reduction sum|sequence-mean] [--poll-ms 30000]
                  [--api-key <key>] [--max-body-mb 64] [--quiet]

Serves the Tinker training protocol (/api/v1/create_model, forward, forward_backward, optim_step,
asample, save_weights, ...) over our engine, training the checkpoint's weights in full (LoRA rank 0).
The base model is offered as --name (default: the directory's name) and by its path. Checkpoints
go to --state-dir (default: a new temporary directory); reuse it to resume against a restarted server.
--reduction sequence-mean reduces losses as SkyRL's JAX back end does (for testing clients).
--api-key (or SEED_API_KEY) makes every request but /api/v1/healthz need "X-API-Key: <key>" (the
Tinker SDK's header; 'seed train --trainer tinker:URL' sends TINKER_API_KEY); binding beyond
127.0.0.1 without one prints a warning. Bodies over --max-body-mb get 413; slow clients 408.`;

/** Runs the Tinker server until SIGINT/SIGTERM. */
export async function serveTinker(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions([...argv], {
    api: { type: "string" }, checkpoint: { type: "string" }, name: { type: "string" }, port: { type: "string" }, host: { type: "string" },
    "state-dir": { type: "string" }, reduction: { type: "string" }, "poll-ms": { type: "string" },
    "api-key": { type: "string" }, "max-body-mb": { type: "string" }, quiet: { type: "boolean" }, help: { type: "boolean" },
  }, false);
  if (values.help) {
    console.log(TINKER_USAGE);
    return 0;
  }
  const given = requireOption(values.checkpoint, "checkpoint");
  const dir = resolveCheckpoint(given).policyDir;
  const port = numberOption(values.port, "port", 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer in [0, 65535], got ${port}`);
  const host = values.host ?? "127.0.0.1";
  const reduction = values.reduction ?? "sum";
  if (reduction !== "sum" && reduction !== "sequence-mean") throw new UsageError(`--reduction must be sum or sequence-mean, got '${reduction}'`);
  const name = values.name ?? basename(resolve(given));
  const stateDir = resolve(values["state-dir"] ?? mkdtempSync(join(tmpdir(), "seed-tinker-")));
  const bodyMb = numberOption(values["max-body-mb"], "max-body-mb", 64);
  if (!(bodyMb > 0 && bodyMb <= 4096)) throw new UsageError(`--max-body-mb must be in (0, 4096], got ${bodyMb}`);
  const apiKey = apiKeyFrom(values["api-key"], "SEED_API_KEY");
  const engine = new TinkerEngine({ models: new Map([[name, dir]]), stateDir, reduction });
  const server = createTinkerServer(engine, {
    pollMs: numberOption(values["poll-ms"], "poll-ms", 30_000),
    limits: { maxBodyBytes: Math.ceil(bodyMb * 1024 * 1024) },
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(values.quiet ? {} : { log: (line: string) => process.stderr.write(`${line}\n`) }),
  });
  const warning = exposureWarning(host, apiKey !== undefined);
  if (warning !== null) process.stderr.write(`${warning}\n`);
  await new Promise<void>((ok, fail) => {
    server.once("error", (e: NodeJS.ErrnoException) => fail(new UsageError(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`)));
    server.listen(port, host, () => ok());
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  process.stdout.write(JSON.stringify({ url, models: [name], stateDir }) + "\n");
  if (!values.quiet) process.stderr.write(`serving the Tinker protocol for ${dir} as '${name}' at ${url} (state in ${stateDir}; Ctrl-C to stop)\n`);
  await new Promise<void>((done) => {
    const stop = () => {
      server.closeAllConnections();
      server.close(() => done());
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}
