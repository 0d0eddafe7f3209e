// Search-QA: information text byte for byte, BM25 over wiki-18, the loaders of the five
// QA sets, the environment's turn protocol, the synthetic knowledge base, the expert and
// the shared conformance suite. Tests that read ../shared/data skip, with a reason, without it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataError, EnvStateError } from "../../core/errors.ts";
import { Rng } from "../../core/rng.ts";
import { runEnvConformance } from "../../testing/env-conformance.ts";
import { NoisyExpert, playEpisode } from "../expert.ts";
import type { TaskSpec } from "../env.ts";
import {
  exactMatch, normalizeAnswer, Bm25Retriever, generateKnowledgeBase, informationText, loadCorpus, loadQaSet, makeSearchEnv, parseCorpus,
  parseQaSet, parseSearchAction, SearchEnv, searchExpert, searchRandomAction, syntheticSearchTasks, type SearchPayload,
} from "./index.ts";

const DATA = resolve(import.meta.dirname, "../../../../shared/data/search-qa");
const noData = existsSync(DATA) ? false : `no ${DATA}`;
const fixture = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/information-wiki18.json"), "utf8")) as Record<string, string>;

const q = (question: string, answers: string[]): TaskSpec => ({ id: `t/${question}`, split: "test", payload: { question, answers, dataset: "t" } });

test("information text of a known passage matches Python byte for byte, in both styles", { skip: noData }, () => {
  const corpus = loadCorpus(join(DATA, "wiki18_sample_1000.jsonl"));
  const hit = (i: number) => ({ document: corpus[i]!, score: 1 });
  assert.equal(informationText([[hit(0)]], "verl-agent"), fixture["verlAgentOne"]);
  assert.equal(informationText([[hit(0)]], "search-r1"), fixture["searchR1One"]);
  assert.equal(informationText([[hit(0)], [hit(1), hit(0)]], "verl-agent"), fixture["verlAgentTwoLists"]);
  // No hits: an empty result string, as upstream's search tool returns.
  assert.equal(informationText([[]], "verl-agent"), '<information>{"result": ""}</information>');
});

test("BM25 over wiki-18: a planted unique term ranks its passage first; every answer has topk hits", { skip: noData }, () => {
  const corpus = loadCorpus(join(DATA, "wiki18_sample_1000.jsonl"));
  assert.equal(corpus.length, 1000);
  const planted = { id: "planted", contents: '"Quixotrel"\nThe quixotrel is a bird that nests in libraries.' };
  const r = new Bm25Retriever([...corpus.slice(0, 500), planted, ...corpus.slice(500)]);
  assert.equal(r.retrieve(["where does the quixotrel nest"], 3)[0]![0]!.document.id, "planted");
  const lists = r.retrieve(["Evan Morris lobbyist", "war in europe", "president of the united states"], 3);
  assert.equal(lists.length, 3);
  for (const list of lists) {
    assert.equal(list.length, 3);
    for (const h of list) assert.ok(typeof h.document.id === "string" && typeof h.document.contents === "string" && Number.isFinite(h.score));
  }
  assert.equal(lists[0]![0]!.document.id, "0");
});

