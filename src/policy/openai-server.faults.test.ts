// Fault tests of the OpenAI-compatible server (issue 11) with a real embedded policy on
// 127.0.0.1 (ephemeral port): one bad request among concurrent good ones fails alone; body and
// prompt size limits answered 413/400 (never a 500 or a reset); the API key; slow clients; the connection cap.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { presetConfig } from "../model/config.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "./embedded.ts";
import { createOpenAiServer, type OpenAiServerOptions } from "./openai-server.ts";
import { rawHttp } from "../../test/raw-http.ts";

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

test("an over-limit body gets a readable 413 and a 2 MB message a 400 naming the context; the server keeps serving", async () => {
  // Before: a 2.1 MB chat message answered HTTP 500 "Maximum call stack size exceeded", and an
  // over-limit body (then 64 MiB) got a connection reset instead of an answer.
  const { server, base } = await serve({ limits: { maxBodyBytes: 1024 * 1024 } });
  try {
    const big = await post(`${base}/chat/completions`, { messages: [{ role: "user", content: "x".repeat(2_000_000) }], max_tokens: 2 });
    assert.equal(big.status, 413);
    assert.equal(big.json.error.type, "RequestTooLargeError");
    assert.match(big.json.error.message, /more than the limit of 1048576 bytes/);
  } finally {
    server.close();
  }
  const wide = await serve();
  try {
    for (const content of ["go to desk 1. ".repeat(160_000), "a".repeat(2_100_000)]) {
      const r = await post(`${wide.base}/chat/completions`, { messages: [{ role: "user", content }], max_tokens: 2 });
      assert.equal(r.status, 400, JSON.stringify(r.json).slice(0, 300));
      assert.match(r.json.error.message, /maximum context length is 128 tokens; the conversation holds \d+ bytes of text/);
    }
    const longPrompt = await post(`${wide.base}/completions`, { prompt: "open drawer ".repeat(200_000), max_tokens: 2 });
    assert.equal(longPrompt.status, 400);
    assert.match(longPrompt.json.error.message, /maximum context length is 128 tokens; the prompt holds/);
    // A prompt that fits still goes through the byte pre-check and is served.
    const fine = await post(`${wide.base}/chat/completions`, { messages: [{ role: "user", content: "go to desk" }], max_tokens: 2 });
    assert.equal(fine.status, 200, JSON.stringify(fine.json));
  } finally {
    wide.server.close();
  }
});

test("seed serve's API key (Authorization: Bearer), slow clients cut off with 408, and the connection cap", async () => {
  const keyed = await serve({ apiKey: "s3cret" });
  try {
    const { base } = keyed;
    const body = { messages: [{ role: "user", content: "go to desk" }], max_tokens: 2 };
    const none = await post(`${base}/chat/completions`, body);
    assert.equal(none.status, 401);
    assert.match(none.json.error.message, /missing or wrong API key/);
    assert.equal((await post(`${base}/chat/completions`, body, { authorization: "Bearer wrong" })).status, 401);
    assert.equal((await fetch(`${base}/models`)).status, 401);
    assert.equal((await post(`${base}/chat/completions`, body, { authorization: "Bearer s3cret" })).status, 200);
    assert.equal((await fetch(base.replace(/\/v1$/, "/health"))).status, 200, "/health stays open for probes");
  } finally {
    keyed.server.closeAllConnections();
    keyed.server.close();
  }
  // Raw sockets only, so no pooled keep-alive connection of fetch counts against the cap of 2.
  const { server } = await serve({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnections: 2 } });
  const port = (server.address() as AddressInfo).port;
  try {
    // Headers a byte per 100 ms would take seconds: 408 after the 300 ms header timeout.
    const slow = await rawHttp(port, [..."POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"], 100);
    assert.match(slow, /^HTTP\/1\.1 408/);
    // A body trickled a byte per 150 ms: 408 once the 600 ms request timeout passes.
    const trickle = await rawHttp(port, ["POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 30\r\n\r\n", ...'{"prompt": "go", "max_tok":1}'], 150);
    assert.match(trickle, /^HTTP\/1\.1 408/);
    const holders = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
    await Promise.all(holders.map((s) => new Promise((ok) => s.once("connect", ok))));
    await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(await rawHttp(port, ["GET /health HTTP/1.1\r\nHost: x\r\n\r\n"], 0, 2_000), "", "a third connection is closed unanswered");
    holders.forEach((s) => s.destroy());
    await new Promise((ok) => setTimeout(ok, 50));
    assert.match(await rawHttp(port, ["GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"], 0), /^HTTP\/1\.1 200/, "served again once a slot is free");
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
