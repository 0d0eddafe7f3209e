// Fidelity of the page text against the benchmark's own pages (upstream `convert_html_to_text`): the
// four shipped HTML fixtures flatten to the expected strings, and the renderer fed the same
// product content produces exactly the flattened text and clickables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cleanProducts } from "./catalog.ts";
import { decodeEntities, flattenHtml } from "./html-text.ts";
import { renderItemPage, renderResultsPage, renderSearchPage, renderSubPage } from "./pages.ts";
import type { Product, RawProduct } from "./types.ts";

const DIR = resolve(import.meta.dirname, "../../../../shared/data/webshop/html_fixtures");
const read = (name: string): string => readFileSync(resolve(DIR, name), "utf8");
const I = "i want an xx-small sized slim fit button down shirt with long sleeves. pick something in white, and price lower than 50.00 dollars";
const TITLE = "PMUYBHF Womens Fashion Flat Shoes Comfortable Running Shoes Sneakers Tennis Athletic Shoe Casual Walking Shoes";

function innerTexts(html: string, cls: string): string[] {
  const re = new RegExp(`class="[^"]*\\b${cls}\\b[^"]*"[^>]*>([^<]*)<`, "g");
  return [...html.matchAll(re)].map((m) => decodeEntities(m[1]!));
}

function raw(partial: Partial<RawProduct> & { asin: string; name: string }): RawProduct {
  return {
    full_description: "", small_description: [], pricing: "", customization_options: "", product_category: "a › b",
    category: "fashion", query: "shoes", ...partial,
  };
}

/** The fixture item as a raw record: no price (the page shows $100.0), colour and size options. */
function fixtureItem(description: string, bullets: string[]): Product {
  return cleanProducts([raw({
    asin: "B09P87V3LZ", name: TITLE, full_description: description, small_description: bullets, pricing: "",
    customization_options: {
      color: ["black", "purple", "red"].map((value) => ({ value })),
      size: ["6.5", "7.5", "8", "8.5", "9"].map((value) => ({ value })),
    },
  })])[0]!;
}

test("results fixture flattens to the expected form, with buttons then ASINs as clickables", () => {
  const page = flattenHtml(read("mock_parse_results_ws.html"));
  assert.ok(page.text.startsWith(`Instruction: [SEP] ${I} [SEP] Back to Search [SEP] Page 1 (Total results: 50) [SEP] Next > [SEP] B09GKFNQWT [SEP] BinGoDug Men's Basketball Shoes, `), page.text.slice(0, 300));
  assert.ok(page.text.includes(" [SEP] $24.49 to $39.99 [SEP] B09BFY2R3R [SEP] "));
  assert.deepEqual(page.clickables.slice(0, 2), ["back to search", "next >"]);
  assert.equal(page.clickables.length, 12);
  assert.ok(page.clickables.slice(2).every((c) => /^b0[0-9a-z]{8}$/.test(c)));
  assert.equal(page.hasSearchBar, false);
});

test("item fixture flattens exactly to the expected string and clickables", () => {
  const page = flattenHtml(read("mock_parse_item_page_ws.html"));
  assert.equal(page.text, `Instruction: [SEP] ${I} [SEP] Back to Search [SEP] < Prev [SEP] color [SEP] black [SEP] purple [SEP] red [SEP] size [SEP] 6.5 [SEP] 7.5 [SEP] 8 [SEP] 8.5 [SEP] 9 [SEP] ${TITLE} [SEP] Price: $100.0 [SEP] Rating: N.A. [SEP] Description [SEP] Features [SEP] Reviews [SEP] Buy Now`);
  assert.deepEqual(page.clickables, ["back to search", "< prev", "description", "features", "reviews", "buy now", "black", "purple", "red", "6.5", "7.5", "8", "8.5", "9"]);
});

test("sub-page fixtures end with Back to Search, < Prev and the product text", () => {
  for (const f of ["mock_parse_item_page_ws_desc.html", "mock_parse_item_page_ws_feat.html"]) {
    const page = flattenHtml(read(f));
    assert.ok(page.text.startsWith(`Instruction: [SEP] ${I} [SEP] Back to Search [SEP] < Prev [SEP] `), f);
    assert.deepEqual(page.clickables, ["back to search", "< prev"], f);
  }
});

