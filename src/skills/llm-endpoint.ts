/**
 * The external analyzer over an OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp, Ollama,
 * `seed serve`): one user message per prompt, temperature 0, the answer's text back. Used by
 * Stage 1 with `stage1.analyzer = "llm"`; retries of unparseable answers are the analyzer's
 * (skills/llm-analyzer.ts), transport failures become `RemoteError`s it counts.
 */
import { RemoteError } from "../core/errors.ts";
import type { Complete } from "./llm-analyzer.ts";

/** Options of `chatCompletion`. */
export type EndpointOptions = {
  /** Base URL with its `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** @default 1024 (the reference's Stage-1 budget) */
  readonly maxTokens?: number;
  /** @default 120000 */
  readonly timeoutMs?: number;
};

/** A `Complete` function over `POST {baseUrl}/chat/completions`. */
export function chatCompletion(options: EndpointOptions): Complete {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return async (prompt) => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: options.model, messages: [{ role: "user", content: prompt }], temperature: 0, max_tokens: options.maxTokens ?? 1024 }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 120000),
      });
    } catch (e) {
      throw new RemoteError(`${url}: ${(e as Error).message}`);
    }
    if (!response.ok) throw new RemoteError(`${url}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
    const body = (await response.json()) as { choices?: { message?: { content?: unknown; reasoning_content?: unknown } }[] };
    const message = body.choices?.[0]?.message;
    if (message === undefined || typeof message.content !== "string") throw new RemoteError(`${url}: the answer has no choices[0].message.content`);
    // Like the reference, a separate reasoning field is put in front of the content in <think> tags.
    return typeof message.reasoning_content === "string" && message.reasoning_content !== "" ? `<think>${message.reasoning_content}</think>${message.content}` : message.content;
  };
}
