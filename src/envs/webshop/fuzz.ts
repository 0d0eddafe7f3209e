/**
 * `token_set_ratio` with thefuzz's default processing, as WebShop's reward calls it
 * (`thefuzz.fuzz.token_set_ratio`, which delegates to RapidFuzz): drop characters U+0080–U+00FF,
 * turn every non-alphanumeric character into a space, lower-case, trim; compare token sets with
 * the Indel (LCS) similarity; round half to even to an integer in 0..100.
 */

/** thefuzz's `full_process(s, force_ascii=True)`. */
export function fuzzProcess(s: string): string {
  return s
    .replace(/[\u0080-\u00ff]/g, "")
    .replace(/[^\p{L}\p{N}]/gu, " ")
    .toLowerCase()
    .trim();
}

/** Length of the longest common subsequence (two-row DP over UTF-16 units). */
function lcsLength(a: string, b: string): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint16Array(b.length + 1);
  let cur = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      cur[j] = ca === b.charCodeAt(j - 1) ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** Normalised Indel similarity in percent from a distance and a length sum (RapidFuzz `norm_distance`). */
function normSimilarity(dist: number, lensum: number): number {
  return lensum > 0 ? 100 - (100 * dist) / lensum : 100;
}

/** Python's `round()` on a float: half to even. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Unrounded token-set ratio of two already-processed strings (RapidFuzz `_token_set_ratio`). */
export function tokenSetRatioRaw(s1: string, s2: string): number {
  const a = new Set(s1.split(/\s+/).filter((t) => t !== ""));
  const b = new Set(s2.split(/\s+/).filter((t) => t !== ""));
  if (a.size === 0 || b.size === 0) return 0;
  const inter = [...a].filter((t) => b.has(t)).sort();
  const diffAb = [...a].filter((t) => !b.has(t)).sort();
  const diffBa = [...b].filter((t) => !a.has(t)).sort();
  if (inter.length > 0 && (diffAb.length === 0 || diffBa.length === 0)) return 100;
  const ab = diffAb.join(" ");
  const ba = diffBa.join(" ");
  const sectLen = inter.join(" ").length;
  const sep = sectLen > 0 ? 1 : 0;
  const sectAbLen = sectLen + sep + ab.length;
  const sectBaLen = sectLen + sep + ba.length;
  const dist = ab.length + ba.length - 2 * lcsLength(ab, ba);
  const result = normSimilarity(dist, sectAbLen + sectBaLen);
  if (sectLen === 0) return result;
  // sect vs sect+diff: only the appended diff differs, so the distance is its length.
  const sectAb = normSimilarity(sep + ab.length, sectLen + sectAbLen);
  const sectBa = normSimilarity(sep + ba.length, sectLen + sectBaLen);
  return Math.max(result, sectAb, sectBa);
}

/**
 * thefuzz `fuzz.token_set_ratio(s1, s2)`: an integer 0..100.
 * @example tokenSetRatio("Pack of 12", "12 pack") === 100
 */
export function tokenSetRatio(s1: string, s2: string): number {
  return roundHalfEven(tokenSetRatioRaw(fuzzProcess(s1), fuzzProcess(s2)));
}
