// The Tinker client against our own server (real HTTP on loopback) and against small fake
// servers that misbehave on purpose: the protobuf codec, chunking, futures (408, try_again),
// idempotent retries, the reduction probe, and every fault of issue 13's list as one line
// naming the endpoint and the server's words.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { presetConfig } from "../../model/config.ts";
import { trainBpe } from "../../model/tokenizer/train.ts";
import { tokenizerJsonText } from "../../model/tokenizer/hf-json.ts";
import { EmbeddedPolicy } from "../embedded.ts";
import { TinkerClient, chunkData } from "./client.ts";
import { writeDescriptor, type TinkerDescriptor } from "./descriptor.ts";
import { awaitFuture } from "./futures.ts";
import { decodeForwardBackward, decodeForwardBackwardOutput, decodeSampleResponse, encodeForwardBackward, encodeForwardBackwardOutput, encodeSampleResponse } from "./proto.ts";
import { probeReduction } from "./reduction.ts";
import { TinkerEngine } from "./server-engine.ts";
import { createTinkerServer } from "./server.ts";
import { TinkerPolicy } from "./tinker-policy.ts";
import { Transport } from "./transport.ts";
import { datumOf, float32, type ForwardBackwardOutput } from "./wire.ts";

const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((ok) => s.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const TEXT = "go to the desk 1. open drawer 2. take the apple from the table. You arrive at the sofa.";

function tmp(label: string): string {
  return mkdtempSync(join(tmpdir(), `seed-tinker-${label}-`));
}

/** A tiny base checkpoint and our server over it; `reduction` as the engine's. */
async function ourServer(options: { reduction?: "sum" | "sequence-mean"; pollMs?: number; vocab?: number; apiKey?: string; maxBodyBytes?: number } = {}) {
  const tokenizer = trainBpe([TEXT], { vocabSize: options.vocab ?? 300 });
  const dir = tmp("base");
  await EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 256 }), tokenizer, seed: 5 }).save(dir);
  const engine = new TinkerEngine({ models: new Map([["tiny", dir]]), stateDir: tmp("state"), ...(options.reduction ? { reduction: options.reduction } : {}) });
  const log: string[] = [];
  const server = createTinkerServer(engine, {
    pollMs: options.pollMs ?? 30_000, log: (l) => log.push(l),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}), ...(options.maxBodyBytes !== undefined ? { limits: { maxBodyBytes: options.maxBodyBytes } } : {}),
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, engine, dir, tokenizer, log };
}

function descriptorDir(url: string, tokenizerJson: string, extra: Partial<TinkerDescriptor> = {}): string {
  const dir = tmp("desc");
  writeFileSync(join(dir, "tokenizer.json"), tokenizerJson);
  writeDescriptor(dir, { format: 1, url, baseModel: "tiny", loraRank: 0, maxContext: 256, reduction: "probe", wire: "proto", seed: 1, ...extra });
  return dir;
}

test("protobuf: forward_backward requests and results round-trip", () => {
  const data = [datumOf([1, 2, 3, 4], { weights: float32([0, 0.5, -2]) }), datumOf([7, 8], { weights: float32([1]) })];
  const r = decodeForwardBackward(encodeForwardBackward({ modelId: "m1", seqId: 3, data, lossFn: "cross_entropy", lossFnConfig: { clip_low_threshold: 0.8 }, forwardOnly: true }));
  assert.equal(r.modelId, "m1");
  assert.equal(r.seqId, 3);
  assert.equal(r.forwardOnly, true);
  assert.deepEqual(r.lossFnConfig, { clip_low_threshold: 0.8 });
  assert.deepEqual(r.data.map((d) => d.model_input.chunks[0]!.tokens), [[1, 2, 3], [7]]);
  assert.deepEqual(r.data[0]!.loss_fn_inputs["target_tokens"]!.data, [2, 3, 4]);
  assert.deepEqual(r.data[0]!.loss_fn_inputs["weights"]!.data, [0, 0.5, -2]);
  const out: ForwardBackwardOutput = { loss_fn_output_type: "scalar", loss_fn_outputs: [{ logprobs: float32([-1, -0.25]) }, { logprobs: float32([-3]) }], metrics: { "loss:sum": 1.5 } };
  assert.deepEqual(decodeForwardBackwardOutput(encodeForwardBackwardOutput(out)).loss_fn_outputs.map((o) => o["logprobs"]!.data), [[-1, -0.25], [-3]]);
  assert.deepEqual(decodeForwardBackwardOutput(encodeForwardBackwardOutput(out)).metrics, { "loss:sum": 1.5 });
  const s = decodeSampleResponse(encodeSampleResponse({ sequences: [{ stop_reason: "length", tokens: [5, 6], logprobs: [-0.5, -1] }], prompt_logprobs: [null, -2] }));
  assert.deepEqual(s, { sequences: [{ stop_reason: "length", tokens: [5, 6], logprobs: [-0.5, -1] }], prompt_logprobs: [null, -2] });
});

