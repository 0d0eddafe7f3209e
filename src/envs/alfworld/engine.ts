/**
 * The ALFWorld game engine: the Alfred PDDL domain of the game files (the "move" protocol,
 * as TextWorld's PDDL engine grounds it) hard-coded over typed arrays, with TextWorld's feedback
 * text. It knows
 * nothing of rewards, step limits or episodes; `env.ts` wraps it in the `Env` protocol.
 *
 * Faithfulness notes: a command is applied only if it equals an admissible command exactly;
 * effects follow the domain (an object in two receptacles stays in the other one when taken
 * from one; taking removes `objectAtLocation` only at the agent's location); a deleted
 * `inReceptacle` fact is remembered as TextWorld's `not_inreceptacle`, which feeds the
 * "Next to it" list of `look`.
 */
import type { AlfGame } from "./game.ts";
import { PROP, STATE } from "./flags.ts";
import { compileGoal, type GoalTest, type WorldState } from "./goal.ts";
import { tablesOf, type GameTables } from "./tables.ts";
import {
  HELP_TEXT, NOTHING_HAPPENS, describeObject, describeReceptacle, facingSentence, introText, inventoryText, roomSentence,
} from "./text.ts";

const A = {
  go: 0, open: 1, close: 2, take: 3, move: 4, heat: 5, cool: 6, clean: 7, slice: 8, use: 9,
  examineRec: 10, examineObj: 11, look: 12, inventory: 13, help: 14,
} as const;
type ActKind = (typeof A)[keyof typeof A];

/** A grounded action: kind plus up to two entity indices (object/receptacle per kind). */
type Act = { readonly kind: ActKind; readonly a: number; readonly b: number };

const LOOK: Act = { kind: A.look, a: 0, b: 0 };
const INVENTORY: Act = { kind: A.inventory, a: 0, b: 0 };
const HELP: Act = { kind: A.help, a: 0, b: 0 };

const goals = new WeakMap<AlfGame, GoalTest>();

function goalOf(game: AlfGame, t: GameTables, where = game.id): GoalTest {
  let g = goals.get(game);
  if (g === undefined) {
    g = compileGoal(game.goal, t, where);
    goals.set(game, g);
  }
  return g;
}

/**
 * Compile (and cache) a game's goal now, so a bad goal is reported at load time.
 * @throws DataError naming `where` for unknown predicates or constants
 */
export function prepareGame(game: AlfGame, where: string): void {
  goalOf(game, tablesOf(game), where);
}

/** What one command did. */
export type EngineStep = {
  readonly feedback: string;
  /** The command was admissible and applied. */
  readonly recognized: boolean;
};

/** The dynamic state of an engine (see `AlfworldEngine.snapshot`). */
export type EngineSnapshot = {
  readonly agentLoc: number;
  readonly held: number;
  readonly opened: Uint8Array;
  readonly objState: Uint8Array;
  readonly recsOf: readonly (readonly number[])[];
  readonly locsOf: readonly (readonly number[])[];
  readonly notIn: readonly (readonly number[])[];
  readonly contents: readonly (readonly number[])[];
};

/** One running game. `reset` restores the initial state; reuse an engine across episodes freely. */
export class AlfworldEngine implements WorldState {
  readonly game: AlfGame;
  private readonly t: GameTables;
  private readonly goal: GoalTest;
  agentLoc = 0;
  held = -1;
  readonly opened: Uint8Array;
  readonly objState: Uint8Array;
  recsOf: number[][] = [];
  locsOf: number[][] = [];
  readonly insideOf: readonly (readonly number[])[];
  private notIn: number[][] = [];
  private contents: number[][] = [];
  private sorted: readonly string[] = [];

  /** @throws DataError if the game's goal cannot be compiled */
  constructor(game: AlfGame) {
    this.game = game;
    this.t = tablesOf(game);
    this.goal = goalOf(game, this.t);
    this.opened = new Uint8Array(game.receptacles.length);
    this.objState = new Uint8Array(game.objects.length);
    this.insideOf = game.objects.map((o) => o.inside);
    this.reset();
  }

