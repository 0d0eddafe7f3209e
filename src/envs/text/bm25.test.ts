// BM25, the English analyzer and the Porter stemmer. Stemmer pairs are the worked examples of
// Porter's 1980 paper; BM25 values are checked against the formula computed by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { porterStem } from "./porter.ts";
import { englishAnalyzer, simpleAnalyzer } from "./analyzer.ts";
import { Bm25Index } from "./bm25.ts";

test("porterStem reproduces the examples of Porter's paper", () => {
  const pairs: Record<string, string> = {
    caresses: "caress", ponies: "poni", ties: "ti", caress: "caress", cats: "cat",
    feed: "feed", agreed: "agre", plastered: "plaster", bled: "bled", motoring: "motor", sing: "sing",
    conflated: "conflat", troubled: "troubl", sized: "size", hopping: "hop", tanned: "tan",
    falling: "fall", hissing: "hiss", fizzed: "fizz", failing: "fail", filing: "file",
    happy: "happi", sky: "sky", relational: "relat", conditional: "condit", rational: "ration",
    digitizer: "digit", vietnamization: "vietnam", operator: "oper", feudalism: "feudal",
    decisiveness: "decis", hopefulness: "hope", callousness: "callous", sensitiviti: "sensit",
    triplicate: "triplic", formative: "form", formalize: "formal", electrical: "electr",
    hopeful: "hope", goodness: "good", revival: "reviv", allowance: "allow", inference: "infer",
    airliner: "airlin", gyroscopic: "gyroscop", adjustable: "adjust", defensible: "defens",
    irritant: "irrit", replacement: "replac", adjustment: "adjust", dependent: "depend",
    adoption: "adopt", communism: "commun", activate: "activ", effective: "effect",
    bowdlerize: "bowdler", probate: "probat", rate: "rate", cease: "ceas", controll: "control",
    roll: "roll", generalizations: "gener", oscillators: "oscil",
  };
  const wrong = Object.entries(pairs).filter(([w, s]) => porterStem(w) !== s).map(([w, s]) => `${w}: ${porterStem(w)} != ${s}`);
  assert.deepEqual(wrong, []);
});

test("porterStem leaves short, non-ASCII and non-letter words alone", () => {
  assert.equal(porterStem("is"), "is");
  assert.equal(porterStem("röntgen"), "röntgen");
  assert.equal(porterStem("1972"), "1972");
});

test("englishAnalyzer drops stop words and possessives and stems", () => {
  assert.deepEqual(englishAnalyzer("The Beatles' songs, and John's guitars!"), ["beatl", "song", "john", "guitar"]);
  assert.deepEqual(englishAnalyzer("Wi-Fi 3.5 GHz"), ["wi", "fi", "3", "5", "ghz"]);
  assert.deepEqual(englishAnalyzer("Wilhelm Conrad Röntgen"), ["wilhelm", "conrad", "röntgen"]);
  assert.deepEqual(simpleAnalyzer("The cat's hat"), ["the", "cat", "s", "hat"]);
  assert.deepEqual(englishAnalyzer(""), []);
  assert.deepEqual(englishAnalyzer("\u0000\u0001 🙂 ---"), []);
});

test("Bm25Index scores match the formula computed by hand", () => {
  const index = new Bm25Index({ k1: 1.2, b: 0.75, analyzer: simpleAnalyzer });
  index.addAll(["apple banana apple", "banana cherry", "cherry date elderberry fig"]);
  // N = 3, avgdl = 3; "apple": df = 1, idf = ln(1 + 2.5/1.5); doc 0: tf = 2, dl = 3.
  const idf = Math.log(1 + 2.5 / 1.5);
  const expected = (idf * 2 * 2.2) / (2 + 1.2);
  const hits = index.search("apple", 3);
  assert.equal(hits.length, 1);
  assert.equal(hits[0]!.doc, 0);
  assert.ok(Math.abs(hits[0]!.score - expected) < 1e-12);
  // "banana cherry": doc 1 (both terms, short) beats docs 0 and 2 (one term each).
  assert.deepEqual(index.search("banana cherry", 3).map((h) => h.doc), [1, 0, 2]);
});

test("Bm25Index breaks ties by insertion order and honours topk", () => {
  const index = new Bm25Index();
  index.addAll(["red shoe", "red shoe", "red shoe", "blue shoe"]);
  assert.deepEqual(index.search("red", 2).map((h) => h.doc), [0, 1]);
  assert.deepEqual(index.search("red", 10).map((h) => h.doc), [0, 1, 2]);
  assert.deepEqual(index.search("the and of", 3), []); // stop words only
  assert.deepEqual(index.search("red", 0), []);
  assert.throws(() => index.search("red", -1), RangeError);
});

test("Bm25Index accepts documents added after a search", () => {
  const index = new Bm25Index();
  index.add("alpha beta");
  assert.equal(index.search("gamma", 3).length, 0);
  const d = index.add("gamma gamma");
  assert.deepEqual(index.search("gamma", 3).map((h) => h.doc), [d]);
});

test("Bm25Index rejects nonsense parameters", () => {
  assert.throws(() => new Bm25Index({ b: 2 }), RangeError);
  assert.throws(() => new Bm25Index({ k1: -1 }), RangeError);
});
