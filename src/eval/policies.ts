/**
 * The policies an evaluation runs, opened for the CLI and for library callers alike: a policy
 * directory (any kind `loadTrainablePolicy` knows), or a model served by an OpenAI-compatible
 * server. The CLI parses flags and calls these; it never builds a policy itself.
 */
import { resolve } from "node:path";
import { loadTokenizer } from "../model/tokenizer/hf-json.ts";
import { loadTrainablePolicy } from "../policy/load.ts";
import type { Policy } from "../policy/policy.ts";
import { RemotePolicy } from "../policy/remote.ts";
import { RemoteError } from "../core/errors.ts";
import { publishedAgentSettings, type AgentSettings } from "./agent-settings.ts";

/** The policy stored in a directory (a checkpoint's `policy/`, a base, a Hugging Face model directory). */
export async function openPolicyDir(dir: string): Promise<Policy> {
  return loadTrainablePolicy(dir);
}

/** What a served model needs. */
export type ServedPolicyOptions = {
  readonly baseUrl: string;
  readonly model: string;
  /** Take token ids from the server (`server`) or re-tokenize its text (`retokenize`). @default "server" */
  readonly tokenIds?: "server" | "retokenize";
  /** A Hugging Face `tokenizer.json` to tokenize with instead of the server's. */
  readonly tokenizerFile?: string;
  /** Sent as `Authorization: Bearer <apiKey>` (`seed serve --api-key`, vLLM `--api-key`). */
  readonly apiKey?: string;
};

/** A model served by an OpenAI-compatible server (vLLM, SGLang, `seed serve`). */
export async function connectServedPolicy(options: ServedPolicyOptions): Promise<Policy> {
  return RemotePolicy.connect({
    baseUrl: options.baseUrl, model: options.model, tokenIds: options.tokenIds ?? "server",
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.tokenizerFile !== undefined ? { tokenizer: loadTokenizer(resolve(options.tokenizerFile)) } : {}),
  });
}

/**
 * The settings the served checkpoint acts under, as `seed serve` publishes them at
 * `/v1/seed/agent` (`agent-settings.ts`); null for a server that publishes none (vLLM, SGLang)
 * or a policy that is not served.
 */
export async function servedAgentSettings(policy: Policy): Promise<AgentSettings | null> {
  if (!(policy instanceof RemotePolicy)) return null;
  let doc: unknown;
  try {
    doc = await policy.request("GET", "/seed/agent");
  } catch (e) {
    if (e instanceof RemoteError && / HTTP 404: /.test(e.message)) return null;
    throw e;
  }
  return publishedAgentSettings(doc, `${policy.baseUrl}/seed/agent`);
}