test("chunking keeps order and the datum and byte limits", () => {
  const data = Array.from({ length: 7 }, (_, i) => datumOf([1, 2, 3 + i], {}));
  assert.deepEqual(chunkData(data, 3, 1e9).map((c) => c.length), [3, 3, 1]);
  assert.deepEqual(chunkData(data, 1024, 300).flat(), data);
  assert.ok(chunkData(data, 1024, 300).length > 1);
});

test("against our server: a chunked forward equals an unchunked one, forward equals prompt log-probs, and retries are idempotent", async () => {
  const { url, tokenizer } = await ourServer();
  const whole = await TinkerClient.connect({ baseUrl: url });
  const chunked = await TinkerClient.connect({ baseUrl: url, maxChunkDatums: 2, wire: "json" });
  try {
    const model = await whole.createModel("tiny", 0);
    const model2 = await chunked.createModel("tiny", 0);
    const seqs = ["go to the desk", "open drawer 2", "take the apple", "You arrive"].map((t) => tokenizer.encode(t));
    const data = seqs.map((s) => datumOf(s, { weights: float32(new Float32Array(s.length - 1)) }));
    const a = await whole.forward(model, data);
    const b = await chunked.forward(model2, data);
    assert.deepEqual(b.loss_fn_outputs.map((o) => o["logprobs"]!.data), a.loss_fn_outputs.map((o) => o["logprobs"]!.data));
    const p = await whole.asample({ baseModel: "tiny" }, seqs[0]!, { max_tokens: 1, temperature: 1, top_p: 1, top_k: -1, seed: 0 }, { promptLogprobs: true });
    // One pass serves both (the prompt plus a placeholder row), so the packed shape differs from
    // the forward's and the last bits of f32 may too.
    const forwardLp = a.loss_fn_outputs[0]!["logprobs"]!.data;
    assert.equal(p.prompt_logprobs!.length, forwardLp.length + 1);
    assert.equal(p.prompt_logprobs![0], null);
    p.prompt_logprobs!.slice(1).forEach((x, i) => assert.ok(Math.abs(x! - forwardLp[i]!) <= 1e-5, `prompt log-prob ${i}: ${x} vs ${forwardLp[i]}`));
    assert.equal(p.sequences[0]!.tokens.length, 1);
    // The same idempotency key twice: one model, not two.
    const t = new Transport({ baseUrl: url });
    const key = t.newKey();
    const body = { json: { session_id: whole.session.id, base_model: "tiny", lora_config: { rank: 0 } } };
    const first = await t.post("create_model", body, { key });
    const again = await t.post("create_model", body, { key });
    assert.deepEqual(again, first);
    // The same seq_id twice: the first request's future.
    const fb = { json: { model_id: model, seq_id: 99, forward_backward_input: { data: data.slice(0, 1), loss_fn: "cross_entropy" } } };
    assert.deepEqual(await t.post("forward_backward", fb), await t.post("forward_backward", fb));
    // ... and with other content, a conflict (as SkyRL answers).
    const other = { json: { model_id: model, seq_id: 99, forward_backward_input: { data: data.slice(1, 2), loss_fn: "cross_entropy" } } };
    await assert.rejects(t.post("forward_backward", other), /HTTP 409: Training request sequence number was reused/);
  } finally {
    whole.close();
    chunked.close();
  }
});

