/**
 * A hand-coded ALFWorld expert that sees only what an agent sees: the task sentence, the room
 * list of the reset text, every feedback text and the admissible list, plus class priors
 * learned from training games (`priors.ts`). It never reads the walkthrough or the game's
 * hidden state, so its demonstrations are imitable by a student.
 *
 * Subgoal machine per task type (after ALFWorld's `agents/expert/handcoded_expert_tw.py`):
 * find the object (known locations first, then unexplored receptacles ranked by prior per
 * step), take it, [heat/cool/clean it at an appliance], find a receptacle of the target class,
 * open it if needed, move the object there; Look: find and take the object, then find the lamp
 * and use it; Pick2: place one, then a second one into the same receptacle. Beliefs come from
 * the observation texts only, so the expert recovers after random actions it never chose (the
 * noisy-expert mode).
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { Observation, TaskSpec } from "../env.ts";
import { NoisyExpert, type Expert, type RandomAction } from "../expert.ts";
import { ALFWORLD_TRAIN_PRIORS } from "./priors-table.ts";
import { classOf, containProbability, openableShare, type AlfworldPriors } from "./priors.ts";
import type { TaskType } from "./tasks.ts";
import { BANNER } from "./text.ts";

/** What the task sentence asks. */
export type ParsedTask = {
  readonly type: TaskType;
  /** Object class (`apple`). */
  readonly object: string;
  /** Receptacle class to place into, or the lamp class for Look tasks. */
  readonly target: string;
};

const TASK_PATTERNS: readonly [RegExp, TaskType][] = [
  [/^put a clean (\S+) in (\S+)\.$/, "pick_clean_then_place_in_recep"],
  [/^clean some (\S+) and put it in (\S+)\.$/, "pick_clean_then_place_in_recep"],
  [/^put a hot (\S+) in (\S+)\.$/, "pick_heat_then_place_in_recep"],
  [/^heat some (\S+) and put it in (\S+)\.$/, "pick_heat_then_place_in_recep"],
  [/^put a cool (\S+) in (\S+)\.$/, "pick_cool_then_place_in_recep"],
  [/^cool some (\S+) and put it in (\S+)\.$/, "pick_cool_then_place_in_recep"],
  [/^put two (\S+) in (\S+)\.$/, "pick_two_obj_and_place"],
  [/^find two (\S+) and put them in (\S+)\.$/, "pick_two_obj_and_place"],
  [/^look at (\S+) under the (\S+)\.$/, "look_at_obj_in_light"],
  [/^examine the (\S+) with the (\S+)\.$/, "look_at_obj_in_light"],
  [/^put a (\S+) in (\S+)\.$/, "pick_and_place_simple"],
  [/^put some (\S+) on (\S+)\.$/, "pick_and_place_simple"],
];

/** Read a task sentence (`put some book on sidetable.`); undefined if it matches no template. */
export function parseTaskSentence(task: string): ParsedTask | undefined {
  for (const [re, type] of TASK_PATTERNS) {
    const m = re.exec(task.trim());
    if (m !== null) return { type, object: m[1]!, target: m[2]! };
  }
  return undefined;
}

/** Split a rendered list (`a x 1, a y 2, and a z 1` / `nothing`) into names without articles. */
export function parseList(text: string): string[] {
  if (text === "nothing") return [];
  return text.split(/, (?:and )?/).map((s) => s.replace(/^and /, "").replace(/^a /, ""));
}

const APPLIANCE: Partial<Record<TaskType, { verb: string; classes: readonly string[]; flag: string }>> = {
  pick_clean_then_place_in_recep: { verb: "clean", classes: ["sinkbasin", "sink"], flag: "clean" },
  pick_heat_then_place_in_recep: { verb: "heat", classes: ["microwave"], flag: "hot" },
  pick_cool_then_place_in_recep: { verb: "cool", classes: ["fridge"], flag: "cool" },
};

/** Options of the expert. */
export type AlfworldExpertOptions = {
  /** Class priors for the search. @default ALFWORLD_TRAIN_PRIORS (the real training games) */
  readonly priors?: AlfworldPriors;
};

/**
 * The searching expert for one episode. Feed it every observation in order (the reset one
 * first); it returns the next command.
 */
