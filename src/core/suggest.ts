/**
 * "Did you mean" for a mistyped name (an option, a command, a preset): the closest candidate by
 * edit distance, when it is close enough to be the likely intent.
 */

/**
 * The edit distance of two strings: insertions, deletions, substitutions and swaps of two
 * neighbours ("grop" -> "grpo") cost 1 each (optimal string alignment).
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!, up = d[i - 1]!;
      row[j] = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `typed`, or undefined when none is within a third of its length
 * (at least 1, at most 3 edits), or when `typed` is a prefix of exactly one candidate.
 * @example closest("quik", ["quick", "quiet"]) // "quick"
 */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const low = typed.toLowerCase();
  const prefixed = list.filter((c) => low.length >= 2 && c.toLowerCase().startsWith(low));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined, bestD = Infinity;
  for (const c of list) {
    const d = editDistance(low, c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return bestD <= Math.min(3, Math.max(1, Math.floor(typed.length / 3))) ? best : undefined;
}

/** " (did you mean X?)" for the closest candidate, or "" when none is close. */
export function didYouMean(typed: string, candidates: Iterable<string>, render: (c: string) => string = (c) => c): string {
  const hit = closest(typed, candidates);
  return hit === undefined ? "" : ` (did you mean ${render(hit)}?)`;
}
