// EM scoring (Search-R1's `qa_em.py`): its normalisation on worked examples and
// on the answer formats of the shipped QA sets (NQ: lists of aliases; the others: strings).
import { test } from "node:test";
import assert from "node:assert/strict";
import { exactMatch, extractAnswer, normalizeAnswer, substringMatch } from "./em.ts";

test("normalizeAnswer matches Search-R1 on worked examples", () => {
  const cases: [string, string][] = [
    ["The Beatles!", "beatles"],
    ["14 December 1972 UTC", "14 december 1972 utc"],
    ["an apple-pie", "applepie"],
    ["U.S.A.", "usa"],
    ["The  Mask Of Fu Manchu", "mask of fu manchu"],
    ["Anne's", "annes"],
    ["1,000", "1000"],
    ["theatre", "theatre"],
    ["Wilhelm Conrad Röntgen", "wilhelm conrad röntgen"],
    ["\u201cquoted\u201d", "\u201cquoted\u201d"], // curly quotes are not ASCII punctuation
    ["éa a", "éa"], // é is a word character, so the a of éa is not an article
    ["a_b the_c", "ab thec"], // underscores are punctuation, removed before the article rule
    ["  A  An THE  ", ""],
    ["x\u00a0y\u3000z", "x y z"], // Python splits on Unicode whitespace
  ];
  for (const [input, expected] of cases) assert.equal(normalizeAnswer(input), expected, JSON.stringify(input));
});

test("exactMatch accepts any gold, string or list", () => {
  assert.equal(exactMatch("James Madison", "james madison"), 1);
  assert.equal(exactMatch("December 1972", ["14 December 1972 UTC", "December 1972"]), 1);
  assert.equal(exactMatch("1972", ["14 December 1972 UTC", "December 1972"]), 0);
  assert.equal(exactMatch("the Bobby Scott.", ["Bobby Scott", "Bob Russell"]), 1);
  assert.equal(exactMatch("", ["x"]), 0);
  assert.equal(substringMatch("it was December 1972 I think", ["December 1972"]), 1);
});

test("extractAnswer takes the last answer block, trimmed, across newlines", () => {
  assert.equal(extractAnswer("<answer> James Madison </answer>"), "James Madison");
  assert.equal(extractAnswer("<answer>a</answer> then <answer>\nb\n</answer>"), "b");
  assert.equal(extractAnswer("no tags"), undefined);
  assert.equal(exactMatch(extractAnswer("<answer> James Madison </answer>")!, "james madison"), 1);
});
