/**
 * The engine's representation of one ALFWorld game: receptacles, objects, locations, the
 * receptacle/object compatibility table, the starting state and the goal. Real games are built
 * from their PDDL problem (`gameFromProblem`); generated games (`generator/`) build the same
 * shape directly, so the engine, the rendering and the expert never know where a game came from.
 * Entity lists are sorted by id, which is also the order every rendered list uses.
 */
import { DataError } from "../../core/errors.ts";
import { parseFormula, type Formula } from "./goal.ts";
import { PROP, STATE } from "./flags.ts";
import { demangle } from "./names.ts";
import type { PddlProblem } from "./problem.ts";
import type { TaskType } from "./tasks.ts";

export { PROP, STATE } from "./flags.ts";

/** A receptacle (furniture, appliance): fixed at one location. */
export type Receptacle = {
  /** Lower-case PDDL id (`drawer_bar__plus_01...`), or a generated id in the same shape. */
  readonly id: string;
  /** Display name (`drawer 3`). */
  readonly name: string;
  /** Lower-case PDDL rtype (`drawertype`). */
  readonly type: string;
  readonly location: number;
  readonly openable: boolean;
  /** Open at the start of the game. */
  readonly opened: boolean;
};

/** A movable or fixed object inside the room. */
export type GameObject = {
  readonly id: string;
  readonly name: string;
  /** Lower-case PDDL otype (`appletype`); empty if the game gives none. */
  readonly type: string;
  /** Bit set of `PROP`. */
  readonly props: number;
  /** Initial bit set of `STATE`. */
  readonly state: number;
  /** Receptacles holding it at the start (indices into `receptacles`, ascending). */
  readonly receptacles: readonly number[];
  /** Locations it is at at the start (`objectAtLocation`). */
  readonly locations: readonly number[];
  /** Receptacle-objects it is inside at the start (`inReceptacleObject`, object indices). */
  readonly inside: readonly number[];
};

/** One game in the engine's representation. */
export type AlfGame = {
  /** Stable id (the game path relative to the data root, or a generated id). */
  readonly id: string;
  readonly taskType: TaskType;
  /** Task sentence without the `Your task is to: ` prefix, trailing `.` kept. */
  readonly task: string;
  /** Sorted by id. */
  readonly receptacles: readonly Receptacle[];
  /** Sorted by id. */
  readonly objects: readonly GameObject[];
  readonly locationCount: number;
  readonly agentStart: number;
  /** `"<rtype> <otype>"` pairs a receptacle type can hold. */
  readonly canContain: ReadonlySet<string>;
  readonly goal: Formula;
  /** The planner's command list shipped with real games; absent for generated ones. */
  readonly walkthrough?: readonly string[];
};

const OBJECT_PROPS: Readonly<Record<string, number>> = {
  pickupable: PROP.pickupable,
  heatable: PROP.heatable,
  coolable: PROP.coolable,
  cleanable: PROP.cleanable,
  toggleable: PROP.toggleable,
  sliceable: PROP.sliceable,
  isreceptacleobject: PROP.receptacleObject,
};

const OBJECT_STATE: Readonly<Record<string, number>> = {
  ishot: STATE.hot,
  iscool: STATE.cool,
  isclean: STATE.clean,
  issliced: STATE.sliced,
  istoggled: STATE.toggled,
  ison: STATE.on,
};

/** Predicates the engine does not model; they carry no information in the shipped games. */
const IGNORED = new Set(["checked", "examined", "wasinreceptacle", "full", "isreceptacleobjectfull", "moveable", "holdsanyreceptacleobject"]);

type Draft = {
  type: string;
  props: number;
  state: number;
  receptacles: string[];
  locations: string[];
  inside: string[];
};

/**
 * Build a game from its parsed PDDL problem.
 * @param id     stable game id
 * @param task   task sentence (without `Your task is to: `)
 * @param where  file name used in error messages
 * @throws DataError when the problem is not an Alfred problem the engine understands
 */
