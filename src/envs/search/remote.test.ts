// The HTTP retriever client against our own server in a separate process
// (`node bin/seed.js retrieve serve`), as issue 3 asks: the Search-R1
// response shape, coalesced prefetches, SearchEnv over HTTP via prepare(), and clear errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { EnvStateError, RemoteError } from "../../core/errors.ts";
import { playEpisode } from "../expert.ts";
import { RemoteRetriever, SearchEnv, searchExpert, syntheticSearchTasks, syntheticWorld } from "./index.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
let server: ChildProcess | undefined;
let url = "";
let corpusFile = "";

before(async () => {
  // The generated corpus, written as a Search-R1 JSONL file, keeps the test independent of
  // ../shared/data and lets it compare with the same world searched in process.
  const dir = mkdtempSync(join(tmpdir(), "seed-retrieve-"));
  corpusFile = join(dir, "corpus.jsonl");
  writeFileSync(corpusFile, syntheticWorld(0).kb.passages.map((p) => JSON.stringify(p)).join("\n") + "\n");
  server = spawn(process.execPath, ["bin/seed.js", "retrieve", "serve", "--corpus", corpusFile, "--port", "0", "--json"], {
    cwd: ROOT, stdio: ["ignore", "pipe", "pipe"],
  });
  url = await new Promise<string>((ok, fail) => {
    let out = "", errText = "";
    const timer = setTimeout(() => fail(new Error(`server not ready after 30 s: ${errText}`)), 30_000);
    server!.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        ok((JSON.parse(line) as { url: string }).url);
      }
    });
    server!.stderr!.on("data", (chunk: Buffer) => (errText += chunk.toString()));
    server!.on("exit", (code) => fail(new Error(`server exited with ${code}: ${errText}`)));
  });
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((ok) => server!.once("exit", ok));
    server.kill("SIGTERM");
    await exited;
  }
  if (corpusFile !== "") rmSync(dirname(corpusFile), { recursive: true, force: true });
});

test("the server answers in Search-R1's shape with the in-process ranking", async () => {
  const remote = new RemoteRetriever(url);
  const local = syntheticWorld(0).retriever;
  const queries = syntheticSearchTasks("train", { count: 5 }).map((t) => (t.payload as { question: string }).question);
  const lists = await remote.retrieveAsync(queries, 3);
  assert.equal(lists.length, queries.length);
  const expected = local.retrieve(queries, 3);
  lists.forEach((list, i) => {
    assert.equal(list.length, 3);
    assert.deepEqual(list.map((h) => h.document), expected[i]!.map((h) => h.document));
    list.forEach((h, j) => assert.ok(Math.abs(h.score - expected[i]![j]!.score) < 1e-9));
  });
  const one = await new RemoteRetriever(url, { api: "verl-agent" }).retrieveAsync([queries[0]!], 3);
  assert.deepEqual(one[0]!.map((h) => h.document.id), lists[0]!.map((h) => h.document.id));
});

test("the server rejects malformed requests with 4xx and a JSON error", async () => {
  const post = (body: string) => fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
  for (const [body, status] of [["{", 400], ['{"queries": [1]}', 400], ['{"query": "x", "topk": 0}', 400], ["[]", 400]] as const) {
    const r = await post(body);
    assert.equal(r.status, status, body);
    assert.equal(typeof ((await r.json()) as { error: unknown }).error, "string");
  }
  assert.equal((await fetch(url.replace("/retrieve", "/nope"))).status, 404);
  assert.equal((await fetch(url)).status, 405);
  const bare = (await (await post('{"queries": ["Works"], "topk": 2}')).json()) as { result: unknown[][] };
  assert.ok(bare.result[0]!.every((d) => typeof (d as { contents: unknown }).contents === "string"), "bare documents without return_scores");
});

test("prefetches of one tick are coalesced; SearchEnv runs over HTTP through prepare()", async () => {
  const remote = new RemoteRetriever(url);
  let posts = 0;
  const post = (remote as unknown as { post: (b: unknown) => Promise<unknown> }).post.bind(remote);
  (remote as unknown as { post: (b: unknown) => Promise<unknown> }).post = (b) => {
    posts++;
    return post(b);
  };
  const tasks = syntheticSearchTasks("test", { count: 8 });
  const envs = tasks.map(() => new SearchEnv({ retriever: remote }));
  const experts = tasks.map((t) => searchExpert(t, 0));
  let obs = envs.map((e, i) => e.reset(tasks[i]!, 0));
  const won = tasks.map(() => false);
  const done = tasks.map(() => false);
  for (let turn = 0; turn < 4 && done.includes(false); turn++) {
    const actions = obs.map((o, i) => (done[i] ? "" : experts[i]!.act(o)));
    const before = posts;
    await Promise.all(envs.map((e, i) => (done[i] ? undefined : e.prepare(actions[i]!))));
    if (actions.some((a, i) => !done[i] && a.startsWith("<search>"))) assert.equal(posts - before, 1, "one POST per batch");
    obs = envs.map((e, i) => {
      if (done[i]) return obs[i]!;
      const r = e.step(actions[i]!);
      done[i] = r.done;
      won[i] = r.won;
      return r.observation;
    });
  }
  assert.deepEqual(won, tasks.map(() => true));
  // The same questions in process give the same transcripts.
  const t = tasks[0]!;
  const local = playEpisode(new SearchEnv({ retriever: syntheticWorld(0).retriever }), t, 0, searchExpert(t, 0).act);
  assert.ok(local.won);
});

test("a search that was never prepared, and an unreachable server, are clear errors", async () => {
  const env = new SearchEnv({ retriever: new RemoteRetriever(url) });
  env.reset(syntheticSearchTasks("test", { count: 1 })[0]!, 0);
  assert.throws(() => env.step("<search>anything</search>"), EnvStateError);
  await assert.rejects(new RemoteRetriever("http://127.0.0.1:1/retrieve", { timeoutMs: 2000 }).retrieveAsync(["x"], 3), RemoteError);
  assert.throws(() => new RemoteRetriever("not a url"), RemoteError);
});
