/**
 * Goal formulas: the `(:goal ...)` of a game as data (`Formula`), and a compiler that turns one
 * into a fast test over the engine's state. Supports `and`, `or`, `not`, `exists` with typed
 * variables, `=` and the Alfred predicates; the shipped goals use only these. Nested `exists`
 * are flattened and every conjunct is tested as soon as its variables are bound, with
 * `objectType ?o T` / `receptacleType ?r T` narrowing a variable's candidates, so a goal test
 * touches a handful of entities rather than every combination.
 */
import { DataError } from "../../core/errors.ts";
import type { SExpr } from "./sexpr.ts";
import { PROP, STATE } from "./flags.ts";
import type { GameTables } from "./tables.ts";

/** A goal formula. Atom arguments are `?var` names or constant ids (lower-case). */
export type Formula =
  | { readonly op: "and" | "or"; readonly args: readonly Formula[] }
  | { readonly op: "not"; readonly arg: Formula }
  | { readonly op: "exists"; readonly vars: ReadonlyArray<{ readonly name: string; readonly type: string }>; readonly body: Formula }
  | { readonly op: "atom"; readonly pred: string; readonly args: readonly string[] };

/** Read a goal expression (`=` is an atom with pred `=`). */
export function parseFormula(e: SExpr, where: string): Formula {
  if (typeof e === "string" || e.length === 0) throw new DataError(`${where}: malformed goal expression ${JSON.stringify(e)}`);
  const head = e[0];
  if (typeof head !== "string") throw new DataError(`${where}: malformed goal expression`);
  if (head === "and" || head === "or") return { op: head, args: e.slice(1).map((x) => parseFormula(x, where)) };
  if (head === "not") {
    if (e.length !== 2) throw new DataError(`${where}: (not ...) takes one expression`);
    return { op: "not", arg: parseFormula(e[1]!, where) };
  }
  if (head === "exists") {
    const vars = e[1], body = e[2];
    if (!Array.isArray(vars) || body === undefined || e.length !== 3) throw new DataError(`${where}: malformed (exists ...)`);
    const out: { name: string; type: string }[] = [];
    let pending: string[] = [];
    for (let i = 0; i < vars.length; i++) {
      const v = vars[i];
      if (typeof v !== "string") throw new DataError(`${where}: malformed variable list in (exists ...)`);
      if (v === "-") {
        const t = vars[i + 1];
        if (typeof t !== "string") throw new DataError(`${where}: '-' without a type in (exists ...)`);
        for (const name of pending) out.push({ name, type: t.replace(/,$/, "") });
        pending = [];
        i++;
      } else {
        pending.push(v.replace(/,$/, ""));
      }
    }
    if (pending.length > 0) throw new DataError(`${where}: untyped variable in (exists ...)`);
    return { op: "exists", vars: out, body: parseFormula(body, where) };
  }
  if (head === "forall" || head === "imply" || head === "when") throw new DataError(`${where}: goal construct '${head}' is not supported`);
  if (e.some((x) => typeof x !== "string")) throw new DataError(`${where}: malformed atom in the goal`);
  return { op: "atom", pred: head, args: e.slice(1) as string[] };
}

/** The dynamic part of the world a goal reads. */
export interface WorldState {
  readonly agentLoc: number;
  /** Held object index, or -1. */
  readonly held: number;
  readonly opened: Uint8Array;
  /** `STATE` bits per object. */
  readonly objState: Uint8Array;
  /** Receptacles holding each object. */
  readonly recsOf: readonly (readonly number[])[];
  /** Locations of each object. */
  readonly locsOf: readonly (readonly number[])[];
  /** Receptacle-objects each object is inside. */
  readonly insideOf: readonly (readonly number[])[];
}

/** A compiled goal: true when the goal holds in `s`. */
export type GoalTest = (s: WorldState) => boolean;

type Kind = "object" | "receptacle" | "location" | "agent" | "type";
type Arg = { kind: Kind; slot: number } | { kind: Kind; value: number };
type Test = (s: WorldState, env: Int32Array) => boolean;

const KIND_OF_TYPE: Readonly<Record<string, Kind>> = {
  object: "object", receptacle: "receptacle", location: "location", agent: "agent", otype: "type", rtype: "type",
};