export class AlfworldExpert implements Expert {
  private readonly priors: AlfworldPriors;
  private task: ParsedTask | undefined;
  private receptacles: string[] = [];
  /** Known contents per receptacle (object names). */
  private readonly contents = new Map<string, Set<string>>();
  /** Receptacles whose full contents have been seen. */
  private readonly seen = new Set<string>();
  private readonly closed = new Set<string>();
  private here = new Set<string>();
  private held: string | undefined;
  private heldFrom: string | undefined;
  private readonly done = new Map<string, Set<string>>();
  private readonly lamps = new Map<string, string>();

  constructor(options: AlfworldExpertOptions = {}) {
    this.priors = options.priors ?? ALFWORLD_TRAIN_PRIORS;
  }

  act(obs: Observation): string {
    this.observe(obs);
    const admissible = new Set(obs.admissible ?? []);
    const action = this.plan(admissible) ?? "look";
    if (admissible.has(action)) this.expect(action);
    return action;
  }

  /**
   * Follows a command someone else chose at `obs` (a replayed trajectory): read the observation as
   * `act` does, then believe that command's effect instead of our own plan's.
   */
  follow(obs: Observation, action: string): void {
    this.observe(obs);
    if ((obs.admissible ?? []).includes(action)) this.expect(action);
  }

  /**
   * Believe the effect of our own admissible command now: the episode runs it, and its feedback
   * may never reach us (the noisy wrapper skips `act` on its random turns, so the observation
   * after our command can be the one we never see).
   */
  private expect(action: string): void {
    let m: RegExpExecArray | null;
    if ((m = /^take (.+) from (.+)$/.exec(action)) !== null) {
      this.held = m[1]!; this.heldFrom = m[2]!;
      this.contentsOf(m[2]!).delete(m[1]!);
    } else if ((m = /^move (.+) to (.+)$/.exec(action)) !== null) {
      this.held = undefined;
      this.contentsOf(m[2]!).add(m[1]!);
    } else if ((m = /^(heat|cool|clean) (.+) with (.+)$/.exec(action)) !== null) {
      this.markDone(m[2]!, m[1] === "heat" ? "hot" : m[1] === "cool" ? "cool" : "clean");
    }
  }

  private markDone(object: string, flag: string): void {
    let s = this.done.get(object);
    if (s === undefined) this.done.set(object, (s = new Set()));
    if (flag === "hot") s.delete("cool");
    if (flag === "cool") s.delete("hot");
    s.add(flag);
  }

  // ---- beliefs -------------------------------------------------------------------------------

  private observe(obs: Observation): void {
    const text = obs.text;
    if (text.startsWith(BANNER)) this.start(obs);
    else this.readFeedback(text);
    const admissible = obs.admissible ?? [];
    // The noisy wrapper may hide any observation, the reset one included: recover the task and
    // the room from what every observation carries.
    this.task ??= parseTaskSentence(obs.task);
    if (this.receptacles.length === 0) this.receptacles = admissible.filter((a) => a.startsWith("go to ")).map((a) => a.slice(6));
    const recs = new Set(this.receptacles);
    this.here = new Set(admissible.filter((a) => a.startsWith("examine ") && recs.has(a.slice(8))).map((a) => a.slice(8)));
    let sawTake = false, holding: string | undefined;
    for (const a of admissible) {
      let m = /^take (.+) from (.+)$/.exec(a);
      if (m !== null) { sawTake = true; this.contentsOf(m[2]!).add(m[1]!); continue; }
      m = /^(?:move (.+) to |(?:heat|cool|clean) (.+) with )/.exec(a);
      if (m !== null) holding = m[1] ?? m[2];
      m = /^use (.+)$/.exec(a);
      if (m !== null && this.task !== undefined && classOf(m[1]!) === this.task.target && !this.lamps.has(m[1]!)) {
        // The lamp is in one of the receptacles here; going to any of them makes `use` admissible.
        const r = [...this.here][0];
        if (r !== undefined) this.lamps.set(m[1]!, r);
      }
    }
    if (sawTake) this.held = undefined;
    else if (holding !== undefined) this.held = holding;
    // A held object can always be examined: without `examine h` we hold nothing (or something else).
    else if (this.held !== undefined && admissible.length > 0 && !admissible.includes(`examine ${this.held}`)) this.held = undefined;
  }

  private start(obs: Observation): void {
    this.task = parseTaskSentence(obs.task);
    const m = /you see (.*)\.\n\n/.exec(obs.text);
    this.receptacles = m === null ? [] : parseList(m[1]!);
    this.contents.clear(); this.seen.clear(); this.closed.clear(); this.done.clear(); this.lamps.clear();
    this.held = undefined; this.heldFrom = undefined;
  }