  /** Restore the initial state; returns the intro text. */
  reset(): string {
    const g = this.game;
    this.agentLoc = g.agentStart;
    this.held = -1;
    g.receptacles.forEach((r, i) => { this.opened[i] = r.opened ? 1 : 0; });
    g.objects.forEach((o, i) => { this.objState[i] = o.state; });
    this.recsOf = g.objects.map((o) => [...o.receptacles]);
    this.locsOf = g.objects.map((o) => [...o.locations]);
    this.notIn = g.objects.map(() => []);
    this.contents = g.receptacles.map(() => []);
    this.recsOf.forEach((rs, o) => { for (const r of rs) this.contents[r]!.push(o); });
    this.refresh();
    return introText(g.receptacles.map((r) => r.name), g.task);
  }

  /** True when the goal holds now. */
  won(): boolean {
    return this.goal(this);
  }

  /** The admissible commands, sorted by code point and unique. Do not mutate. */
  admissible(): readonly string[] {
    return this.sorted;
  }

  /** Apply one command string (stripped first, as TextWorld's `command.strip()`). Never throws. */
  step(command: string): EngineStep {
    const cmd = pyStrip(command);
    const act = contains(this.sorted, cmd) ? this.resolve(cmd) : undefined;
    if (act === undefined) return { feedback: NOTHING_HAPPENS, recognized: false };
    const feedback = this.apply(act);
    this.refresh();
    return { feedback, recognized: true };
  }

  /** The game's static tables (locations, openability, type ids) for planners that read the true state. */
  get tables(): GameTables {
    return this.t;
  }

  /** Receptacles currently holding object `o` (do not mutate). */
  receptaclesOf(o: number): readonly number[] {
    return this.recsOf[o]!;
  }

  /** The whole dynamic state, for a planner that tries commands and comes back ({@link restore}). */
  snapshot(): EngineSnapshot {
    return {
      agentLoc: this.agentLoc, held: this.held, opened: this.opened.slice(), objState: this.objState.slice(),
      recsOf: this.recsOf.map((x) => [...x]), locsOf: this.locsOf.map((x) => [...x]), notIn: this.notIn.map((x) => [...x]), contents: this.contents.map((x) => [...x]),
    };
  }

  /** Return to a {@link snapshot} of this engine's game (the snapshot stays usable). */
  restore(s: EngineSnapshot): void {
    this.agentLoc = s.agentLoc;
    this.held = s.held;
    this.opened.set(s.opened);
    this.objState.set(s.objState);
    this.recsOf = s.recsOf.map((x) => [...x]);
    this.locsOf = s.locsOf.map((x) => [...x]);
    this.notIn = s.notIn.map((x) => [...x]);
    this.contents = s.contents.map((x) => [...x]);
    this.refresh();
  }

  /** Display name of the held object, or undefined. */
  heldName(): string | undefined {
    return this.held >= 0 ? this.game.objects[this.held]!.name : undefined;
  }

  private accessible(r: number): boolean {
    return this.t.recOpenable[r] === 0 || this.opened[r] === 1;
  }

  private describeRec(r: number): string {
    const rec = this.game.receptacles[r]!;
    return describeReceptacle(rec.name, rec.openable, this.opened[r] === 1, this.contents[r]!.map((o) => this.game.objects[o]!.name));
  }

  private apply(act: Act): string {
    const g = this.game, t = this.t, { a, b } = act;
    switch (act.kind) {
      case A.go:
        this.agentLoc = t.recLoc[a]!;
        return `You arrive at ${g.receptacles[a]!.name}. ${this.describeRec(a)}`;
      case A.open:
        this.opened[a] = 1;
        return `You open the ${g.receptacles[a]!.name}. ${this.describeRec(a)}`;
      case A.close:
        this.opened[a] = 0;
        return `You close the ${g.receptacles[a]!.name}.`;
      case A.take:
        remove(this.recsOf[a]!, b);
        remove(this.contents[b]!, a);
        insertSorted(this.notIn[a]!, b);
        remove(this.locsOf[a]!, this.agentLoc);
        this.held = a;
        return `You pick up the ${g.objects[a]!.name} from the ${g.receptacles[b]!.name}.`;
      case A.move:
        insertSorted(this.recsOf[a]!, b);
        insertSorted(this.contents[b]!, a);
        remove(this.notIn[a]!, b);
        insertSorted(this.locsOf[a]!, this.agentLoc);
        this.held = -1;
        return `You move the ${g.objects[a]!.name} to the ${g.receptacles[b]!.name}.`;
      case A.heat:
        this.objState[a] = (this.objState[a]! | STATE.hot) & ~STATE.cool;
        return `You heat the ${g.objects[a]!.name} using the ${g.receptacles[b]!.name}.`;
      case A.cool:
        this.objState[a] = (this.objState[a]! | STATE.cool) & ~STATE.hot;
        return `You cool the ${g.objects[a]!.name} using the ${g.receptacles[b]!.name}.`;
      case A.clean:
        this.objState[a] = this.objState[a]! | STATE.clean;
        return `You clean the ${g.objects[a]!.name} using the ${g.receptacles[b]!.name}.`;
      case A.slice:
        this.objState[a] = this.objState[a]! | STATE.sliced;
        return `You sliced the ${g.objects[a]!.name} with the ${g.objects[b]!.name}.`;
      case A.use:
        this.objState[a] = (this.objState[a]! ^ STATE.on) | STATE.toggled;
        return `You turn on the ${g.objects[a]!.name}.`;
      case A.examineRec:
        return this.describeRec(a);
      case A.examineObj: {
        const o = g.objects[a]!, p = t.objProps[a]!;
        return describeObject(o.name, this.objState[a]!, (p & PROP.toggleable) !== 0, (p & PROP.sliceable) !== 0,
          (p & PROP.receptacleObject) !== 0, this.innerNames(a));
      }
      case A.look:
        return this.lookText();
      case A.inventory:
        return inventoryText(this.heldName());
      case A.help:
        return HELP_TEXT;
    }
  }

