// spacy-nouns.json against spaCy itself: when .venv has spaCy and the model the table names, the
// table is exactly what scripts/interop/spacy-title-nouns.py writes for the shipped catalogue.
// Without spaCy (CI does not install it: the model is on PyPI only as third-party re-uploads)
// the test skips; the table's coverage of the catalogue is checked either way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { VENV_PYTHON, pythonSkip } from "../../testing/python.ts";
import { loadCatalogFile } from "./data-files.ts";
import { nouns } from "./nouns.ts";

const CATALOG = resolve(import.meta.dirname, "../../../../shared/data/webshop/items_shuffle_1000.json");
const TABLE = JSON.parse(readFileSync(resolve(import.meta.dirname, "spacy-nouns.json"), "utf8")) as { source: { model: string }; titles: Record<string, string> };

test("the spaCy noun table covers every title of the shipped catalogue, and nouns() returns it", () => {
  const products = loadCatalogFile(CATALOG);
  for (const p of products) assert.equal(nouns(p.name).join(" "), TABLE.titles[p.name], p.asin);
});

const SCRIPT = resolve(import.meta.dirname, "../../../scripts/interop/spacy-title-nouns.py");

test("spacy-nouns.json equals what the installed en_core_web_sm writes (same model version)", { skip: pythonSkip("spacy") }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), "spacy-nouns-"));
  try {
    const out = join(dir, "nouns.json");
    const r = spawnSync(VENV_PYTHON, [SCRIPT, CATALOG, out], { encoding: "utf8" });
    if (r.status !== 0) {
      t.skip(`no usable en_core_web_sm: ${r.stderr.trim().split("\n").at(-1)}`);
      return;
    }
    const fresh = JSON.parse(readFileSync(out, "utf8")) as typeof TABLE;
    if (fresh.source.model !== TABLE.source.model) {
      t.skip(`installed model ${fresh.source.model}, the table was made with ${TABLE.source.model}`);
      return;
    }
    assert.deepEqual(fresh, TABLE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
