/**
 * `token_set_ratio` exactly as WebShop's reward gets it: thefuzz 0.19.0, the version WebShop and
 * verl-agent pin, installed without python-Levenshtein, so its ratio is Python's
 * `difflib.SequenceMatcher(None, a, b).ratio()` (not the Indel ratio of RapidFuzz, which thefuzz
 * uses from 0.20 on). Processing is thefuzz's `full_process(s, force_ascii=True)`: characters
 * U+0080–U+00FF dropped, every `(?u)\W` character turned into a space (so `_` is kept as a word
 * character), lower-cased, trimmed. Strings are compared as sequences of code points, as Python does.
 */

/** thefuzz's `full_process(s, force_ascii=True)`. */
export function fuzzProcess(s: string): string {
  return s
    .replace(/[\u0080-\u00ff]/g, "")
    .replace(/[^\p{L}\p{N}_]/gu, " ")
    .toLowerCase()
    .replace(/^ +| +$/g, "");
}

/** One matching block of `get_matching_blocks`: a[i, i+size) equals b[j, j+size). */
type Block = readonly [i: number, j: number, size: number];

/**
 * difflib's `SequenceMatcher` over code-point arrays, with no junk function and `autojunk=True`:
 * in a second sequence of at least 200 items, an item occurring more than `len/100 + 1` times
 * is "popular" and never starts a match (it may still extend one, as in difflib).
 */
class SequenceMatcher {
  private readonly b2j = new Map<number, number[]>();
  private readonly a: readonly number[];
  private readonly b: readonly number[];

  constructor(a: readonly number[], b: readonly number[]) {
    this.a = a;
    this.b = b;
    b.forEach((c, j) => {
      const list = this.b2j.get(c);
      if (list === undefined) this.b2j.set(c, [j]);
      else list.push(j);
    });
    if (b.length >= 200) {
      const limit = Math.floor(b.length / 100) + 1;
      for (const [c, list] of [...this.b2j]) if (list.length > limit) this.b2j.delete(c);
    }
  }

  /** difflib `find_longest_match(alo, ahi, blo, bhi)`: the earliest longest block, then extended. */
  private longest(alo: number, ahi: number, blo: number, bhi: number): Block {
    const { a, b } = this;
    let bi = alo, bj = blo, size = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.b2j.get(a[i]!) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > size) {
          bi = i - k + 1;
          bj = j - k + 1;
          size = k;
        }
      }
      j2len = next;
    }
    // No junk function, so difflib's junk-extension passes do nothing; popular items extend here.
    while (bi > alo && bj > blo && a[bi - 1] === b[bj - 1]) {
      bi--;
      bj--;
      size++;
    }
    while (bi + size < ahi && bj + size < bhi && a[bi + size] === b[bj + size]) size++;
    return [bi, bj, size];
  }

  /** Total size of difflib's matching blocks (the recursion of `get_matching_blocks`). */
  matches(): number {
    const queue: [number, number, number, number][] = [[0, this.a.length, 0, this.b.length]];
    let total = 0;
    while (queue.length > 0) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const [i, j, k] = this.longest(alo, ahi, blo, bhi);
      if (k === 0) continue;
      total += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
    return total;
  }
}

/** Python's `round()` on a float: half to even. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/** thefuzz 0.19.0 `fuzz.ratio(s1, s2)` on already-processed strings: equal → 100, one empty → 0. */
export function ratio(s1: string, s2: string): number {
  if (s1 === s2) return 100;
  if (s1 === "" || s2 === "") return 0;
  const a = codePoints(s1), b = codePoints(s2);
  const m = new SequenceMatcher(a, b).matches();
  return roundHalfEven(100 * ((2 * m) / (a.length + b.length)));
}

function sortedJoin(tokens: Iterable<string>): string {
  // Python sorts str by code point; JS's default sort compares UTF-16 units, which differs only
  // above U+FFFF, so compare code points explicitly.
  return [...tokens].sort((x, y) => {
    const a = codePoints(x), b = codePoints(y);
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  }).join(" ");
}

/**
 * thefuzz 0.19.0 `fuzz.token_set_ratio(s1, s2)`: an integer 0..100, the best of the three
 * ratios between "sorted intersection", "intersection + rest of s1" and "intersection + rest of s2".
 * @example tokenSetRatio("Pack of 12", "12 pack") === 100
 */
export function tokenSetRatio(s1: string, s2: string): number {
  const p1 = fuzzProcess(s1), p2 = fuzzProcess(s2);
  if (p1 === "" || p2 === "") return 0;
  const t1 = new Set(p1.split(/ +/)), t2 = new Set(p2.split(/ +/));
  const sect = sortedJoin([...t1].filter((t) => t2.has(t)));
  const c12 = `${sect} ${sortedJoin([...t1].filter((t) => !t2.has(t)))}`.trim();
  const c21 = `${sect} ${sortedJoin([...t2].filter((t) => !t1.has(t)))}`.trim();
  return Math.max(ratio(sect, c12), ratio(sect, c21), ratio(c12, c21));
}