const SIGNATURES: Readonly<Record<string, readonly Kind[]>> = {
  inreceptacle: ["object", "receptacle"], objecttype: ["object", "type"], receptacletype: ["receptacle", "type"],
  atlocation: ["agent", "location"], receptacleatlocation: ["receptacle", "location"], objectatlocation: ["object", "location"],
  holds: ["agent", "object"], holdsany: ["agent"], opened: ["receptacle"], openable: ["receptacle"],
  cancontain: ["type", "type"], inreceptacleobject: ["object", "object"],
  pickupable: ["object"], heatable: ["object"], coolable: ["object"], cleanable: ["object"], toggleable: ["object"],
  sliceable: ["object"], isreceptacleobject: ["object"],
  ishot: ["object"], iscool: ["object"], isclean: ["object"], issliced: ["object"], istoggled: ["object"], ison: ["object"],
};

const PROP_BIT: Readonly<Record<string, number>> = {
  pickupable: PROP.pickupable, heatable: PROP.heatable, coolable: PROP.coolable, cleanable: PROP.cleanable,
  toggleable: PROP.toggleable, sliceable: PROP.sliceable, isreceptacleobject: PROP.receptacleObject,
};
const STATE_BIT: Readonly<Record<string, number>> = {
  ishot: STATE.hot, iscool: STATE.cool, isclean: STATE.clean, issliced: STATE.sliced, istoggled: STATE.toggled, ison: STATE.on,
};

/**
 * Compile a formula for one game.
 * @throws DataError for unknown predicates, unknown constants or kind mismatches
 */