test("futures: HTTP 408 from a long poll and try_again both mean ask again; a failed future names its operation", async () => {
  let polls = 0;
  const fake = await listen((_req, res) => {
    polls++;
    if (polls <= 2) return void res.writeHead(408, { "Content-Type": "application/json" }).end(JSON.stringify({ detail: "Timeout waiting for result" }));
    res.setHeader("Content-Type", "application/json");
    res.end(polls <= 4 ? JSON.stringify({ type: "try_again", queue_state: "active" }) : JSON.stringify({ path: "tinker://m/weights/x" }));
  });
  assert.deepEqual(await awaitFuture(new Transport({ baseUrl: fake }), "POST save_weights", "1", "json"), { path: "tinker://m/weights/x" });
  assert.equal(polls, 5);
  const failing = await listen((_req, res) => void res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ detail: "CUDA out of memory" })));
  await assert.rejects(awaitFuture(new Transport({ baseUrl: failing }), "POST http://x/api/v1/forward_backward", "7", "forward"), /tinker POST http:\/\/x\/api\/v1\/forward_backward \(request 7\): HTTP 400: CUDA out of memory$/);
});

test("faults: unreachable, 5xx and 4xx with a message, timeouts: one line naming the endpoint", async () => {
  const closed = await listen(() => {});
  const port = new URL(closed).port;
  servers.pop()!.close();
  await new Promise((r) => setTimeout(r, 50));
  await assert.rejects(TinkerClient.connect({ baseUrl: `http://127.0.0.1:${port}`, retries: 1, backoffMs: 1 }), (e: Error) => {
    assert.match(e.message, new RegExp(`^tinker POST http://127\\.0\\.0\\.1:${port}/api/v1/create_session: unreachable \\(ECONNREFUSED\\)$`));
    return true;
  });
  let hits = 0;
  const sick = await listen((_req, res) => {
    hits++;
    res.writeHead(503, { "Content-Type": "application/json" }).end(JSON.stringify({ detail: "GPU pool exhausted" }));
  });
  await assert.rejects(TinkerClient.connect({ baseUrl: sick, retries: 2, backoffMs: 1 }), /: tinker POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/create_session: HTTP 503: GPU pool exhausted$/);
  assert.equal(hits, 3, "5xx is retried (2 retries)");
  hits = 0;
  const strict = await listen((_req, res) => {
    hits++;
    res.writeHead(422, { "Content-Type": "application/json" }).end(JSON.stringify({ detail: [{ loc: ["body", "sdk_version"], msg: "Field required" }] }));
  });
  await assert.rejects(TinkerClient.connect({ baseUrl: strict, retries: 2, backoffMs: 1 }), /HTTP 422: .*Field required/);
  assert.equal(hits, 1, "4xx is not retried");
  const silent = await listen(() => {});
  await assert.rejects(TinkerClient.connect({ baseUrl: silent, timeoutMs: 150, retries: 1, backoffMs: 1 }), /create_session: no answer within 0\.1 s|create_session: no answer within 0\.2 s/);
});

test("faults: a base model whose vocabulary is smaller than the tokenizer's is refused at connect time", async () => {
  const { url } = await ourServer({ vocab: 280 });
  const bigger = trainBpe([TEXT + " the quick brown fox jumps over the lazy dog, twice: the quick brown fox"], { vocabSize: 320 });
  assert.ok(bigger.vocabSize > 280);
  const policy = await TinkerPolicy.open(descriptorDir(url, tokenizerJsonText(bigger)));
  try {
    const ids = bigger.encode("go to");
    await assert.rejects(policy.backward([{ tokens: ids, start: 1 }], [new Float32Array(ids.length - 1)]), (e: Error) => {
      assert.match(e.message, /token id \d+ is outside the vocabulary of base model 'tiny' \(\d+ tokens\)/);
      assert.match(e.message, /vocabulary mismatch/);
      assert.ok(!e.message.includes("\n"));
      return true;
    });
  } finally {
    policy.close();
  }
});

