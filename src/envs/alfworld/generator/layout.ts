/**
 * Room layouts for generated ALFWorld games: a room kind, its receptacles (classes, instances,
 * openable or not) and which of them share a spot, drawn from the ALFRED catalogue's counts. A
 * layout is a pure function of (world seed, layout id, size), so training and seen-evaluation
 * games reuse the same rooms while unseen games use rooms no training game has.
 */
import { Rng, deriveSeed } from "../../../core/rng.ts";
import { ROOM_KINDS, type Catalog, type RoomKind } from "./catalog.ts";

/** One receptacle slot of a layout. */
export type LayoutReceptacle = {
  /** Class (`countertop`, `sinkbasin`). */
  readonly cls: string;
  readonly openable: boolean;
  /** Spot index; receptacles with the same spot share a location. */
  readonly spot: number;
};

/** A room layout. */
export type Layout = {
  readonly id: number;
  readonly kind: RoomKind;
  readonly receptacles: readonly LayoutReceptacle[];
};

/** Classes a room must have for the task types to be playable in it. */
const CORE: Readonly<Record<RoomKind, readonly string[]>> = {
  kitchen: ["countertop", "sinkbasin", "microwave", "fridge", "cabinet", "garbagecan"],
  livingroom: ["sofa", "coffeetable", "sidetable", "garbagecan"],
  bedroom: ["bed", "desk", "drawer", "garbagecan"],
  bathroom: ["countertop", "sinkbasin", "toilet", "garbagecan"],
};

/** Weighted choice over `[item, weight]` pairs (weights > 0). */
export function weighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of items) total += w;
  let x = rng.float() * total;
  for (const [item, w] of items) {
    x -= w;
    if (x < 0) return item;
  }
  return items[items.length - 1]![0];
}

/**
 * The layout with a given id.
 * @param sizes inclusive range of the number of receptacles; the layout draws its own size
 */
export function makeLayout(catalog: Catalog, worldSeed: number, id: number, sizes: readonly [number, number]): Layout {
  const rng = Rng.from(deriveSeed(worldSeed, "alfworld-layout", id, sizes[0], sizes[1]));
  const size = sizes[0] + rng.int(sizes[1] - sizes[0] + 1);
  const kind = weighted(rng, ROOM_KINDS.map((k) => [k, catalog.kinds[k].games] as const));
  const stats = catalog.kinds[kind];
  const classes = Object.entries(stats.receptacles).filter(([c]) => !c.includes("lamp"));
  const counts = new Map<string, number>();
  for (const c of CORE[kind]) if (counts.size < size && c in stats.receptacles) counts.set(c, 1);
  // Expected instances per room drive both which classes appear and how many of each.
  const weights = classes.map(([c, [, instances]]) => [c, instances / stats.games] as const);
  let total = [...counts.values()].reduce((a, b) => a + b, 0);
  let guard = 0;
  while (total < size && guard++ < 10_000) {
    const c = weighted(rng, weights);
    const cell = stats.receptacles[c]!;
    const maxInstances = Math.max(1, Math.floor((cell[1] / cell[0]) * 1.5));
    if ((counts.get(c) ?? 0) >= maxInstances) continue;
    counts.set(c, (counts.get(c) ?? 0) + 1);
    total++;
  }
  const receptacles: { cls: string; openable: boolean; spot: number }[] = [];
  for (const [cls, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [, instances, openable] = stats.receptacles[cls]!;
    for (let i = 0; i < n; i++) receptacles.push({ cls, openable: rng.float() < openable / instances, spot: receptacles.length });
  }
  // Shared spots (a coffee machine on a counter top, a sink basin in a sink cabinet): each pair
  // the catalogue saw shares one spot with the frequency it was seen.
  for (const [pair, games] of Object.entries(stats.shared)) {
    const [a, b] = pair.split(" ") as [string, string];
    if (!(rng.float() < games / stats.games)) continue;
    const ra = receptacles.find((r) => r.cls === a && r.spot === receptacles.indexOf(r));
    const rb = receptacles.find((r) => r.cls === b && r.spot === receptacles.indexOf(r));
    if (ra !== undefined && rb !== undefined) rb.spot = ra.spot;
  }
  return { id, kind, receptacles };
}
