/**
 * The length of the shortest plan to the goal from a game's true state: an action-level value
 * label (does an action shorten the remaining plan?) for measuring whether a teacher's gates
 * prefer good actions. Unlike the agent-side expert (`expert.ts`), this reads the engine's hidden
 * state: where every object is, what is open, what is hot.
 *
 * Method. The goal formula is read for its shape (ALFWorld's six task types all have one of two):
 * - place: `n` objects of type O (n = 1, or 2 for Pick2, in the same receptacle), optionally hot,
 *   cool or clean, in a receptacle of type R;
 * - look: an object of type O held at the location of a toggled lamp of type L.
 * Candidate plans are the subgoal chains of that shape over every choice that matters (which
 * object, from which receptacle, which appliance, which target, where to put down a wrong object
 * in hand, lamp before or after the object), each step a command of the protocol (`go to`,
 * `open`, `take`, `heat/cool/clean`, `move`, `use`). Every candidate is played on the engine
 * itself (snapshot and restore), so a plan counts only if the engine admits each command and the
 * real goal test holds at its end; a depth-first search keeps the shortest, pruning at the best
 * so far. The result is exact for plans of these chains, which is what the PDDL planner's
 * walkthroughs of the real games are (the tests compare against them); goals of another shape
 * (sliced objects) are reported unsupported rather than guessed.
 */
import type { AlfworldEngine } from "./engine.ts";
import { PROP, STATE } from "./flags.ts";
import type { Formula } from "./goal.ts";
import type { AlfGame } from "./game.ts";

/** What a goal asks, as far as the planner needs it. */
export type GoalShape =
  | { readonly kind: "place"; readonly objectTypes: readonly string[]; readonly receptacleTypes: readonly string[]; readonly count: number; readonly flag: "hot" | "cool" | "clean" | null }
  | { readonly kind: "look"; readonly objectTypes: readonly string[]; readonly lampTypes: readonly string[] };

type VarInfo = { objectType?: string; receptacleType?: string; preds: Set<string> };

/** The shape of a game's goal; undefined for a goal the planner does not cover (e.g. sliced objects). */
export function goalShape(goal: Formula): GoalShape | undefined {
  const vars = new Map<string, VarInfo>();
  const info = (v: string): VarInfo => {
    let i = vars.get(v);
    if (i === undefined) vars.set(v, (i = { preds: new Set() }));
    return i;
  };
  let negatedOther = false;
  const walk = (f: Formula, negated: boolean): void => {
    switch (f.op) {
      case "and": case "or": for (const a of f.args) walk(a, negated); return;
      case "not": walk(f.arg, !negated); return;
      case "exists": walk(f.body, negated); return;
      case "atom": {
        if (negated) { if (f.pred !== "=") negatedOther = true; return; }
        const [x, y] = f.args;
        if (x === undefined || !x.startsWith("?")) return;
        if (f.pred === "objecttype" && y !== undefined && !y.startsWith("?")) info(x).objectType = y;
        else if (f.pred === "receptacletype" && y !== undefined && !y.startsWith("?")) info(x).receptacleType = y;
        else if (f.pred === "holds" && y !== undefined) info(y).preds.add("held");
        else if (f.pred === "inreceptacle") info(x).preds.add("in");
        else info(x).preds.add(f.pred);
      }
    }
  };
  walk(goal, false);
  if (negatedOther) return undefined;
  const objectVars = [...vars.values()].filter((v) => v.objectType !== undefined);
  if (objectVars.some((v) => v.preds.has("issliced"))) return undefined;
  const lamps = objectVars.filter((v) => v.preds.has("toggleable") || v.preds.has("istoggled"));
  const things = objectVars.filter((v) => !lamps.includes(v));
  const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => x !== undefined))];
  if (things.some((v) => v.preds.has("held"))) {
    if (lamps.length === 0) return undefined;
    return { kind: "look", objectTypes: uniq(things.map((v) => v.objectType)), lampTypes: uniq(lamps.map((v) => v.objectType)) };
  }
  const placed = things.filter((v) => v.preds.has("in"));
  const receptacleTypes = uniq([...vars.values()].map((v) => v.receptacleType));
  if (placed.length === 0 || placed.length > 2 || receptacleTypes.length !== 1 || lamps.length > 0) return undefined;
  const flags = new Set(placed.flatMap((v) => ["ishot", "iscool", "isclean"].filter((p) => v.preds.has(p))));
  if (flags.size > 1) return undefined;
  const flag = flags.has("ishot") ? "hot" : flags.has("iscool") ? "cool" : flags.has("isclean") ? "clean" : null;
  return { kind: "place", objectTypes: uniq(placed.map((v) => v.objectType)), receptacleTypes, count: placed.length, flag };
}

