/**
 * The ALFWorld game engine: the Alfred PDDL domain of the game files (the "move" protocol,
 * ENVIRONMENTS.md §2.5) hard-coded over typed arrays, with TextWorld's feedback text. It knows
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

const LOOK: Act = { kind: A.look, a: -1, b: -1 };
const INVENTORY: Act = { kind: A.inventory, a: -1, b: -1 };
const HELP: Act = { kind: A.help, a: -1, b: -1 };

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
  private commands = new Map<string, Act>();
  private sorted: string[] = [];

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

  /** Apply one command string (trimmed first, as TextWorld does). Never throws. */
  step(command: string): EngineStep {
    const act = this.commands.get(command.trim());
    if (act === undefined) return { feedback: NOTHING_HAPPENS, recognized: false };
    const feedback = this.apply(act);
    this.refresh();
    return { feedback, recognized: true };
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
    const on = (i: number): string => g.objects[i]!.name;
    const rn = (i: number): string => g.receptacles[i]!.name;
    switch (act.kind) {
      case A.go:
        this.agentLoc = t.recLoc[a]!;
        return `You arrive at ${rn(a)}. ${this.describeRec(a)}`;
      case A.open:
        this.opened[a] = 1;
        return `You open the ${rn(a)}. ${this.describeRec(a)}`;
      case A.close:
        this.opened[a] = 0;
        return `You close the ${rn(a)}.`;
      case A.take:
        remove(this.recsOf[a]!, b);
        remove(this.contents[b]!, a);
        insertSorted(this.notIn[a]!, b);
        remove(this.locsOf[a]!, this.agentLoc);
        this.held = a;
        return `You pick up the ${on(a)} from the ${rn(b)}.`;
      case A.move:
        insertSorted(this.recsOf[a]!, b);
        insertSorted(this.contents[b]!, a);
        remove(this.notIn[a]!, b);
        insertSorted(this.locsOf[a]!, this.agentLoc);
        this.held = -1;
        return `You move the ${on(a)} to the ${rn(b)}.`;
      case A.heat:
        this.objState[a] = (this.objState[a]! | STATE.hot) & ~STATE.cool;
        return `You heat the ${on(a)} using the ${rn(b)}.`;
      case A.cool:
        this.objState[a] = (this.objState[a]! | STATE.cool) & ~STATE.hot;
        return `You cool the ${on(a)} using the ${rn(b)}.`;
      case A.clean:
        this.objState[a] = this.objState[a]! | STATE.clean;
        return `You clean the ${on(a)} using the ${rn(b)}.`;
      case A.slice:
        this.objState[a] = this.objState[a]! | STATE.sliced;
        return `You sliced the ${on(a)} with the ${on(b)}.`;
      case A.use:
        this.objState[a] = (this.objState[a]! ^ STATE.on) | STATE.toggled;
        return `You turn on the ${on(a)}.`;
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

  /** Recompute the admissible commands of the current state. */
  private refresh(): void {
    const t = this.t, g = this.game, O = g.objects.length;
    const cmds = new Map<string, Act>();
    const add = (cmd: string, act: Act): void => { if (!cmds.has(cmd)) cmds.set(cmd, act); };
    g.receptacles.forEach((_r, r) => add(t.goCmd[r]!, { kind: A.go, a: r, b: -1 }));
    const here = t.recsAt[this.agentLoc]!;
    const h = this.held;
    for (const r of here) {
      add(t.examineRecCmd[r]!, { kind: A.examineRec, a: r, b: -1 });
      if (t.recOpenable[r] === 1) {
        if (this.opened[r] === 1) add(t.closeCmd[r]!, { kind: A.close, a: r, b: -1 });
        else add(t.openCmd[r]!, { kind: A.open, a: r, b: -1 });
      }
      const acc = this.accessible(r);
      for (const o of this.contents[r]!) {
        const p = t.objProps[o]!;
        if ((p & PROP.toggleable) !== 0) add(t.useCmd[o]!, { kind: A.use, a: o, b: r });
        if (!acc) continue;
        add(t.examineObjCmd[o]!, { kind: A.examineObj, a: o, b: -1 });
        if (h < 0 && (p & PROP.pickupable) !== 0) add(`take ${g.objects[o]!.name} from ${g.receptacles[r]!.name}`, { kind: A.take, a: o, b: r });
      }
      if (h >= 0) {
        const p = t.objProps[h]!, hn = g.objects[h]!.name, rname = g.receptacles[r]!.name;
        if (acc && t.canHold[r * O + h] === 1) add(`move ${hn} to ${rname}`, { kind: A.move, a: h, b: r });
        if (t.isMicrowave[r] === 1 && (p & PROP.heatable) !== 0) add(`heat ${hn} with ${rname}`, { kind: A.heat, a: h, b: r });
        if (t.isFridge[r] === 1 && (p & PROP.coolable) !== 0) add(`cool ${hn} with ${rname}`, { kind: A.cool, a: h, b: r });
        if (t.isSink[r] === 1 && (p & PROP.cleanable) !== 0) add(`clean ${hn} with ${rname}`, { kind: A.clean, a: h, b: r });
      }
    }
    if (h >= 0) {
      add(t.examineObjCmd[h]!, { kind: A.examineObj, a: h, b: -1 });
      if (t.isKnife[h] === 1) {
        for (let o = 0; o < O; o++) {
          if ((t.objProps[o]! & PROP.sliceable) !== 0 && this.locsOf[o]!.includes(this.agentLoc)) {
            add(`slice ${g.objects[o]!.name} with ${g.objects[h]!.name}`, { kind: A.slice, a: o, b: h });
          }
        }
      }
    }
    add("look", LOOK);
    add("inventory", INVENTORY);
    add("help", HELP);
    this.commands = cmds;
    this.sorted = [...cmds.keys()].sort();
  }
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