export function gameFromProblem(problem: PddlProblem, meta: {
  id: string; taskType: TaskType; task: string; walkthrough?: readonly string[]; where: string;
}): AlfGame {
  const where = meta.where;
  const declared = new Map<string, string>();
  for (const o of problem.objects) declared.set(o.id, o.type);
  const kindOf = (id: string): string => {
    const t = declared.get(id);
    if (t === undefined) throw new DataError(`${where}: fact argument '${id}' is not declared in (:objects ...)`);
    return t;
  };

  const entityIds: string[] = [];
  const recType = new Map<string, string>();
  const recLoc = new Map<string, string>();
  const openable = new Set<string>();
  const opened = new Set<string>();
  const objs = new Map<string, Draft>();
  const canContain = new Set<string>();
  let agentAt: string | undefined;
  const draft = (id: string): Draft => {
    let d = objs.get(id);
    if (d === undefined) {
      if (kindOf(id) !== "object") throw new DataError(`${where}: '${id}' is used as an object but declared as ${kindOf(id)}`);
      d = { type: "", props: 0, state: 0, receptacles: [], locations: [], inside: [] };
      objs.set(id, d);
    }
    return d;
  };

  for (const f of problem.init) {
    for (const a of f.args) {
      if (!declared.has(a)) throw new DataError(`${where}: fact argument '${a}' of (${f.pred} ...) is not declared in (:objects ...)`);
      entityIds.push(a);
    }
    const [a0, a1] = f.args;
    const need = (n: number): void => {
      if (f.args.length !== n) throw new DataError(`${where}: (${f.pred} ...) expects ${n} arguments, got ${f.args.length}`);
    };
    const p = f.pred;
    if (p in OBJECT_PROPS) { need(1); draft(a0!).props |= OBJECT_PROPS[p]!; continue; }
    if (p in OBJECT_STATE) { need(1); draft(a0!).state |= OBJECT_STATE[p]!; continue; }
    switch (p) {
      case "receptacletype": need(2); recType.set(a0!, a1!); break;
      case "receptacleatlocation": need(2); recLoc.set(a0!, a1!); break;
      case "objecttype": need(2); draft(a0!).type = a1!; break;
      case "objectatlocation": need(2); draft(a0!).locations.push(a1!); break;
      case "inreceptacle": need(2); draft(a0!).receptacles.push(a1!); break;
      case "inreceptacleobject": need(2); draft(a0!).inside.push(a1!); draft(a1!); break;
      case "cancontain": need(2); canContain.add(`${a0} ${a1}`); break;
      case "openable": need(1); openable.add(a0!); break;
      case "opened": need(1); opened.add(a0!); break;
      case "atlocation": need(2); agentAt = a1; break;
      case "holds": case "holdsany":
        throw new DataError(`${where}: games that start with the agent holding something are not supported`);
      default:
        if (!IGNORED.has(p)) throw new DataError(`${where}: unknown predicate '${p}' in (:init ...)`);
    }
  }

  const names = demangle(entityIds);
  const locIds = [...new Set(entityIds.filter((id) => declared.get(id) === "location"))].sort();
  const locIndex = new Map(locIds.map((id, i) => [id, i]));
  const loc = (id: string): number => {
    const i = locIndex.get(id);
    if (i === undefined) throw new DataError(`${where}: '${id}' is used as a location but declared as ${declared.get(id)}`);
    return i;
  };

  const recIds = [...new Set([...recType.keys(), ...recLoc.keys()])].sort();
  const recIndex = new Map(recIds.map((id, i) => [id, i]));
  const receptacles: Receptacle[] = recIds.map((id) => {
    const type = recType.get(id);
    const at = recLoc.get(id);
    if (type === undefined || at === undefined) throw new DataError(`${where}: receptacle '${id}' lacks a receptacleType or receptacleAtLocation fact`);
    return { id, name: names.get(id)!, type, location: loc(at), openable: openable.has(id), opened: opened.has(id) };
  });
  const rec = (id: string): number => {
    const i = recIndex.get(id);
    if (i === undefined) throw new DataError(`${where}: '${id}' is used as a receptacle but has no receptacleType`);
    return i;
  };

  const objIds = [...objs.keys()].sort();
  const objIndex = new Map(objIds.map((id, i) => [id, i]));
  const objects: GameObject[] = objIds.map((id) => {
    const d = objs.get(id)!;
    return {
      id, name: names.get(id)!, type: d.type, props: d.props, state: d.state,
      receptacles: [...new Set(d.receptacles.map(rec))].sort((x, y) => x - y),
      locations: [...new Set(d.locations.map(loc))].sort((x, y) => x - y),
      inside: [...new Set(d.inside.map((o) => objIndex.get(o)!))].sort((x, y) => x - y),
    };
  });

  if (agentAt === undefined) throw new DataError(`${where}: no (atLocation agent ...) fact`);
  return {
    id: meta.id, taskType: meta.taskType, task: meta.task,
    receptacles, objects, locationCount: locIds.length, agentStart: loc(agentAt), canContain,
    goal: parseFormula(problem.goal, where),
    ...(meta.walkthrough !== undefined ? { walkthrough: meta.walkthrough } : {}),
  };
}