  private innerNames(outer: number): string[] {
    const out: string[] = [];
    this.insideOf.forEach((outs, o) => { if (outs.includes(outer)) out.push(this.game.objects[o]!.name); });
    return out;
  }

  private lookText(): string {
    const here = this.t.recsAt[this.agentLoc]!;
    if (here.length === 0) return roomSentence(this.game.receptacles.map((r) => r.name));
    const nextTo: string[] = [];
    this.notIn.forEach((rs, o) => {
      if (!this.locsOf[o]!.includes(this.agentLoc)) return;
      for (const r of rs) if (this.t.recLoc[r] === this.agentLoc) nextTo.push(this.game.objects[o]!.name);
    });
    return facingSentence(here.map((r) => this.game.receptacles[r]!.name), nextTo);
  }

  /**
   * Recompute the admissible commands of the current state. The `go to` block is constant and
   * sorts as one contiguous run (no other verb starts with `g`), so only the few state-dependent
   * commands are sorted each step and spliced around it.
   */
  private refresh(): void {
    const t = this.t, g = this.game, O = g.objects.length;
    const pre: string[] = [], post: string[] = [];
    const h = this.held;
    for (const r of t.recsAt[this.agentLoc]!) {
      addCommand(pre, post, t.examineRecCmd[r]!);
      if (t.recOpenable[r] === 1) addCommand(pre, post, this.opened[r] === 1 ? t.closeCmd[r]! : t.openCmd[r]!);
      const acc = this.accessible(r);
      const rname = g.receptacles[r]!.name;
      for (const o of this.contents[r]!) {
        const p = t.objProps[o]!;
        if ((p & PROP.toggleable) !== 0) addCommand(pre, post, t.useCmd[o]!);
        if (!acc) continue;
        addCommand(pre, post, t.examineObjCmd[o]!);
        if (h < 0 && (p & PROP.pickupable) !== 0) addCommand(pre, post, `take ${g.objects[o]!.name} from ${rname}`);
      }
      if (h >= 0) {
        const p = t.objProps[h]!, hn = g.objects[h]!.name;
        if (acc && t.canHold[r * O + h] === 1) addCommand(pre, post, `move ${hn} to ${rname}`);
        if (t.isMicrowave[r] === 1 && (p & PROP.heatable) !== 0) addCommand(pre, post, `heat ${hn} with ${rname}`);
        if (t.isFridge[r] === 1 && (p & PROP.coolable) !== 0) addCommand(pre, post, `cool ${hn} with ${rname}`);
        if (t.isSink[r] === 1 && (p & PROP.cleanable) !== 0) addCommand(pre, post, `clean ${hn} with ${rname}`);
      }
    }
    if (h >= 0) {
      addCommand(pre, post, t.examineObjCmd[h]!);
      if (t.isKnife[h] === 1) {
        for (let o = 0; o < O; o++) {
          if ((t.objProps[o]! & PROP.sliceable) !== 0 && this.locsOf[o]!.includes(this.agentLoc)) addCommand(pre, post, `slice ${g.objects[o]!.name} with ${g.objects[h]!.name}`);
        }
      }
    }
    post.push("help", "inventory", "look");
    this.sorted = [...uniqueSorted(pre), ...t.goSorted, ...uniqueSorted(post)];
  }

