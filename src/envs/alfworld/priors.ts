/**
 * Class priors for searching an ALFWorld room: how often an object class sits in a receptacle
 * class at the start of a game, learned from the initial states of training games (never from
 * the game being played). The expert ranks unexplored receptacles with them. A table learned
 * from the 3,553 real training games ships in `priors-table.ts`; generated games learn their own
 * with `learnPriors` over generated training games.
 */
import type { AlfGame } from "./game.ts";

/** Counts per object class and receptacle class (display-name classes: `apple`, `countertop`). */
export type AlfworldPriors = {
  /** objectClass -> receptacleClass -> [games where some object of the class is in such a receptacle, games where both occur]. */
  readonly contain: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>>;
  /** receptacleClass -> [openable instances, instances]. */
  readonly openable: Readonly<Record<string, readonly [number, number]>>;
};

/** The class of a display name: `drawer 3` -> `drawer`. */
export function classOf(name: string): string {
  const sp = name.lastIndexOf(" ");
  return sp < 0 ? name : name.slice(0, sp);
}

/** Learn priors from the initial states of `games` (use training games only). */
export function learnPriors(games: Iterable<AlfGame>): AlfworldPriors {
  const contain: Record<string, Record<string, [number, number]>> = {};
  const openable: Record<string, [number, number]> = {};
  for (const g of games) {
    const recClasses = new Set<string>();
    for (const r of g.receptacles) {
      const k = classOf(r.name);
      recClasses.add(k);
      const o = (openable[k] ??= [0, 0]);
      if (r.openable) o[0]++;
      o[1]++;
    }
    const hits = new Map<string, Set<string>>();
    for (const o of g.objects) {
      if (o.receptacles.length === 0) continue;
      const c = classOf(o.name);
      let set = hits.get(c);
      if (set === undefined) hits.set(c, (set = new Set()));
      for (const r of o.receptacles) set.add(classOf(g.receptacles[r]!.name));
    }
    for (const [c, set] of hits) {
      const row = (contain[c] ??= {});
      for (const k of recClasses) {
        const cell = (row[k] ??= [0, 0]);
        if (set.has(k)) cell[0]++;
        cell[1]++;
      }
    }
  }
  return { contain, openable };
}

/**
 * Smoothed probability that some object of `objectClass` is in some receptacle of
 * `receptacleClass` when both are in the room. Unknown pairs get a small floor, so an
 * unexplored receptacle is never ruled out.
 */
export function containProbability(p: AlfworldPriors, objectClass: string, receptacleClass: string): number {
  const cell = p.contain[objectClass]?.[receptacleClass];
  if (cell === undefined) return 0.01;
  return (cell[0] + 0.1) / (cell[1] + 1);
}

/** Share of receptacles of a class that are openable (0.5 when never seen). */
export function openableShare(p: AlfworldPriors, receptacleClass: string): number {
  const o = p.openable[receptacleClass];
  return o === undefined || o[1] === 0 ? 0.5 : o[0] / o[1];
}
