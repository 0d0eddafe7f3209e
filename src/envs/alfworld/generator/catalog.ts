/**
 * The ALFRED household catalogue the generator draws from: room kinds (kitchen, living room,
 * bedroom, bathroom, by ALFRED's floor-plan numbering), which receptacle and object classes
 * each kind has and how many, object properties, where objects start, which receptacle classes
 * may hold which object classes, which receptacles share a spot, and the (object, parent)
 * pairs each task type uses. `learnCatalog` counts these from real training games; the table
 * it produced from the 3,553 shipped games is `catalog-table.ts`, so the generator itself never
 * needs the data.
 */
import type { AlfGame } from "../game.ts";
import { classOf } from "../priors.ts";
import type { TaskType } from "../tasks.ts";

/** ALFRED room kinds. */
export const ROOM_KINDS = ["kitchen", "livingroom", "bedroom", "bathroom"] as const;

/** One room kind. */
export type RoomKind = (typeof ROOM_KINDS)[number];

/** The room kind of an ALFRED floor plan number (1-30 kitchens, 201-230 living rooms, 301-330 bedrooms, 401-430 bathrooms). */
export function kindOfScene(scene: number): RoomKind {
  if (scene >= 400) return "bathroom";
  if (scene >= 300) return "bedroom";
  if (scene >= 200) return "livingroom";
  return "kitchen";
}

/** Counts for one room kind. */
export type KindStats = {
  readonly games: number;
  /** Receptacle class -> [games having it, instances, openable instances]. */
  readonly receptacles: Readonly<Record<string, readonly [number, number, number]>>;
  /** Object class -> [games having it, instances] (objects that start inside a receptacle). */
  readonly objects: Readonly<Record<string, readonly [number, number]>>;
  /** `"a b"` receptacle classes (a < b) -> games where an a and a b share a location. */
  readonly shared: Readonly<Record<string, number>>;
};

/** The catalogue. */
export type Catalog = {
  readonly kinds: Readonly<Record<RoomKind, KindStats>>;
  /** Object class -> `PROP` bits (as in the games; identical for every instance of a class). */
  readonly props: Readonly<Record<string, number>>;
  /** Object class -> receptacle class -> initial placements seen. */
  readonly placement: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Receptacle class -> object classes it may hold (`canContain`). */
  readonly canContain: Readonly<Record<string, readonly string[]>>;
  /** Task type -> `"object parent kind"` -> games. */
  readonly tasks: Readonly<Record<TaskType, Readonly<Record<string, number>>>>;
};

/** A training game with the directory fields the catalogue needs. */
export type CatalogSource = { readonly game: AlfGame; readonly scene: number; readonly object: string; readonly parent: string };

function stripType(t: string): string {
  return t.endsWith("type") ? t.slice(0, -4) : t;
}

/** Count a catalogue from training games. */
export function learnCatalog(sources: Iterable<CatalogSource>): Catalog {
  const kinds = Object.fromEntries(ROOM_KINDS.map((k) => [k, { games: 0, receptacles: {}, objects: {}, shared: {} }])) as unknown as
    Record<RoomKind, { games: number; receptacles: Record<string, [number, number, number]>; objects: Record<string, [number, number]>; shared: Record<string, number> }>;
  const props: Record<string, number> = {};
  const placement: Record<string, Record<string, number>> = {};
  const canContain: Record<string, Set<string>> = {};
  const tasks = {} as Record<TaskType, Record<string, number>>;
  for (const { game, scene, object, parent } of sources) {
    const kind = kindOfScene(scene);
    const ks = kinds[kind];
    ks.games++;
    const seenR = new Set<string>();
    const byLoc = new Map<number, Set<string>>();
    for (const r of game.receptacles) {
      const c = classOf(r.name);
      const cell = (ks.receptacles[c] ??= [0, 0, 0]);
      if (!seenR.has(c)) { cell[0]++; seenR.add(c); }
      cell[1]++;
      if (r.openable) cell[2]++;
      let s = byLoc.get(r.location);
      if (s === undefined) byLoc.set(r.location, (s = new Set()));
      s.add(c);
    }
    const pairs = new Set<string>();
    for (const s of byLoc.values()) {
      const cs = [...s].sort();
      for (let i = 0; i < cs.length; i++) for (let j = i + 1; j < cs.length; j++) pairs.add(`${cs[i]} ${cs[j]}`);
    }
    for (const p of pairs) ks.shared[p] = (ks.shared[p] ?? 0) + 1;
    const seenO = new Set<string>();
    for (const o of game.objects) {
      if (o.receptacles.length === 0) continue;
      const c = classOf(o.name);
      props[c] ??= o.props;
      const cell = (ks.objects[c] ??= [0, 0]);
      if (!seenO.has(c)) { cell[0]++; seenO.add(c); }
      cell[1]++;
      const row = (placement[c] ??= {});
      for (const r of o.receptacles) { const rc = classOf(game.receptacles[r]!.name); row[rc] = (row[rc] ?? 0) + 1; }
    }
    for (const pair of game.canContain) {
      const [rt, ot] = pair.split(" ") as [string, string];
      (canContain[stripType(rt)] ??= new Set()).add(stripType(ot));
    }
    const row = (tasks[game.taskType] ??= {});
    const key = `${object.toLowerCase()} ${parent.toLowerCase()} ${kind}`;
    row[key] = (row[key] ?? 0) + 1;
  }
  return {
    kinds,
    props,
    placement,
    canContain: Object.fromEntries(Object.entries(canContain).map(([k, v]) => [k, [...v].sort()])),
    tasks,
  };
}