  /** The grounded action of an admissible command (undefined if it names no entity). */
  private resolve(cmd: string): Act | undefined {
    const t = this.t;
    const sp = cmd.indexOf(" ");
    const verb = sp < 0 ? cmd : cmd.slice(0, sp), rest = sp < 0 ? "" : cmd.slice(sp + 1);
    let act: Act | undefined;
    switch (verb) {
      case "look": act = LOOK; break;
      case "inventory": act = INVENTORY; break;
      case "help": act = HELP; break;
      case "go": act = { kind: A.go, a: indexOf(t.recByName, rest.slice(3)), b: 0 }; break;
      case "open": act = { kind: A.open, a: indexOf(t.recByName, rest), b: 0 }; break;
      case "close": act = { kind: A.close, a: indexOf(t.recByName, rest), b: 0 }; break;
      case "use": act = { kind: A.use, a: indexOf(t.objByName, rest), b: 0 }; break;
      case "examine": {
        const r = indexOf(t.recByName, rest);
        act = r >= 0 ? { kind: A.examineRec, a: r, b: 0 } : { kind: A.examineObj, a: indexOf(t.objByName, rest), b: 0 };
        break;
      }
      case "take": { const [o, r] = splitAt(rest, " from "); act = { kind: A.take, a: indexOf(t.objByName, o), b: indexOf(t.recByName, r) }; break; }
      case "move": { const [o, r] = splitAt(rest, " to "); act = { kind: A.move, a: indexOf(t.objByName, o), b: indexOf(t.recByName, r) }; break; }
      case "heat": case "cool": case "clean": {
        const [o, r] = splitAt(rest, " with ");
        act = { kind: verb === "heat" ? A.heat : verb === "cool" ? A.cool : A.clean, a: indexOf(t.objByName, o), b: indexOf(t.recByName, r) };
        break;
      }
      case "slice": { const [o, k] = splitAt(rest, " with "); act = { kind: A.slice, a: indexOf(t.objByName, o), b: indexOf(t.objByName, k) }; break; }
    }
    return act === undefined || act.a < 0 || act.b < 0 ? undefined : act;
  }
}

/** Python's `str.isspace` code points: JS `trim` differs (it strips U+FEFF, keeps U+001C-U+001F and U+0085). */
function isPySpace(c: number): boolean {
  return (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20) || c === 0x85 || c === 0xa0 || c === 0x1680
    || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Python's `str.strip()` with no argument. */
export function pyStrip(s: string): string {
  let lo = 0, hi = s.length;
  while (lo < hi && isPySpace(s.charCodeAt(lo))) lo++;
  while (hi > lo && isPySpace(s.charCodeAt(hi - 1))) hi--;
  return lo === 0 && hi === s.length ? s : s.slice(lo, hi);
}

/** File a command before or after the constant `go to` block. */
function addCommand(pre: string[], post: string[], cmd: string): void {
  (cmd < "go to " ? pre : post).push(cmd);
}

function indexOf(names: ReadonlyMap<string, number>, name: string): number {
  return names.get(name) ?? -1;
}

/** `"a from b"` split at the first `sep` into `["a", "b"]`. */
function splitAt(rest: string, sep: string): [string, string] {
  const i = rest.indexOf(sep);
  return i < 0 ? [rest, ""] : [rest.slice(0, i), rest.slice(i + sep.length)];
}

/** Sort and drop adjacent duplicates (code-point order, as Python's `sorted(set(...))`). */
function uniqueSorted(list: string[]): string[] {
  list.sort();
  let w = 0;
  for (let i = 0; i < list.length; i++) if (i === 0 || list[i] !== list[w - 1]) list[w++] = list[i]!;
  list.length = w;
  return list;
}

/** Binary search in a sorted list. */
function contains(sorted: readonly string[], s: string): boolean {
  let lo = 0, hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1, v = sorted[mid]!;
    if (v === s) return true;
    if (v < s) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function remove(list: number[], v: number): void {
  const i = list.indexOf(v);
  if (i >= 0) list.splice(i, 1);
}

function insertSorted(list: number[], v: number): void {
  let i = 0;
  while (i < list.length && list[i]! < v) i++;
  if (list[i] !== v) list.splice(i, 0, v);
}