  private contentsOf(r: string): Set<string> {
    let s = this.contents.get(r);
    if (s === undefined) this.contents.set(r, (s = new Set()));
    return s;
  }

  /** Record E(r) text: `The r is open. In it, you see L.` / `The r is closed.` / `On the r, you see L.` */
  private readReceptacle(text: string): void {
    let m = /^The (.+) is open\. In it, you see (.*)\.$/.exec(text) ?? /^On the (.+?), you see (.*)\.$/.exec(text);
    if (m !== null) {
      const r = m[1]!;
      this.closed.delete(r);
      this.seen.add(r);
      this.contents.set(r, new Set(parseList(m[2]!)));
      for (const o of this.contents.get(r)!) if (this.task !== undefined && classOf(o) === this.task.target) this.lamps.set(o, r);
      return;
    }
    m = /^The (.+) is closed\.$/.exec(text);
    if (m !== null) this.closed.add(m[1]!);
  }

  private readFeedback(text: string): void {
    let m: RegExpExecArray | null;
    if ((m = /^You arrive at (.+?)\. (.*)$/s.exec(text)) !== null) { this.readReceptacle(m[2]!); return; }
    if ((m = /^You open the (.+?)\. (.*)$/s.exec(text)) !== null) { this.readReceptacle(m[2]!); return; }
    if ((m = /^You close the (.+)\.$/.exec(text)) !== null) { this.closed.add(m[1]!); return; }
    if ((m = /^You pick up the (.+) from the (.+)\.$/.exec(text)) !== null) {
      this.held = m[1]!; this.heldFrom = m[2]!;
      this.contentsOf(m[2]!).delete(m[1]!);
      return;
    }
    if ((m = /^You move the (.+) to the (.+)\.$/.exec(text)) !== null) {
      this.held = undefined;
      this.contentsOf(m[2]!).add(m[1]!);
      return;
    }
    if ((m = /^You (heat|cool|clean) the (.+) using the (.+)\.$/.exec(text)) !== null) {
      this.markDone(m[2]!, m[1] === "heat" ? "hot" : m[1] === "cool" ? "cool" : "clean");
      return;
    }
    if ((m = /^You are carrying: a (.+)\.$/.exec(text)) !== null) { this.held = m[1]!; return; }
    if (text === "You are not carrying anything.") { this.held = undefined; return; }
    this.readReceptacle(text);
  }

  // ---- planning ------------------------------------------------------------------------------

  private plan(adm: ReadonlySet<string>): string | undefined {
    const task = this.task;
    if (task === undefined) return undefined;
    const h = this.held;
    if (h !== undefined) {
      if (classOf(h) !== task.object) return this.putAway(h, adm);
      if (task.type === "look_at_obj_in_light") return this.useLamp(adm);
      const app = APPLIANCE[task.type];
      if (app !== undefined && !(this.done.get(h)?.has(app.flag) ?? false)) return this.transform(h, app, adm);
      return this.place(h, adm);
    }
    return this.fetch(adm);
  }

  /** The receptacle (of the target class) a Pick2 game is filling: one already holding an object of the class. */
  private pick2Target(): string | undefined {
    const task = this.task!;
    if (task.type !== "pick_two_obj_and_place") return undefined;
    for (const r of this.receptacles) {
      if (classOf(r) !== task.target) continue;
      for (const o of this.contents.get(r) ?? []) if (classOf(o) === task.object) return r;
    }
    return undefined;
  }

  private fetch(adm: ReadonlySet<string>): string | undefined {
    const task = this.task!;
    const avoid = this.pick2Target();
    const wanted = (o: string, r: string): boolean => classOf(o) === task.object && r !== avoid;
    for (const a of adm) {
      const m = /^take (.+) from (.+)$/.exec(a);
      if (m !== null && wanted(m[1]!, m[2]!)) return a;
    }
    for (const r of this.receptacles) {
      for (const o of this.contents.get(r) ?? []) if (wanted(o, r)) return this.reach(r, `take ${o} from ${r}`, adm);
    }
    return this.explore(task.object, adm, avoid);
  }

  private useLamp(adm: ReadonlySet<string>): string | undefined {
    const task = this.task!;
    for (const a of adm) if (a.startsWith("use ") && classOf(a.slice(4)) === task.target) return a;
    for (const [, r] of this.lamps) return `go to ${r}`;
    return this.explore(task.target, adm, undefined);
  }

