// Loading rules (upstream `load_products`), Python text behaviours, goal rules (`goal.py`), the
// generator and the split layout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DataError } from "../../core/errors.ts";
import { Rng } from "../../core/rng.ts";
import { cleanProducts, parsePricing, productPrices } from "./catalog.ts";
import { generateCatalog } from "./generator.ts";
import { humanGoals, priceClause, shuffleGoals, syntheticGoals } from "./goals.ts";
import { pyFloatRepr, pyStrip, textPart } from "./py-text.ts";
import { generatedShop } from "./shop.ts";
import type { RawProduct } from "./types.ts";

function raw(over: Partial<RawProduct> & { asin: string }): RawProduct {
  return {
    name: "Thing", full_description: "d", small_description: ["b"], pricing: "$1.00", customization_options: "",
    product_category: "A › B", category: "garden", query: " Things ", ...over,
  };
}

test("pyFloatRepr writes floats as Python's repr does", () => {
  const cases: [number, string][] = [
    [100, "100.0"], [877.8, "877.8"], [12.99, "12.99"], [0.1 + 0.2, "0.30000000000000004"], [1e16, "1e+16"],
    [1.5e-5, "1.5e-05"], [0.0001, "0.0001"], [123456789012345680, "1.2345678901234568e+17"], [-2.5, "-2.5"], [0, "0.0"],
    [1e15, "1000000000000000.0"],
  ];
  for (const [x, want] of cases) assert.equal(pyFloatRepr(x), want, String(x));
});

test("text parts follow str.strip and BeautifulSoup's whitespace-node rule", () => {
  assert.equal(pyStrip("\x1c a \x85"), "a");
  assert.equal(pyStrip("\ufeffa"), "\ufeffa"); // not whitespace in Python
  assert.equal(textPart(""), null);
  assert.equal(textPart("\n   "), null);
  assert.equal(textPart("  "), "");
  assert.equal(textPart("  Title \n"), "Title");
});

test("prices parse per part of '$' into floats and a price tag", () => {
  assert.deepEqual(parsePricing("$877.80"), { pricing: [877.8], priceTag: "$877.8" });
  assert.deepEqual(parsePricing(""), { pricing: [100], priceTag: "$100.0" });
  assert.deepEqual(parsePricing(null), { pricing: [100], priceTag: "$100.0" });
  assert.deepEqual(parsePricing("$19.99$27.99"), { pricing: [19.99, 27.99], priceTag: "$19.99 to $27.99" });
  assert.deepEqual(parsePricing("$12.99 - $15.99"), { pricing: [12.99, 15.99], priceTag: "$12.99 to $15.99" });
  assert.deepEqual(parsePricing("$1,299.00"), { pricing: [1299], priceTag: "$1299.0" });
  assert.deepEqual(parsePricing("$1$2$3"), { pricing: [1, 2], priceTag: "$1.0 to $2.0" });
  assert.throws(() => parsePricing("$abc"), DataError);
  assert.throws(() => parsePricing("12.99"), DataError);
});

test("cleaning skips bad and repeated ASINs and applies the field rules", () => {
  const products = cleanProducts([
    raw({ asin: "nan" }),
    raw({ asin: "B0123456789X" }),
    raw({
      asin: "B01", name: "Lamp", small_description: "one bullet", pricing: "$5.00$9.00", query: "  Desk Lamps ",
      customization_options: { Color: [{ value: " Black/White " }, { value: "Red" }], Size: null, "Pack": [{ value: "2" }] },
    }),
    raw({ asin: "B01", name: "Duplicate" }),
  ]);
  assert.equal(products.length, 1);
  const p = products[0]!;
  assert.equal(p.title, "Lamp");
  assert.deepEqual(p.bulletPoints, ["one bullet"]);
  assert.equal(p.priceTag, "$5.0 to $9.0");
  assert.deepEqual(p.options, [{ name: "color", values: ["black | white", "red"] }, { name: "pack", values: ["2"] }]);
  assert.deepEqual(p.attributes, ["DUMMY_ATTR"]);
  assert.equal(p.query, "desk lamps");
  assert.equal(p.rating, "N.A.");
  assert.throws(() => cleanProducts([{ asin: "B02", name: 3 }]), DataError);
  assert.throws(() => cleanProducts(["not an object"]), DataError);
});

test("a ranged price draws one actual price inside the range, the same for the same seed", () => {
  const products = cleanProducts([raw({ asin: "R1", pricing: "$10.00 - $20.00" }), raw({ asin: "S1", pricing: "$7.50" })]);
  const a = productPrices(products, 3);
  assert.ok(a.get("R1")! >= 10 && a.get("R1")! <= 20);
  assert.equal(a.get("S1"), 7.5);
  assert.deepEqual(productPrices(products, 3), a);
  assert.notEqual(productPrices(products, 4).get("R1"), a.get("R1"));
});

