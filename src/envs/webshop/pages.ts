/**
 * The five WebShop pages (search, results, item, item sub-page, done) rendered straight to the
 * text the benchmark's text mode derives from their HTML (**exact**, upstream
 * `convert_html_to_text(simple=True)`): the
 * page's text nodes in document order, each stripped, joined by `" [SEP] "`. Each page also
 * lists its clickables in the order `get_available_actions` finds them: `.btn` buttons,
 * then `.product-link` ASINs, then option radio values. No HTML is produced; `html-text.ts`
 * flattens real HTML so tests can check these strings against the benchmark's own pages.
 */
import { pyFloatRepr, textPart } from "./py-text.ts";
import type { Product } from "./types.ts";

/** What clicking a clickable refers to. */
export type Clickable =
  | { readonly kind: "button" }
  | { readonly kind: "product"; readonly asin: string }
  | { readonly kind: "option"; readonly group: string };

/** A rendered page: observation text, clickables (lower-cased button/ASIN text, raw option values) and search box. */
export type RenderedPage = {
  readonly text: string;
  /** Clickable text → target, in page order; a repeated text keeps its first position and its last target (Python dict). */
  readonly clickables: ReadonlyMap<string, Clickable>;
  readonly hasSearchBar: boolean;
};

/** The sub-pages reachable from an item page. */
export type SubPage = "Description" | "Features" | "Reviews";

/** Sub-page names as clickables (upstream `ACTION_TO_TEMPLATE`, which also lists an unreachable `attributes`). */
export const SUB_PAGES: readonly SubPage[] = ["Description", "Features", "Reviews"];

/** Products shown per results page (upstream `PRODUCT_WINDOW`). */
export const RESULTS_PER_PAGE = 10;

class PageBuilder {
  private readonly parts: string[] = [];
  readonly clickables = new Map<string, Clickable>();

  text(s: string): this {
    const part = textPart(s);
    if (part !== null) this.parts.push(part);
    return this;
  }

  button(label: string): this {
    this.text(label);
    this.clickables.set(label.toLowerCase(), { kind: "button" });
    return this;
  }

  build(hasSearchBar = false): RenderedPage {
    return { text: this.parts.join(" [SEP] "), clickables: this.clickables, hasSearchBar };
  }
}

function header(instruction: string): PageBuilder {
  return new PageBuilder().text("Instruction:").text(instruction).button("Back to Search");
}

/** The start page: `WebShop [SEP] Instruction: [SEP] <instruction> [SEP] Search`. */
export function renderSearchPage(instruction: string): RenderedPage {
  return new PageBuilder().text("WebShop").text("Instruction: ").text(instruction).button("Search").build(true);
}

/**
 * A results page. `< Prev` appears only after page 1; `Next >` always, even past the last hit
 * (upstream template). `shown` is the slice of hits for this page (may be empty).
 */
export function renderResultsPage(instruction: string, page: number, total: number, shown: readonly Product[]): RenderedPage {
  const b = header(instruction).text(`Page ${page} (Total results: ${total})`);
  if (page > 1) b.button("< Prev");
  b.button("Next >");
  const links: [string, Clickable][] = [];
  for (const p of shown) {
    b.text(p.asin).text(p.title).text(p.priceTag);
    links.push([p.asin.toLowerCase(), { kind: "product", asin: p.asin }]);
  }
  // Buttons are collected before product links, whatever their place on the page.
  for (const [k, v] of links) b.clickables.set(k, v);
  return b.build();
}

/** An item page: option groups with their values, title, price, rating, sub-page buttons, Buy Now. */
export function renderItemPage(instruction: string, product: Product): RenderedPage {
  const b = header(instruction).button("< Prev");
  for (const g of product.options) {
    b.text(g.name);
    for (const v of g.values) b.text(v);
  }
  b.text(product.title).text(`Price: ${product.priceTag}`).text(`Rating: ${product.rating}`);
  for (const s of SUB_PAGES) b.button(s);
  b.button("Buy Now");
  for (const g of product.options) for (const v of g.values) b.clickables.set(v, { kind: "option", group: g.name });
  return b.build();
}

/** A Description / Features / Reviews sub-page: header, `< Prev`, then the product text nodes. */
export function renderSubPage(instruction: string, product: Product, sub: SubPage): RenderedPage {
  const b = header(instruction).button("< Prev");
  if (sub === "Description") b.text(product.description);
  // The template prints each bullet after a space (`<p class="product-info"> {{bulletpoint}}</p>`),
  // so an empty bullet is a one-space text node: an empty part, as upstream shows it.
  else if (sub === "Features") for (const bullet of product.bulletPoints) b.text(` ${bullet}`);
  else for (const review of product.reviews) b.text(review);
  return b.build();
}

/**
 * The page after Buy Now. Upstream's done page also prints hidden purchase and target details;
 * the episode ends here and the agent never reads it, so only the thank-you line and the score
 * (Python float text) are rendered.
 */
export function renderDonePage(score: number): RenderedPage {
  return new PageBuilder().text("Thank you for shopping with us!").text("Your score (min 0.0, max 1.0)").text(pyFloatRepr(score)).build();
}