  private transform(h: string, app: { verb: string; classes: readonly string[] }, adm: ReadonlySet<string>): string | undefined {
    for (const a of adm) if (a.startsWith(`${app.verb} ${h} with `)) return a;
    const r = this.receptacles.find((x) => app.classes.includes(classOf(x)));
    return r === undefined ? undefined : `go to ${r}`;
  }

  private place(h: string, adm: ReadonlySet<string>): string | undefined {
    const task = this.task!;
    const fixed = this.pick2Target();
    const candidates = fixed !== undefined ? [fixed] : this.receptacles.filter((r) => classOf(r) === task.target);
    // Prefer a receptacle here, then one not known to be closed.
    const rank = (r: string): number => (this.here.has(r) ? 0 : 2) + (this.closed.has(r) ? 1 : 0);
    const ranked = [...candidates].sort((a, b) => rank(a) - rank(b));
    for (const r of ranked) {
      if (adm.has(`move ${h} to ${r}`)) return `move ${h} to ${r}`;
      if (this.here.has(r) && adm.has(`open ${r}`)) return `open ${r}`;
      if (!this.here.has(r)) return `go to ${r}`;
    }
    return undefined;
  }

  private putAway(h: string, adm: ReadonlySet<string>): string | undefined {
    for (const a of [...adm].sort()) if (a.startsWith(`move ${h} to `)) return a;
    if (this.heldFrom !== undefined) {
      if (this.here.has(this.heldFrom) && adm.has(`open ${this.heldFrom}`)) return `open ${this.heldFrom}`;
      if (!this.here.has(this.heldFrom)) return `go to ${this.heldFrom}`;
    }
    const r = this.receptacles.find((x) => !this.here.has(x));
    return r === undefined ? undefined : `go to ${r}`;
  }

  /** Go to receptacle `r` (or open it) until `command` is admissible, then do it. */
  private reach(r: string, command: string, adm: ReadonlySet<string>): string {
    if (adm.has(command)) return command;
    if (this.here.has(r) && adm.has(`open ${r}`)) return `open ${r}`;
    return `go to ${r}`;
  }

  /** The unexplored receptacle with the best prior per expected step, and the step toward it. */
  private explore(objectClass: string, adm: ReadonlySet<string>, avoid: string | undefined): string | undefined {
    const counts = new Map<string, number>();
    for (const r of this.receptacles) counts.set(classOf(r), (counts.get(classOf(r)) ?? 0) + 1);
    let best: string | undefined, bestScore = -1;
    for (const r of this.receptacles) {
      if (this.seen.has(r) || r === avoid) continue;
      const k = classOf(r);
      const p = containProbability(this.priors, objectClass, k) / counts.get(k)!;
      const here = this.here.has(r);
      const cost = here ? (this.closed.has(r) ? 1 : 0.5) : 1 + (this.closed.has(r) ? 1 : openableShare(this.priors, k));
      const score = p / cost;
      if (score > bestScore) { bestScore = score; best = r; }
    }
    if (best === undefined) return undefined;
    if (this.here.has(best)) {
      if (adm.has(`open ${best}`)) return `open ${best}`;
      if (adm.has(`examine ${best}`)) return `examine ${best}`;
    }
    return `go to ${best}`;
  }
}

/** Options of the noisy expert. */
export type AlfworldNoisyExpertOptions = AlfworldExpertOptions & {
  /** Probability of a random admissible action (never `help`). */
  readonly epsilon: number;
};

/**
 * The noisy expert: with probability epsilon a uniformly random admissible action other than
 * `help`, else the expert's. Seeded from (seed, task id), so episodes are reproducible.
 */
export function alfworldNoisyExpert(task: TaskSpec, seed: number, options: AlfworldNoisyExpertOptions): NoisyExpert {
  return new NoisyExpert(new AlfworldExpert(options), {
    epsilon: options.epsilon,
    rng: Rng.from(deriveSeed(seed, "alfworld-noisy-expert", task.id)),
    randomAction: alfworldRandomAction,
  });
}

/** A uniformly random admissible command other than `help` (what an agent's prompt lists). */
export const alfworldRandomAction: RandomAction = (obs, rng) => {
  const choices = (obs.admissible ?? []).filter((a) => a !== "help");
  return choices.length > 0 ? rng.choice(choices) : "look";
};
