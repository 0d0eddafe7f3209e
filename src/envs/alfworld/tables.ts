/**
 * Per-game lookup tables the engine needs on every step: interned type ids, receptacles per
 * location, the receptacle x object compatibility matrix and the command strings that never
 * change. Built once per `AlfGame` and cached, so a reset costs a few array copies.
 */
import type { AlfGame } from "./game.ts";

/** Static, precomputed facts about one game. */
export type GameTables = {
  readonly game: AlfGame;
  /** Type name -> small integer; shared by rtypes and otypes. */
  readonly typeIds: Map<string, number>;
  readonly recType: Int32Array;
  readonly recLoc: Int32Array;
  readonly recOpenable: Uint8Array;
  readonly objType: Int32Array;
  readonly objProps: Uint8Array;
  /** Receptacle indices at each location, ascending (= sorted by id). */
  readonly recsAt: readonly (readonly number[])[];
  /** canHold[r * nObj + o]: receptacle r's type can contain object o's type. */
  readonly canHold: Uint8Array;
  /** Interned `"<rtype> <otype>"` pairs, as `rt * typeCount + ot`. */
  readonly canContainIds: ReadonlySet<number>;
  readonly objectsByType: ReadonlyMap<number, readonly number[]>;
  readonly receptaclesByType: ReadonlyMap<number, readonly number[]>;
  /** Receptacle kinds for heat/cool/clean. */
  readonly isMicrowave: Uint8Array;
  readonly isFridge: Uint8Array;
  readonly isSink: Uint8Array;
  /** Object is a knife or butter knife (slicing tool). */
  readonly isKnife: Uint8Array;
  readonly goCmd: readonly string[];
  /** The `go to` commands sorted (a constant block of every admissible list). */
  readonly goSorted: readonly string[];
  readonly recByName: ReadonlyMap<string, number>;
  readonly objByName: ReadonlyMap<string, number>;
  readonly openCmd: readonly string[];
  readonly closeCmd: readonly string[];
  readonly examineRecCmd: readonly string[];
  readonly examineObjCmd: readonly string[];
  readonly useCmd: readonly string[];
};

const cache = new WeakMap<AlfGame, GameTables>();

/** The tables of a game (built on first use, then cached). */
export function tablesOf(game: AlfGame): GameTables {
  let t = cache.get(game);
  if (t === undefined) {
    t = buildTables(game);
    cache.set(game, t);
  }
  return t;
}

/** Intern a type name into a table's id space (adds unseen names). */
export function internType(typeIds: Map<string, number>, name: string): number {
  let id = typeIds.get(name);
  if (id === undefined) {
    id = typeIds.size;
    typeIds.set(name, id);
  }
  return id;
}

function buildTables(game: AlfGame): GameTables {
  const typeIds = new Map<string, number>();
  const R = game.receptacles.length, O = game.objects.length;
  const recType = new Int32Array(R), recLoc = new Int32Array(R), recOpenable = new Uint8Array(R);
  const isMicrowave = new Uint8Array(R), isFridge = new Uint8Array(R), isSink = new Uint8Array(R);
  const recsAt: number[][] = Array.from({ length: game.locationCount }, () => []);
  const receptaclesByType = new Map<number, number[]>();
  game.receptacles.forEach((r, i) => {
    recType[i] = internType(typeIds, r.type);
    recLoc[i] = r.location;
    recOpenable[i] = r.openable ? 1 : 0;
    isMicrowave[i] = r.type === "microwavetype" ? 1 : 0;
    isFridge[i] = r.type === "fridgetype" ? 1 : 0;
    isSink[i] = r.type === "sinktype" || r.type === "sinkbasintype" ? 1 : 0;
    recsAt[r.location]!.push(i);
    push(receptaclesByType, recType[i]!, i);
  });
  const objType = new Int32Array(O), objProps = new Uint8Array(O), isKnife = new Uint8Array(O);
  const objectsByType = new Map<number, number[]>();
  game.objects.forEach((o, i) => {
    objType[i] = internType(typeIds, o.type);
    objProps[i] = o.props;
    isKnife[i] = o.type === "knifetype" || o.type === "butterknifetype" ? 1 : 0;
    push(objectsByType, objType[i]!, i);
  });
  const pairs: [number, number][] = [];
  for (const pair of game.canContain) {
    const sp = pair.indexOf(" ");
    pairs.push([internType(typeIds, pair.slice(0, sp)), internType(typeIds, pair.slice(sp + 1))]);
  }
  // Type ids are final only now; the pair keys use the final count (goal constants add none:
  // an unknown constant type can match nothing, see goal.ts).
  const K = typeIds.size;
  const canContainIds = new Set(pairs.map(([rt, ot]) => rt * K + ot));
  const canHold = new Uint8Array(R * O);
  for (let r = 0; r < R; r++) {
    for (let o = 0; o < O; o++) canHold[r * O + o] = canContainIds.has(recType[r]! * K + objType[o]!) ? 1 : 0;
  }
  const rn = game.receptacles.map((r) => r.name), on = game.objects.map((o) => o.name);
  return {
    game, typeIds, recType, recLoc, recOpenable, objType, objProps, recsAt, canHold, canContainIds,
    objectsByType, receptaclesByType, isMicrowave, isFridge, isSink, isKnife,
    goCmd: rn.map((n) => `go to ${n}`),
    goSorted: [...new Set(rn.map((n) => `go to ${n}`))].sort(),
    recByName: new Map(rn.map((n, i) => [n, i])),
    objByName: new Map(on.map((n, i) => [n, i])),
    openCmd: rn.map((n) => `open ${n}`),
    closeCmd: rn.map((n) => `close ${n}`),
    examineRecCmd: rn.map((n) => `examine ${n}`),
    examineObjCmd: on.map((n) => `examine ${n}`),
    useCmd: on.map((n) => `use ${n}`),
  };
}

function push(m: Map<number, number[]>, k: number, v: number): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, [v]);
  else l.push(v);
}