test("the renderer reproduces the results fixture from its ten products", () => {
  const html = read("mock_parse_results_ws.html");
  const asins = innerTexts(html, "product-link");
  const titles = innerTexts(html, "product-title");
  const prices = innerTexts(html, "product-price");
  assert.equal(asins.length, 10);
  // The price tags are fed back as raw price strings: the loader must give the same tag back.
  const products = cleanProducts(asins.map((asin, i) => raw({ asin, name: titles[i]!, pricing: prices[i]! === "$100.0" ? "" : prices[i]! })));
  const want = flattenHtml(html);
  const got = renderResultsPage(I, 1, 50, products);
  assert.equal(got.text, want.text);
  assert.deepEqual([...got.clickables.keys()], want.clickables);
});

test("the renderer reproduces the item page and both sub-pages of the fixture product", () => {
  const descHtml = read("mock_parse_item_page_ws_desc.html");
  const featHtml = read("mock_parse_item_page_ws_feat.html");
  const description = innerTexts(descHtml, "product-info")[0]!;
  const bullets = innerTexts(featHtml, "product-info");
  assert.equal(bullets.length, 8);
  const product = fixtureItem(description, bullets);
  const item = flattenHtml(read("mock_parse_item_page_ws.html"));
  const renderedItem = renderItemPage(I, product);
  assert.equal(renderedItem.text, item.text);
  assert.deepEqual([...renderedItem.clickables.keys()], item.clickables);
  for (const [html, sub] of [[descHtml, "Description"], [featHtml, "Features"]] as const) {
    const want = flattenHtml(html);
    const got = renderSubPage(I, product, sub);
    assert.equal(got.text, want.text, sub);
    assert.deepEqual([...got.clickables.keys()], want.clickables, sub);
  }
  // Empty catalogue reviews: nothing after < Prev.
  assert.equal(renderSubPage(I, product, "Reviews").text, `Instruction: [SEP] ${I} [SEP] Back to Search [SEP] < Prev`);
});

test("the search page reads 'WebShop [SEP] Instruction: [SEP] <instruction> [SEP] Search' with a search box", () => {
  const page = renderSearchPage(I);
  assert.equal(page.text, `WebShop [SEP] Instruction: [SEP] ${I} [SEP] Search`);
  assert.deepEqual([...page.clickables.keys()], ["search"]);
  assert.equal(page.hasSearchBar, true);
});

test("flattening follows BeautifulSoup's whitespace rule, skips comments, scripts and head text, keeps <pre> text", () => {
  const page = flattenHtml(
    "<html><head><title>T</title></head><body>\n  <p> a &amp; b </p><!-- hidden --><script>var x = '<p>';</script>" +
      "<b> </b><i>\n</i><pre>  kept  </pre><button class='btn x'>Go &gt;</button></body></html>",
  );
  assert.equal(page.text, "a & b [SEP]  [SEP] kept [SEP] Go >");
  assert.deepEqual(page.clickables, ["go >"]);
});

test("an empty bullet shows an empty [SEP] part on the Features page, as the template's HTML flattens", () => {
  const featHtml = read("mock_parse_item_page_ws_feat.html");
  const bullets = innerTexts(featHtml, "product-info");
  // The fixture page with its second bullet emptied: the template still prints the leading space.
  const html = featHtml.replace(/(<p class="product-info">)[^<]*(<\/p>)/g, (m, open: string, close: string, offset: number) =>
    offset === featHtml.indexOf(`<p class="product-info"> ${bullets[1]!.trim()}`) ? `${open} ${close}` : m);
  const want = flattenHtml(html);
  const edited = [...bullets];
  edited[1] = "";
  const got = renderSubPage(I, fixtureItem("", edited), "Features");
  assert.equal(got.text, want.text);
  assert.ok(got.text.includes(` [SEP] ${bullets[0]!.trim()} [SEP]  [SEP] ${bullets[2]!.trim()} [SEP] `), got.text.slice(0, 300));
});
