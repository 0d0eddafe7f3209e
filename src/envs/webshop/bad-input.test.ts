// Bad benchmark files give one-line errors that name the file and the row (or goal): a missing
// file, a malformed catalogue record, a malformed annotation record, an unknown goal index, and
// the same for Search-QA question sets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataError, UsageError } from "../../core/errors.ts";
import { loadQaSet } from "../search/loaders.ts";
import { loadCatalogFile, loadHumanInstructionsFile } from "./data-files.ts";
import { realShop } from "./shop.ts";

const record = (asin: string, extra: object = {}) => ({
  asin, name: `Product ${asin}`, full_description: "d", small_description: ["b"], pricing: "$10.00", customization_options: "",
  product_category: "A › B", category: "beauty", query: "soap", ...extra,
});

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "bad-input-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function oneLine(fn: () => unknown, kind: new (...a: never[]) => Error, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof kind, String(e));
    assert.ok(!e.message.includes("\n"), e.message);
    for (const p of parts) assert.ok(typeof p === "string" ? e.message.includes(p) : p.test(e.message), `${e.message} lacks ${p}`);
    return true;
  });
}

test("a missing catalogue or question file is a one-line DataError naming it", () => {
  withDir((dir) => {
    oneLine(() => loadCatalogFile(join(dir, "items.json")), DataError, join(dir, "items.json"), "cannot read (ENOENT)");
    oneLine(() => loadQaSet(join(dir, "nq_test.json")), DataError, join(dir, "nq_test.json"));
  });
});

test("a malformed catalogue record names the file, the record number and its ASIN", () => {
  withDir((dir) => {
    const path = join(dir, "items.json");
    writeFileSync(path, JSON.stringify([record("B000000001"), record("B000000002", { pricing: "$abc" }), record("B000000003")]));
    oneLine(() => loadCatalogFile(path), DataError, path, "product record 1 (asin B000000002)", "unparseable price");
    writeFileSync(path, JSON.stringify([record("B000000001"), { asin: "B000000002", name: 7 }]));
    oneLine(() => loadCatalogFile(path), DataError, path, "product record 1 (asin B000000002)", "'name'");
    writeFileSync(path, "[{");
    oneLine(() => loadCatalogFile(path), DataError, path, "not valid JSON");
  });
});

test("a malformed annotation record names the file and the ASIN[row]", () => {
  withDir((dir) => {
    const path = join(dir, "items_human_ins.json");
    writeFileSync(path, JSON.stringify({ B000000001: [{ instruction: "i need soap", instruction_attributes: [], instruction_options: [] }, { instruction: 3 }] }));
    oneLine(() => loadHumanInstructionsFile(path), DataError, path, "B000000001[1]");
  });
});

test("an unknown goal index names the catalogue and the valid range", () => {
  withDir((dir) => {
    const path = join(dir, "items.json");
    // "soap" in the titles' texts is no attribute phrase, "organic" is: one derived goal per product.
    writeFileSync(path, JSON.stringify([record("B000000001", { name: "Organic Soap" }), record("B000000002", { name: "Organic Shampoo" })]));
    const shop = realShop({ catalog: path });
    assert.equal(shop.goals.length, 2);
    oneLine(() => shop.task(7), UsageError, path, "no goal 7 (goal indices are 0 to 1)");
    oneLine(() => shop.task(-1), UsageError, path);
  });
});

test("a malformed question row names the file and the row", () => {
  withDir((dir) => {
    const path = join(dir, "bamboogle_test.json");
    writeFileSync(path, JSON.stringify([{ question: "q1?", answer: "a" }, { question: "", answer: "b" }]));
    oneLine(() => loadQaSet(path), DataError, `${path}[1]`, "question");
  });
});