test("the reduction probe tells sum from per-sequence mean and refuses what it cannot establish", async () => {
  for (const reduction of ["sum", "sequence-mean"] as const) {
    const { url, tokenizer } = await ourServer({ reduction });
    const policy = await TinkerPolicy.open(descriptorDir(url, tokenizerJsonText(tokenizer)));
    try {
      const ids = tokenizer.encode("go to the desk");
      await policy.backward([{ tokens: ids, start: 2 }], [new Float32Array(ids.length - 2).fill(0.1)]);
      assert.equal(policy.lossReduction, reduction);
    } finally {
      policy.close();
    }
  }
  const fakeClient = (metrics: Record<string, number>) => ({
    baseUrl: "http://fake",
    forward: async () => ({ loss_fn_output_type: "scalar", loss_fn_outputs: [{ logprobs: float32([-1, -2, -3]) }], metrics }),
  }) as unknown as TinkerClient;
  assert.equal(await probeReduction(fakeClient({}), "m", "b", [1, 2, 3, 4], 5), null, "no loss reported: cannot be probed");
  assert.equal(await probeReduction(fakeClient({ "loss:sum": 11 }), "m", "b", [1, 2, 3, 4], 5), "sum");
  assert.equal(await probeReduction(fakeClient({ "loss:sum": 11 / 4 }), "m", "b", [1, 2, 3, 4], 5), "sequence-mean");
  await assert.rejects(probeReduction(fakeClient({ "loss:sum": 7 }), "m", "b", [1, 2, 3, 4], 5), /cannot establish the loss reduction/);
});

test("faults: a server that drops the session: one line, and the last checkpoint stays loadable", async () => {
  const { url, tokenizer, engine } = await ourServer();
  const policy = await TinkerPolicy.open(descriptorDir(url, tokenizerJsonText(tokenizer)));
  const ids = tokenizer.encode("open drawer 2");
  const req = [{ tokens: ids, start: 1 }];
  await policy.backward(req, [new Float32Array(ids.length - 1).fill(-0.05)]);
  await policy.step({ lr: 1e-2 });
  const saved = tmp("saved");
  await policy.save(saved);
  const [before] = await policy.score(req);
  assert.ok(before!.length === ids.length - 1);
  engine.dropSessions();
  await assert.rejects(policy.step({ lr: 1e-2 }), (e: Error) => {
    assert.match(e.message, /^tinker POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/optim_step: HTTP 404: Model not found: model_\w+$/);
    return true;
  });
  await (policy as unknown as { client: TinkerClient }).client.session.beat();
  await assert.rejects(policy.score(req), /the server dropped session session_\w+ \(Session not found\); run the same command again/);
  policy.close();
  const resumed = await TinkerPolicy.open(saved);
  try {
    const [again] = await resumed.score(req);
    assert.deepEqual(Array.from(again!), Array.from(before!), "the saved weights came back");
  } finally {
    resumed.close();
  }
});