test("the five QA sets load with their counts; NQ answers are lists, the others strings", { skip: noData }, () => {
  const expected: Record<string, number> = {
    "bamboogle_test.json": 125, "nq_test.json": 3610, "hotpotqa_dev.json": 7405, "musique_dev.json": 2417, "2wikimultihopqa_dev.json": 12576,
  };
  for (const [file, count] of Object.entries(expected)) {
    const tasks = loadQaSet(join(DATA, file));
    assert.equal(tasks.length, count, file);
    const raw = JSON.parse(readFileSync(join(DATA, file), "utf8")) as { answer: unknown }[];
    assert.equal(raw.every((r) => Array.isArray(r.answer)), file === "nq_test.json", `${file} answer format`);
    for (const t of tasks) {
      const p = t.payload as SearchPayload;
      assert.ok(p.question.endsWith("?") && p.answers.length > 0, `${t.id}`);
      // Every gold answer scores against its own set, in any of its forms.
      for (const a of p.answers) assert.equal(exactMatch(`  ${a.toUpperCase()}. `, p.answers), normalizeAnswer(a) === normalizeAnswer(a.toUpperCase()) ? 1 : 0, `${t.id}: ${a}`);
    }
  }
  const nq = loadQaSet(join(DATA, "nq_test.json"));
  assert.equal(nq[0]!.id, "nq/0");
  assert.equal(exactMatch("December 1972", (nq[0]!.payload as SearchPayload).answers), 1, "any NQ alias scores");
  assert.equal((nq[0]!.payload as SearchPayload).question, "when was the last time anyone was on the moon?");
  // The file holds ids test_0..test_16: 17 rows, although its name says 16.
  const flash = loadQaSet(join(DATA, "flashrag_nq_sample16.jsonl"));
  assert.equal(flash.length, 17);
  assert.deepEqual((flash[0]!.payload as SearchPayload).answers, ["Wilhelm Conrad R\u00f6ntgen"]);
  assert.equal(flash[0]!.id, "flashrag_nq/test_0");
  const bamboogle = loadQaSet(join(DATA, "bamboogle_test.json"));
  const env = makeSearchEnv();
  env.reset(bamboogle[0]!, 0);
  assert.equal(env.step("<answer>James Madison</answer>").reward, 1);
});

test("loaders and the corpus parser reject malformed data with DataError", () => {
  assert.throws(() => parseQaSet("[{\"question\": 3, \"answer\": \"x\"}]", { dataset: "x" }), DataError);
  assert.throws(() => parseQaSet("[{\"question\": \"q\", \"answer\": []}]", { dataset: "x" }), DataError);
  assert.throws(() => parseQaSet("{\"question\": \"q\"}\nnot json", { dataset: "x" }), DataError);
  assert.throws(() => parseQaSet("[1,", { dataset: "x" }), DataError);
  assert.throws(() => parseCorpus('{"id": "1"}'), DataError);
  assert.throws(() => loadQaSet("/nonexistent/file.json"), DataError);
  assert.deepEqual(parseCorpus('{"id": 7, "contents": "\\"T\\"\\nx"}\n\n'), [{ id: "7", contents: '"T"\nx' }]);
});

test("parseSearchAction reads only whole re-emitted tag blocks", () => {
  assert.deepEqual(parseSearchAction("<search> who wrote hamlet </search>"), { kind: "search", query: "who wrote hamlet" });
  assert.deepEqual(parseSearchAction("<ANSWER>Paris</ANSWER>"), { kind: "answer", answer: "Paris" });
  assert.deepEqual(parseSearchAction("<search></search>"), { kind: "search", query: "" });
  for (const bad of ["", "Paris", "<search>x", "<answer>a</answer> trailing", "<think>x</think><answer>a</answer>"]) {
    assert.deepEqual(parseSearchAction(bad), { kind: "invalid" }, bad);
  }
});

test("turn protocol: searches return information, invalid turns are empty and counted, the 4th turn ends without running its search", () => {
  const env = new SearchEnv({ retriever: new Bm25Retriever([{ id: "0", contents: '"Paris"\nParis is the capital of France.' }]) });
  const obs = env.reset(q("What is the capital of France?", ["Paris"]), 0);
  assert.deepEqual(obs, { text: "What is the capital of France?", task: "What is the capital of France?" });
  const s = env.step("<search>capital of France</search>");
  assert.equal(s.observation.text, '<information>{"result": "Doc 1: \\"Paris\\"\\nParis is the capital of France.\\n"}</information>');
  assert.deepEqual([s.reward, s.done, s.won, s.actionRecognized], [0, false, false, true]);
  const none = env.step("<search>zebra</search>");
  assert.equal(none.observation.text, '<information>{"result": ""}</information>');
  const invalid = env.step("I think it is Paris");
  assert.deepEqual([invalid.observation.text, invalid.reward, invalid.done, invalid.actionRecognized], ["", 0, false, false]);
  // The 4th turn's search is not executed (verl-agent ends the episode first): no information.
  const last = env.step("<search>France</search>");
  assert.deepEqual([last.observation.text, last.done, last.won, last.reward], ["", true, false, 0]);
  assert.throws(() => env.step("<answer>Paris</answer>"), EnvStateError);
});