/** Options of {@link planDistance}. */
export type PlanDistanceOptions = {
  /** Longest plan searched; a state farther than this reports `Infinity`. @default 40 */
  readonly maxSteps?: number;
};

/** A shortest plan found from the current state. */
export type PlanResult = {
  /** Its length (0 when the goal already holds; Infinity when no plan within the limit). */
  readonly steps: number;
  /** Its commands. */
  readonly plan: readonly string[];
};

const shapes = new WeakMap<AlfGame, GoalShape | null>();

function shapeOf(game: AlfGame): GoalShape | undefined {
  let s = shapes.get(game);
  if (s === undefined) shapes.set(game, (s = goalShape(game.goal) ?? null));
  return s ?? undefined;
}

const FLAG: Readonly<Record<"hot" | "cool" | "clean", { bit: number; verb: string }>> = {
  hot: { bit: STATE.hot, verb: "heat" },
  cool: { bit: STATE.cool, verb: "cool" },
  clean: { bit: STATE.clean, verb: "clean" },
};

/**
 * The shortest plan to the goal from the engine's current state. The engine is left exactly as
 * it was (every trial is undone).
 * @returns undefined when the goal's shape is not covered (see the file header)
 */
export function planDistance(engine: AlfworldEngine, options: PlanDistanceOptions = {}): PlanResult | undefined {
  const shape = shapeOf(engine.game);
  if (shape === undefined) return undefined;
  if (engine.won()) return { steps: 0, plan: [] };
  const limit = options.maxSteps ?? 40;
  const g = engine.game, t = engine.tables;
  const start = engine.snapshot();
  const typed = (types: readonly string[]) => g.objects.map((o, i) => (types.includes(o.type) ? i : -1)).filter((i) => i >= 0);
  let best = limit + 1;
  let bestPlan: string[] = [];
  const trail: string[] = [];

  const goCmds = (r: number): string[] => (engine.agentLoc === t.recLoc[r] ? [] : [t.goCmd[r]!]);
  const reachCmds = (r: number): string[] => {
    const out = goCmds(r);
    if (t.recOpenable[r] === 1 && engine.opened[r] === 0) out.push(t.openCmd[r]!);
    return out;
  };

  /**
   * Play the commands `make()` gives now; then continue with `next` unless the goal holds (a
   * shorter plan is recorded) or the plan cannot beat the best. Undoes everything it did.
   */
  const tryStep = (make: () => string[], next: () => void): void => {
    const snap = engine.snapshot();
    const depth = trail.length;
    const cmds = make();
    // No command means no change of state: the caller's loop would only come back here.
    let ok = cmds.length > 0;
    for (const cmd of cmds) {
      if (trail.length + 1 >= best || !engine.step(cmd).recognized) { ok = false; break; }
      trail.push(cmd);
      if (engine.won()) {
        best = trail.length;
        bestPlan = [...trail];
        ok = false;
        break;
      }
    }
    if (ok) next();
    trail.length = depth;
    engine.restore(snap);
  };

  /** Receptacles the plan may visit anyway (targets, appliances, lamp places); set per shape below. */
  let relevant: readonly number[] = [];
  const O = g.objects.length;

  /**
   * Put down the held object (a wrong one), then `next`. Where matters only through what it costs
   * (a go, an open) and where the agent ends up, so the places tried are those here, the ones the
   * plan visits next or anyway, and one open and one closed receptacle elsewhere that can hold it.
   */
  const dropThen = (places: readonly number[], next: () => void): void => {
    const h = engine.held;
    const name = g.objects[h]!.name;
    const holds = (r: number) => t.canHold[r * O + h] === 1;
    const tried = new Set([...places, ...relevant].filter(holds));
    const elsewhere = g.receptacles.map((_r, i) => i).filter((r) => holds(r) && !tried.has(r));
    const open = elsewhere.find((r) => t.recOpenable[r] === 0 || engine.opened[r] === 1);
    const closed = elsewhere.find((r) => t.recOpenable[r] === 1 && engine.opened[r] === 0);
    for (const r of [...tried, ...(open === undefined ? [] : [open]), ...(closed === undefined ? [] : [closed])]) {
      tryStep(() => [...reachCmds(r), `move ${name} to ${g.receptacles[r]!.name}`], next);
    }
  };

  /** Take object `o` (from any receptacle holding it), first putting down what is in hand. */
  const fetchThen = (o: number, next: () => void): void => {
    const sources = [...engine.receptaclesOf(o)]; // a copy: a trial take edits the live list
    for (const r0 of sources) {
      const take = () => [...reachCmds(r0), `take ${g.objects[o]!.name} from ${g.receptacles[r0]!.name}`];
      if (engine.held >= 0) {
        const here = t.recsAt[engine.agentLoc]!;
        dropThen([...here, r0], () => tryStep(take, next));
      } else {
        tryStep(take, next);
      }
    }
  };

  if (shape.kind === "place") {
    const candidates = typed(shape.objectTypes);
    const targets = g.receptacles.map((r, i) => (shape.receptacleTypes.includes(r.type) ? i : -1)).filter((i) => i >= 0);
    const flag = shape.flag === null ? null : FLAG[shape.flag];
    const appliances = shape.flag === null ? [] : g.receptacles.map((_r, i) => i).filter((i) =>
      (shape.flag === "hot" ? t.isMicrowave : shape.flag === "cool" ? t.isFridge : t.isSink)[i] === 1);
    relevant = [...targets, ...appliances];
    const flagOk = (o: number) => flag === null || (engine.objState[o]! & flag.bit) !== 0;
    const satisfied = (o: number, r: number) => engine.receptaclesOf(o).includes(r) && flagOk(o);
    const transformThen = (o: number, next: () => void): void => {
      if (flagOk(o)) { next(); return; }
      for (const a of appliances) tryStep(() => [...goCmds(a), `${flag!.verb} ${g.objects[o]!.name} with ${g.receptacles[a]!.name}`], next);
    };
    const placeInto = (r: number): void => {
      const have = candidates.filter((o) => satisfied(o, r)).length;
      if (have >= shape.count) return; // the goal test decides; nothing more to add here
      const put = (o: number) => tryStep(() => [...reachCmds(r), `move ${g.objects[o]!.name} to ${g.receptacles[r]!.name}`], () => placeInto(r));
      const h = engine.held;
      if (h >= 0 && candidates.includes(h)) transformThen(h, () => put(h));
      for (const o of candidates) {
        if (o === h || satisfied(o, r)) continue;
        fetchThen(o, () => transformThen(o, () => put(o)));
      }
    };
    for (const r of targets) placeInto(r);
  } else {
    const things = typed(shape.objectTypes);
    const lamps = typed(shape.lampTypes).filter((l) => (t.objProps[l]! & PROP.toggleable) !== 0);
    relevant = lamps.flatMap((l) => engine.receptaclesOf(l));
    const lampOn = () => lamps.some((l) => (engine.objState[l]! & STATE.toggled) !== 0);
    const look = (): void => {
      const holding = engine.held >= 0 && things.includes(engine.held);
      for (const l of lamps) {
        for (const rl of [...engine.receptaclesOf(l)]) {
          if (lampOn()) { if (holding) tryStep(() => goCmds(rl), look); }
          else tryStep(() => [...goCmds(rl), `use ${g.objects[l]!.name}`], look);
        }
      }
      if (!holding) for (const o of things) fetchThen(o, look);
    };
    look();
  }
  engine.restore(start);
  return best <= limit ? { steps: best, plan: bestPlan } : { steps: Number.POSITIVE_INFINITY, plan: [] };
}