test("the price clause: 23.5 gives a limit of 40, 50 or 60; 985 gives none", () => {
  const seen = new Set<string>();
  for (let s = 0; s < 200; s++) {
    const c = priceClause(23.5, Rng.from(s));
    assert.equal(c.suffix, `, and price lower than ${c.priceUpper.toFixed(2)} dollars`);
    seen.add(c.suffix);
  }
  assert.deepEqual([...seen].sort(), [40, 50, 60].map((x) => `, and price lower than ${x}.00 dollars`));
  assert.deepEqual(priceClause(985, Rng.from(0)), { priceUpper: 1_000_000, suffix: "" });
});

test("synthetic goals: one per option combination, sorted names, the last varying fastest, one shared price clause", () => {
  const products = cleanProducts([raw({
    asin: "G1", pricing: "$23.50",
    customization_options: { Size: [{ value: "S" }, { value: "M" }, { value: "L" }], Color: [{ value: "Red" }, { value: "Blue" }] },
  })]);
  const goals = syntheticGoals(products, productPrices(products, 0), new Map([["G1", { instruction: "i need a warm hat", attributes: ["warm"] }]]), 0);
  assert.equal(goals.length, 6);
  assert.match(goals[0]!.instructionText, /^i need a warm hat with color: red, and size: s, and price lower than (40|50|60)\.00 dollars$/);
  assert.deepEqual(goals.map((g) => g.goalOptions.join("/")), ["red/s", "red/m", "red/l", "blue/s", "blue/m", "blue/l"]);
  assert.equal(new Set(goals.map((g) => g.priceUpper)).size, 1);
  assert.deepEqual(goals[1]!.optionsByName, { color: "red", size: "m" });
  assert.ok(goals.every((g) => g.weight === 1 / 6));
});

test("human goals strip dots, add the price clause and skip instructions without attributes", () => {
  const products = cleanProducts([raw({ asin: "H1", pricing: "$985.00" })]);
  const human = new Map([["H1", [
    { asin: "H1", instruction: "i want a big lamp.", instructionAttributes: ["big"], instructionOptions: ["red"], productAttributes: [] },
    { asin: "H1", instruction: "no attributes", instructionAttributes: [], instructionOptions: [], productAttributes: [] },
  ]]]);
  const goals = humanGoals(products, productPrices(products, 0), human, 0);
  assert.equal(goals.length, 1);
  assert.equal(goals[0]!.instructionText, "i want a big lamp");
  assert.equal(goals[0]!.priceUpper, 1_000_000);
  assert.deepEqual(goals[0]!.goalOptions, ["red"]);
});

test("the generator writes the real raw schema, deterministically per seed", () => {
  const a = generateCatalog({ products: 60, seed: 5 });
  assert.deepEqual(generateCatalog({ products: 60, seed: 5 }), a);
  assert.notDeepEqual(generateCatalog({ products: 60, seed: 6 }).records, a.records);
  assert.equal(new Set(a.records.map((r) => r.asin)).size, 60);
  assert.deepEqual(new Set(a.records.map((r) => r.category)), new Set(["beauty", "fashion", "grocery", "electronics", "garden"]));
  for (const r of a.records) {
    assert.match(r.asin, /^B0[0-9A-Z]{8}$/);
    assert.ok(r.pricing === "" || /^\$\d+\.\d\d(?:(?: - )?\$\d+\.\d\d)?$/.test(r.pricing!), r.pricing!);
    assert.ok(r.product_category.includes(" › "));
    if (r.customization_options !== "") for (const list of Object.values(r.customization_options)) assert.ok(list!.every((e) => typeof e.value === "string"));
    const ins = a.instructions.get(r.asin)!;
    // Every instruction attribute is one of the product's and appears in its title.
    for (const attr of ins.attributes) {
      assert.ok(r.attributes!.includes(attr));
      assert.ok(r.name.toLowerCase().includes(attr), `${attr} in ${r.name}`);
    }
  }
  assert.ok(a.records.some((r) => r.pricing !== "" && r.pricing!.split("$").length === 3), "some ranged prices");
});

test("the generated shop: 128 fixed test goals, train goals after them, the same shop for the same seed", () => {
  const shop = generatedShop({ products: 100, seed: 0 });
  const test_ = shop.tasks("test");
  const train = shop.tasks("train");
  assert.equal(test_.length, 128);
  assert.equal(test_.length + train.length, shop.goals.length);
  assert.equal(new Set([...test_, ...train].map((t) => t.id)).size, shop.goals.length);
  assert.deepEqual(generatedShop({ products: 100, seed: 0 }).goals, shop.goals);
  assert.deepEqual(shuffleGoals(shop.goals, 1).length, shop.goals.length);
  assert.equal(shop.tasks("train", 5).length, 5);
  assert.throws(() => shop.tasks("valid"), /no split/);
});
