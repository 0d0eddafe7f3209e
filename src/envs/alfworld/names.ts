/**
 * Display names of ALFWorld entities (exact; ALFWorld's `Demangler`,
 * `alfworld/agents/utils/misc.py`): ids are sorted by code
 * point, grouped by base name (the text before the first `_bar_`, plus `basin` when the id
 * contains `basin` anywhere), and numbered from the top of each group's pool, so the first id in
 * sort order gets the highest number. Ids without `_bar_` keep their text.
 */

/** The base (class) name of an id: `sink_bar_..._bar_sinkbasin` -> `sinkbasin`, `apple_bar_...` -> `apple`. */
export function baseName(id: string): string | undefined {
  const cut = id.indexOf("_bar_");
  if (cut < 0) return undefined;
  const base = id.slice(0, cut);
  return id.includes("basin") ? base + "basin" : base;
}

/**
 * Display names for a set of entity ids (duplicates are ignored).
 * @returns id -> display name (`apple 2`), or the id itself for ids without `_bar_`
 */
export function demangle(ids: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const count = new Map<string, number>();
  for (const id of sorted) {
    const base = baseName(id);
    if (base !== undefined) count.set(base, (count.get(base) ?? 0) + 1);
  }
  const out = new Map<string, string>();
  for (const id of sorted) {
    const base = baseName(id);
    if (base === undefined) {
      out.set(id, id);
      continue;
    }
    const n = count.get(base)!;
    count.set(base, n - 1);
    out.set(id, `${base} ${n}`);
  }
  return out;
}
