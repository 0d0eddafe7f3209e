/**
 * `seed retrieve`: the Search-QA retriever from the command line.
 *   seed retrieve serve --corpus <jsonl> [--port 8000] [--host 127.0.0.1] [--api-key <key>] [--max-queries 1024] [--json]
 *   seed retrieve query (--corpus <jsonl> | --url <endpoint>) [--topk 3] <query ...>
 * `serve` exposes BM25 over a Search-R1 corpus (or, with `--synthetic <seed>`, the generated
 * knowledge base) with the Search-R1 `/retrieve` API, prints one ready line with the URL, and
 * runs until SIGINT/SIGTERM. `query` prints one JSON object per query: the ranked hits.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { UsageError } from "../../core/errors.ts";
import { apiKeyFrom, exposureWarning } from "../../core/http.ts";
import {
  Bm25Retriever, createRetrievalServer, generateKnowledgeBase, loadCorpus, RemoteRetriever, type Passage,
} from "../../envs/search/index.ts";
import { numberOption, parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage:
  seed retrieve serve (--corpus <jsonl> | --synthetic <seed>) [--port 8000] [--host 127.0.0.1]
                      [--api-key <key>] [--max-queries 1024] [--max-body-mb 1] [--json]
  seed retrieve query (--corpus <jsonl> | --synthetic <seed> | --url <endpoint>) [--topk 3] [--api-key <key>] <query> [...]

serve answers POST /retrieve (Search-R1's API) and GET /health. A request may hold at most
--max-queries queries, topk <= 100 and 20,000 hits in all, and a body of --max-body-mb MiB
(400 or 413 with a JSON message otherwise). --api-key (or SEED_API_KEY) makes every request
need "Authorization: Bearer <key>"; binding beyond 127.0.0.1 without one prints a warning.`;

function corpusFrom(values: { corpus?: string | undefined; synthetic?: string | undefined }): Passage[] {
  if (values.corpus !== undefined && values.synthetic !== undefined) throw new UsageError("give --corpus or --synthetic, not both");
  if (values.corpus !== undefined) return loadCorpus(values.corpus);
  if (values.synthetic !== undefined) return [...generateKnowledgeBase({ seed: numberOption(values.synthetic, "synthetic", 0) }).passages];
  throw new UsageError(`missing --corpus <jsonl> (or --synthetic <seed>)\n${USAGE}`);
}

async function serve(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    corpus: { type: "string" }, synthetic: { type: "string" }, port: { type: "string" }, host: { type: "string" }, json: { type: "boolean" },
    "api-key": { type: "string" }, "max-queries": { type: "string" }, "max-body-mb": { type: "string" }, help: { type: "boolean", short: "h" },
  }, false);
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const passages = corpusFrom(values);
  const port = numberOption(values.port, "port", 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got ${port}`);
  const host = values.host ?? "127.0.0.1";
  const maxQueries = numberOption(values["max-queries"], "max-queries", 1024);
  if (!Number.isInteger(maxQueries) || maxQueries < 1) throw new UsageError(`--max-queries must be a positive integer, got ${maxQueries}`);
  const bodyMb = numberOption(values["max-body-mb"], "max-body-mb", 1);
  if (!(bodyMb > 0 && bodyMb <= 1024)) throw new UsageError(`--max-body-mb must be in (0, 1024], got ${bodyMb}`);
  const apiKey = apiKeyFrom(values["api-key"], "SEED_API_KEY");
  const server = createRetrievalServer(new Bm25Retriever(passages), {
    passages: passages.length, maxQueries, limits: { maxBodyBytes: Math.ceil(bodyMb * 1024 * 1024) }, ...(apiKey !== undefined ? { apiKey } : {}),
  });
  const warning = exposureWarning(host, apiKey !== undefined);
  if (warning !== null) process.stderr.write(`${warning}\n`);
  server.listen(port, host);
  await Promise.race([once(server, "listening"), once(server, "error").then(([e]) => {
    throw new UsageError(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
  })]);
  const url = `http://${host}:${(server.address() as AddressInfo).port}/retrieve`;
  if (values.json) printJson({ url, passages: passages.length });
  else console.log(`retriever listening on ${url} (${passages.length} passages, BM25)`);
  const stop = () => server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await once(server, "close");
  return 0;
}

async function query(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    corpus: { type: "string" }, synthetic: { type: "string" }, url: { type: "string" }, topk: { type: "string" },
    "api-key": { type: "string" }, help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError(`give at least one query\n${USAGE}`);
  const topk = numberOption(values.topk, "topk", 3);
  if (!Number.isInteger(topk) || topk < 1) throw new UsageError(`--topk must be a positive integer, got ${topk}`);
  const apiKey = apiKeyFrom(values["api-key"], "SEED_API_KEY");
  const results = values.url !== undefined
    ? await new RemoteRetriever(values.url, { ...(apiKey !== undefined ? { apiKey } : {}) }).retrieveAsync(positionals, topk)
    : new Bm25Retriever(corpusFrom(values)).retrieve(positionals, topk);
  positionals.forEach((q, i) => printJson({ query: q, result: results[i] }));
  return 0;
}

/** `seed retrieve serve|query`. */
export const command: Command = {
  summary: "serve a BM25 retriever with the Search-R1 API",
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === "serve") return serve(rest);
    if (sub === "query") return query(rest);
    console.log(USAGE);
    return sub === "--help" || sub === "-h" ? 0 : 2;
  },
};
