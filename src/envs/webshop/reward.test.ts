// The purchase score (upstream `get_reward`): fuzzy matching, colour normalisation, type,
// attribute, option and price factors on hand-built products.
import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizeColor, COLOR_SET } from "./colors.ts";
import { tokenSetRatio } from "./fuzz.ts";
import { isNounByRule, nouns } from "./nouns.ts";
import { goalOptionItems, goalOptionsCreditable, optionMatches, webshopReward, typeReward } from "./reward.ts";
import { pyStrRepr } from "./py-text.ts";
import type { Product, WebShopGoal } from "./types.ts";

function product(over: Partial<Product> = {}): Product {
  return {
    asin: "B000000001", name: "Acme Sulfate Free Shampoo Bottle", title: "Acme Sulfate Free Shampoo Bottle",
    description: "A gentle shampoo for dry hair.", bulletPoints: ["Paraben free formula", "Salon quality"],
    pricing: [12.5], priceTag: "$12.5", options: [{ name: "scent", values: ["lavender", "navy blue"] }],
    attributes: ["sulfate free", "long lasting"], category: "beauty", query: "shampoo",
    productCategory: "Beauty & Personal Care › Hair Care › Shampoos", rating: "N.A.", reviews: [], ...over,
  };
}

function goal(over: Partial<WebShopGoal> = {}): WebShopGoal {
  return {
    asin: "B000000001", category: "beauty", query: "shampoo", name: "Acme Sulfate Free Shampoo Bottle",
    productCategory: "Beauty & Personal Care › Hair Care › Shampoos", instructionText: "i need a sulfate free shampoo",
    attributes: ["sulfate free", "paraben free"], priceUpper: 20, goalOptions: ["lavender"], weight: 1, source: "synthetic", ...over,
  };
}

test("normalizeColor takes the first colour of the list that occurs (navy blue -> blue)", () => {
  assert.equal(COLOR_SET.length, 102);
  assert.equal(normalizeColor("navy blue"), "blue");
  assert.equal(normalizeColor("black forest"), "black");
  assert.equal(normalizeColor("violet lavender"), "lavender");
  assert.equal(normalizeColor("123alabaster"), "alabaster");
  assert.equal(normalizeColor("webshop"), "webshop");
  assert.equal(normalizeColor(""), "");
});

test("tokenSetRatio matches thefuzz 0.19.0 (difflib SequenceMatcher, '_' a word character)", () => {
  // Reference: thefuzz.fuzz.token_set_ratio from thefuzz==0.19.0 without python-Levenshtein,
  // computed offline (fuzz-thefuzz.test.ts checks thousands of catalogue pairs when .venv exists).
  const cases: [string, string, number][] = [
    ["pack of 2", "pack of 12", 95],
    ["navy blue", "blue", 100],
    ["grey", "gray", 75],
    ["x-small", "small", 100],
    ["machine wash", "machine washable", 86],
    ["long lasting", "long-lasting", 100],
    ["sea salt", "salt and vinegar", 67],
    ["32gb", "64gb", 50],
    ["fresh linen", "lemon", 25], // the Indel (RapidFuzz) ratio would give 38: difflib's blocks differ from an LCS
    ["Caf\u00e9 Latte", "cafe latte", 95], // é dropped: "caf latte"
    ["dark roast", "medium roast coffee", 67],
    ["xx-large", "x-large", 93],
    ["small", "medium", 18],
    ["", "anything", 0],
    ["snake_case", "snake case", 50], // "_" is kept, so "snake_case" is one token
  ];
  for (const [a, b, want] of cases) assert.equal(tokenSetRatio(a, b), want, `${a} / ${b}`);
});

test("a purchase matching every attribute, option and the price scores exactly 1.0", () => {
  const r = webshopReward(product(), goal(), 12.5, ["lavender"]);
  assert.equal(r.score, 1);
  assert.equal(r.rType, 1);
  assert.equal(r.attributeMatches, 2); // sulfate free: fuzzy on attributes; paraben free: substring of a bullet
  assert.equal(r.optionMatches, 1);
  assert.equal(r.priceOk, true);
});

test("price over the limit with 2 attributes and 1 option matched scores 0.75", () => {
  const r = webshopReward(product(), goal({ priceUpper: 10 }), 12.5, ["lavender"]);
  assert.equal(r.score, 0.75);
  assert.equal(r.priceOk, false);
});

test("options compare after colour normalisation; a missing option loses its share", () => {
  assert.equal(webshopReward(product(), goal({ goalOptions: ["blue"] }), 12.5, ["navy blue"]).optionMatches, 1);
  const none = webshopReward(product(), goal(), 12.5, []);
  assert.equal(none.optionMatches, 0);
  assert.equal(none.score, 0.75);
});

