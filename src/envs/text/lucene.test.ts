// Lucene's analysis and BM25 number formats, on cases whose expected values were produced by
// real Lucene 8.11 (the WebShop interop test compares the whole catalogue when Java is present).
import { test } from "node:test";
import assert from "node:assert/strict";
import { luceneEnglishAnalyzer, standardTokens } from "./lucene-analyzer.ts";
import { LuceneBm25Index, byte4ToInt, intToByte4 } from "./lucene-bm25.ts";

test("the analyzer gives Lucene's terms: UAX#29 words, emoji, CJK, possessives, stop words, Porter", () => {
  // Expected: LuceneBm25.java analyze (StandardTokenizer, EnglishPossessiveFilter, LowerCaseFilter, stop set, Porter).
  const cases: [string, string][] = [
    ["i \u2764 you \u2764\ufe0f ok", "i \u2764 you \u2764\ufe0f ok"],
    ["\u2708 fly \u2714 ok \u2605 star \u00ae tm \u2122 \u00a9", "\u2708 fly \u2714 ok \u2605 star \u00ae tm \u2122 \u00a9"],
    ["\ud83c\udf38\ud83c\udf3a flowers \ud83d\udc4d\ud83c\udffd \ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 \ud83c\uddfa\ud83c\uddf8 #\ufe0f\u20e3 1\ufe0f\u20e3", "\ud83c\udf38 \ud83c\udf3a flower \ud83d\udc4d\ud83c\udffd \ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 \ud83c\uddfa\ud83c\uddf8 #\ufe0f\u20e3 1\ufe0f\u20e3"],
    ["don't john's john\u2019s wi-fi 3.5mm 1,000.50 a:b e.g. u.s.a. x_y _ __a", "don't john john wi fi 3.5mm 1,000.50 a:b e.g u.s.a x_y __a"],
    ["\u4e2d\u6587\u5b57 \u3072\u3089\u304c\u306a \u30ab\u30bf\u30ab\u30ca\ud55c\uad6d\uc5b4 \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22", "\u4e2d \u6587 \u5b57 \u3072 \u3089 \u304c \u306a \u30ab\u30bf\u30ab\u30ca \ud55c\uad6d\uc5b4 \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22"],
    ["size:xl 12\"x18\" 5\u00b0c 10\u00d720 caf\u00e9 na\u00efve \u01c5 \u0130stanbul \u03a3\u0391\u03a3", "size:xl 12 x18 5 c 10 20 caf\u00e9 na\u00efv \u01c6 istanbul \u03c3\u03b1\u03c3"],
  ];
  for (const [text, want] of cases) assert.equal(luceneEnglishAnalyzer(text).join(" "), want, text);
  assert.deepEqual(standardTokens("a".repeat(300)).map((t) => t.length), [255, 45]);
});

test("norms quantise lengths as SmallFloat.intToByte4 (exact below 41 here, 4 significant bits above)", () => {
  // Expected: Lucene's SmallFloat, length -> byte -> decoded length.
  const cases: [number, number, number][] = [
    [0, 0, 0], [23, 23, 23], [24, 24, 24], [40, 40, 40], [41, 40, 40], [100, 57, 96], [200, 67, 200], [1000, 87, 984], [65535, 135, 61464],
  ];
  for (const [len, byte, decoded] of cases) assert.deepEqual([intToByte4(len), byte4ToInt(intToByte4(len))], [byte, decoded], String(len));
});

test("equal scores rank by id, not by insertion order; a repeated query term counts as a boost", () => {
  const index = new LuceneBm25Index();
  index.add("B2", "red shoe");
  index.add("B1", "red shoe");
  index.add("A9", "blue shoe");
  const hits = index.search("red shoes", 10);
  assert.deepEqual(hits.map((h) => h.id), ["B1", "B2", "A9"]);
  assert.equal(hits[0]!.score, hits[1]!.score);
  // Boost 2 doubles the clause weight exactly, so the score doubles exactly.
  assert.equal(index.search("red red", 10)[0]!.score, 2 * index.search("red", 10)[0]!.score);
  assert.deepEqual(index.search("the and of", 10), []);
});
