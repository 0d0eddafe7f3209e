import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { RemotePolicy } from "../policy/remote.ts";
import { RemoteError } from "../core/errors.ts";
import { ScriptedPolicy } from "../testing/scripted-policy.ts";
import { TinyTokenizer } from "../testing/tiny-tokenizer.ts";
import { createOpenAiServer } from "./openai-server.ts";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

test("RemotePolicy round trip through the server: sampled ids and log-probs as sampled, echo scores as score()", async () => {
  const tok = new TinyTokenizer();
  const scripted = new ScriptedPolicy(["<think>a</think><action>look</action>", "second", "one token the echo request generates and the client drops"], { tokenizer: tok, maxContext: 512 });
  const server = createOpenAiServer(scripted, { modelName: "toy" });
  const base = await listen(server);
  try {
    const remote = await RemotePolicy.connect({ baseUrl: base, model: "toy", tokenizer: tok });
    assert.equal(remote.maxContext, 512);
    const prompt = tok.encode("hello there");
    const [a, b] = await remote.sample([
      { prompt, maxTokens: 100, seed: 1, stopTokens: [258] },
      { prompt, maxTokens: 3, seed: 2, stopTokens: [258] },
    ]);
    assert.deepEqual(a!.tokens, [...tok.encode("<think>a</think><action>look</action>"), 258]);
    assert.equal(a!.finishReason, "stop");
    a!.logprobs.forEach((lp) => assert.ok(Math.abs(lp + Math.log(tok.vocabSize)) < 1e-5));
    assert.deepEqual(b!.tokens, tok.encode("sec"));
    assert.equal(b!.finishReason, "length");
    const [scores] = await remote.score([{ tokens: [...prompt, 7, 8], start: 3 }]);
    const [own] = await scripted.score([{ tokens: [...prompt, 7, 8], start: 3 }]);
    assert.deepEqual(Array.from(scores!), Array.from(own!));
    scripted.assertConsumed();
    await assert.rejects(remote.score([{ tokens: prompt, start: 1, allowed: [[1]] }]), RemoteError);
  } finally {
    server.close();
  }
});

test("the server answers the OpenAI shapes and refuses what it cannot do with a clear 400/404", async () => {
  const tok = new TinyTokenizer();
  const server = createOpenAiServer(new ScriptedPolicy(["hi", "hello", "<action>x</action> tail"], { tokenizer: tok, maxContext: 64 }), { modelName: "toy" });
  const base = await listen(server);
  try {
    const models = (await (await fetch(`${base}/models`)).json()) as { data: { id: string }[] };
    assert.equal(models.data[0]!.id, "toy");
    const c = await post(`${base}/completions`, { model: "toy", prompt: "ab", max_tokens: 8, logprobs: 1, echo: true });
    assert.equal(c.status, 200);
    assert.equal(c.json.choices[0].text, "abhi");
    assert.equal(c.json.choices[0].logprobs.token_logprobs[0], null);
    assert.equal(c.json.choices[0].logprobs.tokens.length, 2 + 3); // prompt, "hi", stop token
    assert.deepEqual(c.json.choices[0].logprobs.text_offset.slice(0, 4), [0, 1, 2, 3]);
    const chat = await post(`${base}/chat/completions`, { model: "toy", messages: [{ role: "user", content: "hey" }], logprobs: true });
    assert.equal(chat.json.choices[0].message.content, "hello");
    assert.equal(chat.json.choices[0].logprobs.content.length, 6);
    const stop = await post(`${base}/completions`, { model: "toy", prompt: [1, 2], max_tokens: 20, stop: ["</action>"] });
    assert.equal(stop.json.choices[0].text, "<action>x");
    for (const [body, re] of [
      [{ model: "other", prompt: "a" }, /does not exist/],
      [{ model: "toy", prompt: "a", stream: true }, /streaming/],
      [{ model: "toy", prompt: "a", logprobs: 5 }, /logprobs/],
      [{ model: "toy", prompt: "a", n: 2 }, /n = 1/],
      [{ model: "toy", prompt: "a", max_tokens: 100 }, /maximum context length is 64/],
      [{ model: "toy", prompt: "a", max_tokens: 0 }, /needs 'echo'/],
      [{ model: "toy", prompt: [] }, /prompt/],
    ] as const) {
      const r = await post(`${base}/completions`, body);
      assert.ok(r.status === 400 || r.status === 404, JSON.stringify(r.json));
      assert.match(r.json.error.message, re);
    }
    const bad = await fetch(`${base}/completions`, { method: "POST", body: "{nope" });
    assert.equal(bad.status, 400);
    assert.equal((await fetch(`${base}/seed/tokenizer`)).status, 404);
  } finally {
    server.close();
  }
});

test("RemotePolicy retries transient failures with back-off and reports missing features clearly", async () => {
  const tok = new TinyTokenizer();
  let calls = 0;
  const flaky = createServer((req, res) => {
    calls++;
    if (req.url?.endsWith("/seed/tokenizer")) {
      res.writeHead(404).end("{}");
      return;
    }
    if (req.url?.endsWith("/models")) {
      res.end(JSON.stringify({ data: [{ id: "m" }] }));
      return;
    }
    if (calls < 4) {
      res.writeHead(503).end(JSON.stringify({ error: { message: "busy" } }));
      return;
    }
    // A server without return_tokens_as_token_ids answers token strings.
    res.end(JSON.stringify({ choices: [{ text: "hi", finish_reason: "stop", logprobs: { tokens: ["h", "i"], token_logprobs: [-1, -1], top_logprobs: null, text_offset: [0, 1] } }] }));
  });
  const base = await listen(flaky);
  try {
    const remote = await RemotePolicy.connect({ baseUrl: base, model: "m", tokenizer: tok, backoffMs: 1, retries: 3 });
    await assert.rejects(remote.sample([{ prompt: [1], maxTokens: 2, seed: 0 }]), /return_tokens_as_token_ids/);
    assert.equal(calls, 4); // models, 503, 503, answer
    calls = 10;
    const retok = await RemotePolicy.connect({ baseUrl: base, model: "m", tokenizer: tok, tokenIds: "retokenize" });
    const [s] = await retok.sample([{ prompt: [1], maxTokens: 2, seed: 0 }]);
    assert.deepEqual(s!.tokens, tok.encode("hi"));
    await assert.rejects(RemotePolicy.connect({ baseUrl: base, model: "absent", tokenizer: tok }), /does not serve model 'absent' \(it lists: m\)/);
    await assert.rejects(RemotePolicy.connect({ baseUrl: base, model: "m" }), /does not publish its tokenizer/);
  } finally {
    flaky.close();
  }
  const silent = createServer(() => {});
  const quiet = await listen(silent);
  try {
    const t0 = performance.now();
    await assert.rejects(RemotePolicy.connect({ baseUrl: quiet, model: "m", tokenizer: tok, timeoutMs: 50, retries: 1, backoffMs: 1 }), /failed after 2 attempt\(s\)/);
    assert.ok(performance.now() - t0 < 5000);
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
  await assert.rejects(RemotePolicy.connect({ baseUrl: "http://127.0.0.1:1/v1", model: "m", tokenizer: tok, retries: 0 }), RemoteError);
});
