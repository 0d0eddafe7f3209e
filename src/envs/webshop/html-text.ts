/**
 * Flattens a real WebShop HTML page the way the benchmark's text mode does
 * (`web_agent_text_env.py: convert_html_to_text(simple=True)` over BeautifulSoup's
 * `html.parser` tree) and lists its clickables as `get_available_actions` does. The engine never
 * needs it (pages are rendered straight to text by `pages.ts`); it exists so the fidelity tests
 * can compare that renderer with the benchmark's own HTML, and so users can flatten pages
 * saved from a WebShop server. A small tolerant tokenizer, not a general HTML5 parser.
 */
import { pyStrip, textPart } from "./py-text.ts";

/** A flattened page: the `[SEP]` text, the clickable keys in `get_available_actions` order, and the search box flag. */
export type FlattenedPage = { readonly text: string; readonly clickables: readonly string[]; readonly hasSearchBar: boolean };

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
const RAW_TEXT = new Set(["script", "style"]);
const INVISIBLE_PARENT = new Set(["style", "script", "head", "title", "meta", "[document]"]);
const PRESERVE_WS = new Set(["pre", "textarea"]);
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Decode the character references html.parser converts (named basics, decimal and hex). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (m, body: string) => {
    if (body.startsWith("#x") || body.startsWith("#X")) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith("#")) return String.fromCodePoint(parseInt(body.slice(1), 10));
    return NAMED[body] ?? m;
  });
}

type Element = { name: string; attrs: Map<string, string>; text: string };

function parseAttrs(src: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const re = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
  for (const m of src.matchAll(re)) {
    const name = m[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return attrs;
}

/** End of a start tag beginning at `i` (index of '>'), skipping quoted attribute values. */
function tagEnd(html: string, i: number): number {
  let quote = "";
  for (let j = i; j < html.length; j++) {
    const c = html[j]!;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ">") return j;
  }
  return html.length;
}

/**
 * Flatten one HTML page: text nodes outside `style`/`script`/`head`/`title`/`meta` and
 * comments, BeautifulSoup's whitespace rule, each stripped, joined by `" [SEP] "`; clickables
 * are the lower-cased text of `.btn` then `.product-link` elements, then every radio's `value`.
 */
export function flattenHtml(html: string): FlattenedPage {
  const stack: Element[] = [];
  const all: Element[] = [];
  const parts: string[] = [];
  const radios: string[] = [];
  let hasSearchBar = false;

  const emitText = (raw: string, decode: boolean): void => {
    if (raw === "") return;
    const data = decode ? decodeEntities(raw) : raw;
    for (const el of stack) el.text += data;
    const parent = stack.length > 0 ? stack[stack.length - 1]!.name : "[document]";
    if (INVISIBLE_PARENT.has(parent)) return;
    if (stack.some((e) => PRESERVE_WS.has(e.name))) {
      // Inside <pre>/<textarea> BeautifulSoup keeps whitespace as is; only a bare "\n" is filtered.
      if (data !== "\n") parts.push(pyStrip(data));
      return;
    }
    const part = textPart(data);
    if (part !== null) parts.push(part);
  };

  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      emitText(html.slice(i), true);
      break;
    }
    if (lt > i) emitText(html.slice(i, lt), true);
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith("<!", lt) || html.startsWith("<?", lt)) {
      const end = html.indexOf(">", lt);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    const close = html[lt + 1] === "/";
    const nameMatch = /^[a-zA-Z][^\s/>]*/.exec(html.slice(lt + (close ? 2 : 1), lt + 64));
    if (!nameMatch) {
      emitText("<", false);
      i = lt + 1;
      continue;
    }
    const name = nameMatch[0].toLowerCase();
    const end = tagEnd(html, lt);
    if (close) {
      const at = stack.map((e) => e.name).lastIndexOf(name);
      if (at >= 0) stack.length = at;
      i = end + 1;
      continue;
    }
    const attrSrc = html.slice(lt + 1 + nameMatch[0].length, end);
    const el: Element = { name, attrs: parseAttrs(attrSrc), text: "" };
    all.push(el);
    if (el.attrs.get("id") === "search_input") hasSearchBar = true;
    if (name === "input" && (el.attrs.get("type") ?? "").toLowerCase() === "radio") radios.push(el.attrs.get("value") ?? "None");
    i = end + 1;
    if (RAW_TEXT.has(name)) {
      const closeAt = html.toLowerCase().indexOf(`</${name}`, i);
      const stop = closeAt < 0 ? html.length : closeAt;
      stack.push(el);
      emitText(html.slice(i, stop), false);
      stack.pop();
      i = closeAt < 0 ? html.length : tagEnd(html, closeAt) + 1;
      continue;
    }
    if (!VOID.has(name) && !attrSrc.trimEnd().endsWith("/")) stack.push(el);
  }

  const hasClass = (e: Element, c: string): boolean => (e.attrs.get("class") ?? "").split(/\s+/).includes(c);
  const keys: string[] = [];
  const add = (k: string): void => {
    if (!keys.includes(k)) keys.push(k);
  };
  for (const e of all) if (hasClass(e, "btn")) add(e.text.toLowerCase());
  for (const e of all) if (hasClass(e, "product-link")) add(e.text.toLowerCase());
  for (const v of radios) add(v);
  return { text: parts.join(" [SEP] "), clickables: keys, hasSearchBar };
}
