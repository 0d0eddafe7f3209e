// Fault tests of the `/retrieve` server (issue 11, item 2) on 127.0.0.1 with an ephemeral port:
// a request over the query, topk, hit or body caps is answered 400/413 with a JSON message before
// any search runs (so the 140,000-query request that took 4 GB costs nothing), the API key is
// enforced, and RemoteRetriever splits a large batch into requests the server accepts.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Bm25Retriever, type Retriever, type RetrievalHit } from "./retriever.ts";
import { createRetrievalServer } from "./server.ts";
import { RemoteRetriever } from "./remote.ts";
import { syntheticWorld } from "./index.ts";

/** BM25 over the generated world, counting the queries it is asked. */
function countingRetriever(): { retriever: Retriever; searched: { queries: number; calls: number } } {
  const bm25 = new Bm25Retriever(syntheticWorld(0).kb.passages);
  const searched = { queries: 0, calls: 0 };
  return {
    searched,
    retriever: {
      retrieve(queries: readonly string[], topk: number): RetrievalHit[][] {
        searched.calls++;
        searched.queries += queries.length;
        return bm25.retrieve(queries, topk);
      },
    },
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((ok) => server.close(() => ok()));
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: { error?: string; result?: unknown[] } }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: res.status, json: (await res.json()) as { error?: string; result?: unknown[] } };
}

test("issue 11: 140,000 queries × topk 100 in one ~1 MB request is refused before any search", async () => {
  const { retriever, searched } = countingRetriever();
  const server = createRetrievalServer(retriever);
  const base = await listen(server);
  try {
    const flood = JSON.stringify({ queries: Array.from({ length: 140_000 }, () => "city"), topk: 100, return_scores: true });
    assert.ok(flood.length < 1 << 20, "under the body cap: the query cap is what refuses it");
    const r = await post(`${base}/retrieve`, flood);
    assert.equal(r.status, 400);
    assert.match(r.json.error!, /140000 queries in one request; at most 1024/);
    const hits = await post(`${base}/retrieve`, JSON.stringify({ queries: Array(300).fill("city"), topk: 100 }));
    assert.equal(hits.status, 400);
    assert.match(hits.json.error!, /30000 hits; at most 20000/);
    const topk = await post(`${base}/retrieve`, JSON.stringify({ query: "city", topk: 101 }));
    assert.equal(topk.status, 400);
    assert.match(topk.json.error!, /"topk" must be an integer in \[1, 100\]/);
    const long = await post(`${base}/retrieve`, JSON.stringify({ query: "x".repeat(5000) }));
    assert.equal(long.status, 400);
    const big = await post(`${base}/retrieve`, JSON.stringify({ queries: ["x".repeat(3_000_000)] }));
    assert.equal(big.status, 413);
    assert.match(big.json.error!, /more than the limit of 1048576 bytes/);
    assert.deepEqual(searched, { queries: 0, calls: 0 }, "no search ran for a refused request");
    // The server is still up and answers a normal batch.
    const ok = await post(`${base}/retrieve`, JSON.stringify({ queries: ["river port", "city"], topk: 3, return_scores: true }));
    assert.equal(ok.status, 200);
    assert.equal(ok.json.result!.length, 2);
    assert.equal(searched.queries, 2);
  } finally {
    await close(server);
  }
});

test("with an API key every route but /health needs the bearer header; RemoteRetriever sends it and splits large batches", async () => {
  const { retriever, searched } = countingRetriever();
  const server = createRetrievalServer(retriever, { apiKey: "k-123", maxQueries: 100 });
  const base = await listen(server);
  try {
    assert.equal((await fetch(`${base}/health`)).status, 200);
    const none = await post(`${base}/retrieve`, JSON.stringify({ query: "city" }));
    assert.equal(none.status, 401);
    assert.match(none.json.error!, /API key/);
    assert.equal((await post(`${base}/retrieve`, JSON.stringify({ query: "city" }), { authorization: "Bearer wrong" })).status, 401);
    assert.equal((await post(`${base}/retrieve`, JSON.stringify({ query: "city" }), { authorization: "Bearer k-123" })).status, 200);
    const queries = Array.from({ length: 250 }, (_, i) => (i % 2 === 0 ? "river port" : `city ${i}`));
    const client = new RemoteRetriever(`${base}/retrieve`, { apiKey: "k-123", maxQueriesPerRequest: 100 });
    const before = searched.calls;
    const lists = await client.retrieveAsync(queries, 3);
    assert.equal(searched.calls - before, 3, "250 queries in posts of at most 100");
    assert.deepEqual(lists, new Bm25Retriever(syntheticWorld(0).kb.passages).retrieve(queries, 3));
  } finally {
    await close(server);
  }
});