test("the type factor: 1 with a shared query, 0.5 without query/category/title match, 0.1 and 0 for weak titles", () => {
  assert.equal(typeReward(product(), goal()).rType, 1);
  const unrelated = { query: "x", productCategory: "Toys › Games" };
  // Shares one noun of five ("shampoo"): title score 0.2 is not > 0.2, no query/category match.
  const half = typeReward(product({ ...unrelated, name: "Shampoo Brush Set" }), goal({ name: "Acme Sulfate Shampoo Bottle Pump" }));
  assert.equal(half.titleScore, 0.2);
  assert.equal(half.rType, 0.5);
  const g = goal({ name: "Acme Shampoo Bottle Brush Comb Mirror Towel Cap Robe Soap Case" });
  const low = typeReward(product({ ...unrelated, name: "Robe" }), g);
  assert.ok(low.titleScore > 0 && low.titleScore < 0.1);
  assert.equal(low.rType, 0.1);
  const zero = webshopReward(product({ ...unrelated, name: "Garden Hose" }), goal(), 12.5, ["lavender"]);
  assert.equal(zero.rType, 0);
  assert.equal(zero.score, 0);
});

test("nouns: a catalogue title gets spaCy's list; other titles the spaCy lexicon, then the suffix rule", () => {
  // en_core_web_sm 3.6.0 on this real title (spacy-nouns.json): "42.5", "3", "for" are not nouns; "-" splits "X-Shaped".
  const title = "ANSTAND 42.5 Inch Console Table 3 Tier Accent Entryway Table,Industrial Style X-Shaped Cross Metal Frame Sofa Side Table Hall Table Display Table for Home Office,Black";
  assert.equal(nouns(title).join(" "), "anstand inch console table tier accent entryway table industrial style x shaped cross metal frame sofa side table hall table display table home office black");
  // Not a catalogue title: spaCy tags "free" and "women" nouns in titles (the lexicon says so), "for" and "16" not.
  assert.deepEqual(nouns("Acme Sulfate Free Shampoo for Women, 16 Fl Oz"), ["acme", "sulfate", "free", "shampoo", "women", "fl", "oz"]);
  // Words outside the lexicon fall back to the rule: adjective endings and function words are not nouns.
  assert.deepEqual(nouns("Zorbex Glimmerous Quandle"), ["zorbex", "quandle"]);
  assert.equal(isNounByRule("glimmerous"), false);
  // Repeats are kept: the type reward divides by the list length, as upstream does with spaCy tokens.
  assert.deepEqual(nouns("Shoes Shoes"), ["shoes", "shoes"]);
});

test("synthetic goals' options compare as upstream's (name, value) tuples; the value rule is an option", () => {
  const standard = goal({ goalOptions: ["standard"], optionsByName: { size: "standard" } });
  // "standard" normalises to "tan", which the tuple text "('size', 'standard')" lacks as a token.
  assert.equal(webshopReward(product(), standard, 12.5, ["standard"]).optionMatches, 0);
  assert.equal(webshopReward(product(), standard, 12.5, ["standard"], "values").optionMatches, 1);
  assert.equal(goalOptionsCreditable(standard), false);
  assert.equal(goalOptionsCreditable(standard, "values"), true);
  // A chosen value whose tokens lie inside the tuple's is credited upstream only.
  const navy = goal({ goalOptions: ["navy blue"], optionsByName: { color: "navy blue" } });
  assert.equal(webshopReward(product(), navy, 12.5, ["navy"]).optionMatches, 1);
  assert.equal(webshopReward(product(), navy, 12.5, ["navy"], "values").optionMatches, 0);
  // A tuple element that is exactly a colour word normalises the whole tuple to it (Python's "in").
  assert.deepEqual(goalOptionItems(goal({ goalOptions: ["black"], optionsByName: { color: "black" } })), [["color", "black"]]);
  assert.equal(optionMatches(["jet black"], [["color", "black"]]), 1);
  // Human goals keep their option strings.
  assert.deepEqual(goalOptionItems(goal({ goalOptions: ["black", "10.5"], source: "human" })), ["black", "10.5"]);
});

test("pyStrRepr writes Python's repr of a str (quotes, escapes, unprintables)", () => {
  assert.equal(pyStrRepr("navy blue"), "'navy blue'");
  assert.equal(pyStrRepr("men's"), "\"men's\"");
  assert.equal(pyStrRepr("6'2\" tall"), "'6\\'2\" tall'");
  assert.equal(pyStrRepr("a\\b\tc\nd"), "'a\\\\b\\tc\\nd'");
  assert.equal(pyStrRepr("\x85\u00e9\u200b\u{1F600}"), "'\\x85\u00e9\\u200b\u{1F600}'");
});