test("our Tinker server: X-API-Key when configured (healthz open), and an over-limit body answered 413 with a detail", async () => {
  // Before (issue 11 item 8, issue 13): the server had no authentication and a 256 MiB body cap
  // read to the end; now X-API-Key as the Tinker SDK sends it, and the shared HTTP limits.
  const { url } = await ourServer({ apiKey: "tk-secret", maxBodyBytes: 64 * 1024 });
  assert.equal((await fetch(`${url}/api/v1/healthz`)).status, 200);
  const denied = await fetch(`${url}/api/v1/create_session`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.equal(denied.status, 401);
  assert.match(((await denied.json()) as { detail: string }).detail, /missing or wrong API key \(send X-API-Key/);
  await assert.rejects(TinkerClient.connect({ baseUrl: url, apiKey: "wrong", retries: 1, backoffMs: 1 }), /HTTP 401: missing or wrong API key/);
  const client = await TinkerClient.connect({ baseUrl: url, apiKey: "tk-secret" });
  try {
    const model = await client.createModel("tiny", 0);
    const big = await fetch(`${url}/api/v1/forward`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": "tk-secret" },
      body: JSON.stringify({ model_id: model, forward_input: { data: [], loss_fn: "cross_entropy" }, pad: "x".repeat(200_000) }),
    });
    assert.equal(big.status, 413);
    assert.match(((await big.json()) as { detail: string }).detail, /more than the limit of 65536 bytes/);
  } finally {
    client.close();
  }
});

test("our Tinker server keeps the 4 newest sampling sessions and 4 loaded sampler checkpoints; older checkpoints load again from disk", async () => {
  // Before: every save_weights_for_sampler stayed in memory (weights plus a used KV cache, about
  // 150 MB per update at the demo size), so a long run grew the server without bound.
  const { url, tokenizer } = await ourServer();
  const client = await TinkerClient.connect({ baseUrl: url });
  try {
    const model = await client.createModel("tiny", 0);
    const prompt = tokenizer.encode("go to the desk");
    const params = { max_tokens: 2, temperature: 0, top_p: 1, top_k: -1, seed: 0 };
    const sessions: string[] = [];
    for (let i = 0; i < 6; i++) sessions.push((await client.saveWeightsForSampler(model)).samplingSessionId!);
    await assert.rejects(client.asample({ samplingSessionId: sessions[0]! }, prompt, params), /HTTP 404: Sampling session not found \(this server keeps the 4 newest/);
    await assert.rejects(client.asample({ samplingSessionId: sessions[1]! }, prompt, params), /HTTP 404/);
    const newest = await client.asample({ samplingSessionId: sessions[5]! }, prompt, params);
    const oldestKept = await client.asample({ samplingSessionId: sessions[2]! }, prompt, params);
    assert.deepEqual(oldestKept.sequences[0]!.tokens, newest.sequences[0]!.tokens, "same weights, same greedy tokens");
    const paths: string[] = [];
    for (let i = 0; i < 6; i++) paths.push((await client.saveWeightsForSampler(model, `ckpt${i}`)).path!);
    // ckpt0 was evicted from memory (4 kept) and loads again from the state directory.
    const reloaded = await client.asample({ modelPath: paths[0]! }, prompt, params);
    assert.deepEqual(reloaded.sequences[0]!.tokens, newest.sequences[0]!.tokens);
  } finally {
    client.close();
  }
});

test("a tagged group (X-Seed-Batch) runs as one batch in index order however it arrives: the numbers of the in-process batch", async () => {
  const { url, dir, tokenizer } = await ourServer();
  const client = await TinkerClient.connect({ baseUrl: url });
  try {
    const prompts = ["go to the desk", "open drawer 2 and look", "take the apple from", "You arrive at the"].map((t) => tokenizer.encode(t));
    const params = (seed: number) => ({ max_tokens: 6, temperature: 1, top_p: 1, top_k: -1, seed, stop: [tokenizer.eosId] });
    // Members arrive in reverse order, 15 ms apart: far beyond the untagged burst window.
    const pending = [3, 2, 1, 0].map(async (i, k) => {
      await new Promise((r) => setTimeout(r, 15 * k));
      return { i, res: await client.asample({ baseModel: "tiny" }, prompts[i]!, params(40 + i), { batch: { id: "g1", index: i, size: prompts.length } }) };
    });
    const remote = (await Promise.all(pending)).sort((a, b) => a.i - b.i).map((x) => x.res.sequences[0]!);
    const local = await (await EmbeddedPolicy.load(dir)).sample(prompts.map((p, i) => ({ prompt: p, maxTokens: 6, seed: 40 + i, stopTokens: [tokenizer.eosId] })));
    assert.deepEqual(remote.map((s) => s.tokens), local.map((s) => s.tokens));
    assert.deepEqual(remote.map((s) => s.logprobs), local.map((s) => s.logprobs.map((x) => Math.fround(x))));
    const bad = new Transport({ baseUrl: url });
    await assert.rejects(bad.post("asample", { json: { prompt: { chunks: [{ type: "encoded_text", tokens: prompts[0] }] }, sampling_params: params(1), num_samples: 1, base_model: "tiny" } }, { headers: { "X-Seed-Batch": "g2 4 4" } }), /HTTP 400: X-Seed-Batch must be '<batch id> <index> <size>' with index < size, got 'g2 4 4'/);
  } finally {
    client.close();
  }
});

test("a GET follows redirects (SkyRL answers a checkpoint archive with 302), the key only to the same origin", async () => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.headers["x-api-key"] as string | undefined);
    if (req.url === "/api/v1/training_runs/m/checkpoints/c/archive") res.writeHead(302, { Location: "/files/c.tar.gz" }).end();
    else if (req.url === "/files/c.tar.gz") res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(Buffer.from([1, 2, 3]));
    else if (req.url === "/api/v1/loop") res.writeHead(302, { Location: "/api/v1/loop" }).end();
    else res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const t = new Transport({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "k1", retries: 0 });
  assert.deepEqual([...(await t.getBytes("training_runs/m/checkpoints/c/archive"))], [1, 2, 3]);
  assert.deepEqual(seen, ["k1", "k1"]);
  await assert.rejects(t.getBytes("loop"), /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/loop: HTTP 302: more than 5 redirects/);
});