export function compileGoal(f: Formula, t: GameTables, where: string): GoalTest {
  const scope = new Map<string, { slot: number; kind: Kind }>();
  let slots = 0;
  const g = t.game;
  const objIndex = new Map(g.objects.map((o, i) => [o.id, i]));
  const recIndex = new Map(g.receptacles.map((r, i) => [r.id, i]));

  const resolve = (a: string): Arg => {
    if (a.startsWith("?")) {
      const v = scope.get(a);
      if (v === undefined) throw new DataError(`${where}: unbound goal variable ${a}`);
      return { kind: v.kind, slot: v.slot };
    }
    const o = objIndex.get(a);
    if (o !== undefined) return { kind: "object", value: o };
    const r = recIndex.get(a);
    if (r !== undefined) return { kind: "receptacle", value: r };
    if (a.startsWith("agent")) return { kind: "agent", value: 0 };
    if (/type$/.test(a)) return { kind: "type", value: t.typeIds.get(a) ?? -1 };
    throw new DataError(`${where}: unknown constant '${a}' in the goal`);
  };

  const atom = (pred: string, rawArgs: readonly string[]): Test => {
    if (pred === "=") {
      if (rawArgs.length !== 2) throw new DataError(`${where}: (= ...) takes two arguments`);
      const [x, y] = rawArgs.map(resolve) as [Arg, Arg];
      return (_s, env) => val(x, env) === val(y, env);
    }
    const sig = SIGNATURES[pred];
    if (sig === undefined) throw new DataError(`${where}: unknown predicate '${pred}' in the goal`);
    if (sig.length !== rawArgs.length) throw new DataError(`${where}: (${pred} ...) expects ${sig.length} arguments`);
    const args = rawArgs.map(resolve);
    args.forEach((a, i) => {
      if (a.kind !== sig[i]) throw new DataError(`${where}: argument ${i + 1} of (${pred} ...) must be a ${sig[i]}, got a ${a.kind}`);
    });
    const [x, y] = args as [Arg, Arg];
    if (pred in PROP_BIT) { const bit = PROP_BIT[pred]!; return (_s, env) => (t.objProps[val(x, env)]! & bit) !== 0; }
    if (pred in STATE_BIT) { const bit = STATE_BIT[pred]!; return (s, env) => (s.objState[val(x, env)]! & bit) !== 0; }
    switch (pred) {
      case "inreceptacle": return (s, env) => s.recsOf[val(x, env)]!.includes(val(y, env));
      case "objecttype": return (_s, env) => t.objType[val(x, env)] === val(y, env);
      case "receptacletype": return (_s, env) => t.recType[val(x, env)] === val(y, env);
      case "atlocation": return (s, env) => s.agentLoc === val(y, env);
      case "receptacleatlocation": return (_s, env) => t.recLoc[val(x, env)] === val(y, env);
      case "objectatlocation": return (s, env) => s.locsOf[val(x, env)]!.includes(val(y, env));
      case "holds": return (s, env) => s.held >= 0 && s.held === val(y, env);
      case "holdsany": return (s) => s.held >= 0;
      case "opened": return (s, env) => s.opened[val(x, env)] === 1;
      case "openable": return (_s, env) => t.recOpenable[val(x, env)] === 1;
      case "cancontain": return (_s, env) => t.canContainIds.has(val(x, env) * t.typeIds.size + val(y, env));
      default: return (s, env) => s.insideOf[val(x, env)]!.includes(val(y, env));
    }
  };

  const domainOf = (kind: Kind): readonly number[] => {
    switch (kind) {
      case "object": return g.objects.map((_o, i) => i);
      case "receptacle": return g.receptacles.map((_r, i) => i);
      case "location": return Array.from({ length: g.locationCount }, (_x, i) => i);
      case "agent": return [0];
      case "type": return [...t.typeIds.values()];
    }
  };

  const compile = (f: Formula): Test => {
    switch (f.op) {
      case "atom": return atom(f.pred, f.args);
      case "not": { const inner = compile(f.arg); return (s, env) => !inner(s, env); }
      case "or": { const parts = f.args.map(compile); return (s, env) => parts.some((p) => p(s, env)); }
      case "and": { const parts = f.args.map(compile); return (s, env) => parts.every((p) => p(s, env)); }
      case "exists": return compileExists(f);
    }
  };

  // exists v1 (exists v2 (and c1 c2 ...)) -> variables [v1, v2], conjuncts [c1, c2, ...]
  const compileExists = (f: Formula & { op: "exists" }): Test => {
    const vars: { name: string; type: string }[] = [];
    let body: Formula = f;
    while (body.op === "exists" || (body.op === "and" && body.args.length === 1)) {
      if (body.op === "exists") { vars.push(...body.vars); body = body.body; } else body = body.args[0]!;
    }
    const saved = new Map(scope);
    const positions = new Map<string, number>();
    const varSlots = vars.map((v, i) => {
      const kind = KIND_OF_TYPE[v.type];
      if (kind === undefined) throw new DataError(`${where}: unknown variable type '${v.type}' in the goal`);
      const slot = slots++;
      scope.set(v.name, { slot, kind });
      positions.set(v.name, i);
      return { slot, kind, name: v.name };
    });
    const flat: Formula[] = body.op === "and" ? flattenAnd(body) : [body];
    const lastVar = (c: Formula): number => {
      let m = -1;
      for (const name of freeVars(c)) { const p = positions.get(name); if (p !== undefined && p > m) m = p; }
      return m;
    };
    const byPos: Test[][] = Array.from({ length: vars.length + 1 }, () => []);
    for (const c of flat) byPos[lastVar(c) + 1]!.push(compile(c));
    const domains = varSlots.map((v) => {
      for (const c of flat) {
        if (c.op === "atom" && (c.pred === "objecttype" || c.pred === "receptacletype") && c.args[0] === v.name && !c.args[1]!.startsWith("?")) {
          const tid = t.typeIds.get(c.args[1]!);
          if (tid === undefined) return [];
          return (c.pred === "objecttype" ? t.objectsByType : t.receptaclesByType).get(tid) ?? [];
        }
      }
      return domainOf(v.kind);
    });
    for (const [k, v] of saved) scope.set(k, v);
    for (const v of varSlots) if (!saved.has(v.name)) scope.delete(v.name);
    const search = (s: WorldState, env: Int32Array, k: number): boolean => {
      for (const c of byPos[k]!) if (!c(s, env)) return false;
      if (k === varSlots.length) return true;
      const slot = varSlots[k]!.slot;
      for (const value of domains[k]!) {
        env[slot] = value;
        if (search(s, env, k + 1)) return true;
      }
      return false;
    };
    return (s, env) => search(s, env, 0);
  };

  const test = compile(f);
  const env = new Int32Array(Math.max(1, slots));
  return (s) => test(s, env);
}

function val(a: Arg, env: Int32Array): number {
  return "slot" in a ? env[a.slot]! : a.value;
}

function flattenAnd(f: Formula): Formula[] {
  return f.op === "and" ? f.args.flatMap(flattenAnd) : [f];
}

function freeVars(f: Formula): Set<string> {
  const out = new Set<string>();
  const walk = (g: Formula, bound: Set<string>): void => {
    switch (g.op) {
      case "atom": for (const a of g.args) if (a.startsWith("?") && !bound.has(a)) out.add(a); return;
      case "not": walk(g.arg, bound); return;
      case "and": case "or": for (const x of g.args) walk(x, bound); return;
      case "exists": walk(g.body, new Set([...bound, ...g.vars.map((v) => v.name)])); return;
    }
  };
  walk(f, new Set());
  return out;
}
