// The shared HTTP limits on a real server on 127.0.0.1: over-limit bodies get a readable 413
// (streamed, declared, and announced with Expect: 100-continue), slow clients are cut off with
// 408, extra connections are closed, and the API-key check accepts only the configured key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { rawHttp as raw } from "../../test/raw-http.ts";
import {
  apiKeyFrom, checkApiKey, createLimitedServer, exposureWarning, isLoopbackHost, readJsonBody, resolveHttpLimits, sendJson,
} from "./http.ts";

async function listen(server: Server): Promise<number> {
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return (server.address() as AddressInfo).port;
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((ok) => server.close(() => ok()));
}

/** An echo server: answers the JSON body's key count, with the shared limits. */
function echoServer(overrides: Parameters<typeof resolveHttpLimits>[0] = {}): { server: Server; seen: { bytes: number } } {
  const limits = resolveHttpLimits(overrides);
  const seen = { bytes: 0 };
  const server = createLimitedServer(limits, async (req, res) => {
    req.on("data", (c: Buffer) => (seen.bytes += c.length));
    const body = await readJsonBody(req, limits.maxBodyBytes);
    sendJson(res, 200, { keys: Object.keys(body).length });
  });
  return { server, seen };
}

test("a body over the cap is answered 413 with a JSON message, streamed or declared, never a reset", async () => {
  const { server } = echoServer({ maxBodyBytes: 1024 });
  const port = await listen(server);
  try {
    const ok = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: JSON.stringify({ a: 1, b: 2 }) });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { keys: 2 });
    // Streamed (chunked, no length): the server reads past the cap, answers, and discards the rest.
    const big = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: JSON.stringify({ a: "x".repeat(4_000_000) }) });
    assert.equal(big.status, 413);
    assert.match(((await big.json()) as { error: string }).error, /more than the limit of 1024 bytes/);
    // Declared: a 10 GB Content-Length of which 10 bytes are sent is refused at once, from the header.
    const declared = await raw(port, [`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000000\r\n\r\n{"a": 1}`]);
    assert.match(declared, /^HTTP\/1\.1 413/);
    assert.match(declared, /10000000000 bytes, more than the limit of 1024 bytes/);
    // Expect: 100-continue: refused before the client sends any body.
    const res = await new Promise<IncomingMessage>((ok) => {
      const r = request({ host: "127.0.0.1", port, method: "POST", headers: { "content-length": 5000, expect: "100-continue" } }, ok);
      r.on("continue", () => assert.fail("the server asked for an over-limit body"));
      r.on("error", () => {});
      r.flushHeaders();
    });
    assert.equal(res.statusCode, 413);
    res.resume();
    const bad = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{nope" });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /not valid JSON/);
  } finally {
    await stop(server);
  }
});

test("slow headers and slow bodies are cut off with 408; the connection cap closes extra sockets", async () => {
  const { server } = echoServer({ headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnections: 2 });
  const port = await listen(server);
  try {
    // Headers one byte at a time, 100 ms apart, would take 4 s: the server ends it first.
    const header = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n";
    const slowHeaders = await raw(port, [...header], 100);
    assert.match(slowHeaders, /^HTTP\/1\.1 408/);
    // Headers at once, then a body trickled 1 byte per 200 ms: 408 after the request timeout.
    const slowBody = await raw(port, [`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n`, ...'{"a": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}'], 200);
    assert.match(slowBody, /^HTTP\/1\.1 408/);
    // Two idle connections fill the cap; the third is closed without an answer.
    const holders = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
    await Promise.all(holders.map((s) => new Promise((ok) => s.once("connect", ok))));
    await new Promise((ok) => setTimeout(ok, 50));
    const third = await raw(port, ["GET / HTTP/1.1\r\nHost: x\r\n\r\n"], 0, 3_000);
    assert.equal(third, "");
    holders.forEach((s) => s.destroy());
  } finally {
    await stop(server);
  }
});

test("the API key: bearer and X-API-Key headers, flag before environment, loopback needs no warning", async () => {
  const seen: boolean[] = [];
  const server = createLimitedServer(resolveHttpLimits(), (req, res) => {
    seen.push(checkApiKey(req, "s3cret", "bearer"), checkApiKey(req, "s3cret", "x-api-key"), checkApiKey(req, undefined, "bearer"));
    sendJson(res, 200, {});
  });
  const port = await listen(server);
  try {
    for (const headers of [{ authorization: "Bearer s3cret" }, { "x-api-key": "s3cret" }, { authorization: "Bearer s3cre" }, {}]) {
      await (await fetch(`http://127.0.0.1:${port}/`, { headers })).text();
    }
    assert.deepEqual(seen, [true, false, true, false, true, true, false, false, true, false, false, true]);
  } finally {
    await stop(server);
  }
  assert.equal(apiKeyFrom("flag", "K", { K: "env" }), "flag");
  assert.equal(apiKeyFrom(undefined, "K", { K: "env" }), "env");
  assert.equal(apiKeyFrom(undefined, "K", { K: "" }), undefined);
  for (const h of ["127.0.0.1", "localhost", "::1", "[::1]", "127.3.2.1"]) assert.ok(isLoopbackHost(h), h);
  for (const h of ["0.0.0.0", "::", "192.168.1.4", "example.com"]) assert.ok(!isLoopbackHost(h), h);
  assert.equal(exposureWarning("127.0.0.1", false), null);
  assert.equal(exposureWarning("0.0.0.0", true), null);
  assert.match(exposureWarning("0.0.0.0", false)!, /^warning: listening on 0\.0\.0\.0 without an API key/);
  assert.throws(() => resolveHttpLimits({ maxBodyBytes: 0 }), /maxBodyBytes must be a positive integer/);
});
