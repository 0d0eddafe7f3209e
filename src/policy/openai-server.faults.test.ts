// Fault tests of the OpenAI-compatible server (issue 11) with a real embedded policy on
// 127.0.0.1 (ephemeral port): one bad request among concurrent good ones fails alone; the API key.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { presetConfig } from "../model/config.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "./embedded.ts";
import { createOpenAiServer, type OpenAiServerOptions } from "./openai-server.ts";

const tok = trainBpe("go to desk 1. open drawer 2. take apple from fridge 1. you see a mug.\n".repeat(30), { vocabSize: 320 });
const config = presetConfig("tiny", { vocabSize: tok.vocabSize, maxContext: 128 });

async function serve(options: Partial<OpenAiServerOptions> = {}): Promise<{ server: Server; base: string; batches: number[] }> {
  const policy = EmbeddedPolicy.create({ config, tokenizer: tok, seed: 1 });
  const batches: number[] = [];
  const sample = policy.sample.bind(policy);
  // Records the size of each batched call, to show the requests below really were batched together.
  policy.sample = (rs) => (batches.push(rs.length), sample(rs));
  const server = createOpenAiServer(policy, { modelName: "toy", ...options });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, batches };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

test("a request the sampler would refuse fails alone with 400; concurrent good requests all succeed", async () => {
  const { server, base, batches } = await serve();
  try {
    const bad = [
      [{ top_p: 0 }, /'top_p' must be a number in \(0, 1\]/],
      [{ max_completion_tokens: -1 }, /'max_completion_tokens' must be an integer >= 0/],
      [{ max_completion_tokens: 2.5 }, /'max_completion_tokens' must be an integer >= 0/],
      [{ max_tokens: 3, max_completion_tokens: 4 }, /disagree/],
      [{ temperature: -0.5 }, /'temperature' must be a number in \[0, 100\]/],
      [{ top_k: 1.5 }, /'top_k' must be an integer/],
      [{ seed: "x" }, /'seed' must be an integer/],
    ] as const;
    const good = Array.from({ length: 24 }, (_, i) => ({ max_completion_tokens: 3, seed: i, top_p: 0.9 }));
    const bodies = [...good.slice(0, 12), ...bad.map(([b]) => ({ max_tokens: 3, ...b })), ...good.slice(12)];
    const [chat, text] = await Promise.all([
      Promise.all(bodies.map((b) => post(`${base}/chat/completions`, { messages: [{ role: "user", content: "go to desk" }], ...b }))),
      Promise.all(bodies.map((b) => post(`${base}/completions`, { prompt: "open drawer", ...b }))),
    ]);
    for (const answers of [chat, text]) {
      const goodAnswers = [...answers.slice(0, 12), ...answers.slice(12 + bad.length)];
      goodAnswers.forEach((a) => assert.equal(a.status, 200, JSON.stringify(a.json)));
      bad.forEach(([, re], i) => {
        const a = answers[12 + i]!;
        assert.equal(a.status, 400, JSON.stringify(a.json));
        assert.match(a.json.error.message, re);
      });
    }
    assert.ok(Math.max(...batches) > 1, `good requests were batched together (${batches.join(",")})`);
  } finally {
    server.close();
  }
});