test("an answer ends the episode with EM; the Search-R1 style answers invalid turns with its fixed text", () => {
  const env = makeSearchEnv();
  env.reset(q("Who wrote it", ["The Bard", "Shakespeare"]), 0);
  const r = env.step("<answer> the bard. </answer>");
  assert.deepEqual([r.reward, r.done, r.won, r.score], [1, true, true, 1]);
  env.reset(q("Who wrote it", ["Shakespeare"]), 0);
  assert.deepEqual([env.step("<answer>Marlowe</answer>").won], [false]);
  const r1 = new SearchEnv({ retriever: new Bm25Retriever([]), style: "search-r1" });
  r1.reset(q("x", ["y"]), 0);
  assert.match(r1.step("nonsense").observation.text, /^My previous action is invalid\. If I want to search, I should put the query between <search> and <\/search>\./);
  assert.throws(() => env.reset({ id: "bad", split: "x", payload: { question: "q" } }, 0), DataError);
});

test("the synthetic knowledge base is deterministic, split, and every question answerable within its hops", () => {
  const a = generateKnowledgeBase({ seed: 3 });
  assert.deepEqual(generateKnowledgeBase({ seed: 3 }), a);
  assert.notDeepEqual(generateKnowledgeBase({ seed: 4 }).passages, a.passages);
  assert.ok(a.passages.length >= 80 && a.questions.length >= 200, `${a.passages.length} passages, ${a.questions.length} questions`);
  for (const p of a.passages) assert.match(p.contents, /^"[^"\n]+"\n\S/);
  const payloads = a.questions.map((t) => t.payload as SearchPayload);
  assert.ok(payloads.some((p) => p.hops!.length === 1) && payloads.some((p) => p.hops!.length === 2));
  const splits = new Set(a.questions.map((t) => t.split));
  assert.deepEqual([...splits].sort(), ["test", "train"]);
  const retriever = new Bm25Retriever(a.passages);
  for (const p of payloads) {
    for (const h of p.hops!) assert.ok(retriever.retrieve([h.query], 3)[0]!.some((x) => x.document.id === h.passageId), `${p.question}: ${h.query}`);
    // The last hop's passage states the answer.
    const last = a.passages.find((x) => x.id === p.hops!.at(-1)!.passageId)!;
    assert.ok(last.contents.includes(p.answers[0]!), p.question);
  }
});

test("the expert answers every generated test question within 3 turns; the noisy one less often", () => {
  const tasks = syntheticSearchTasks("test");
  for (const t of tasks) {
    const ep = playEpisode(makeSearchEnv(), t, 0, searchExpert(t, 0).act);
    assert.ok(ep.won && ep.steps.length <= 3, t.id);
  }
  const noisy = tasks.map((t, i) => {
    const e = new NoisyExpert(searchExpert(t, i), { epsilon: 0.4, rng: Rng.from(i), randomAction: searchRandomAction });
    return playEpisode(makeSearchEnv(), t, i, (o) => e.act(o)).won;
  });
  const rate = noisy.filter(Boolean).length / noisy.length;
  assert.ok(rate > 0.2 && rate < 1, `noisy rate ${rate}`);
});

runEnvConformance({
  name: "search",
  makeEnv: () => makeSearchEnv(),
  tasks: [...syntheticSearchTasks("train", { count: 4 }), ...syntheticSearchTasks("test", { count: 2 }), q("What is the capital of Mars", ["none"])],
  sampleActions: ["<search>capital</search>", "<search></search>", "<answer>1843</answer>", "<answer></answer>", "hello", ""],
  invalidObservation: () => "",
  countedActions: ["<search>city</search>", "not an action"],
  expert: searchExpert,
});
