/**
 * A seeded generator of ALFWorld-style games in the engine's own representation, so the same
 * engine, text and expert apply unchanged and the embedded defaults need no data. Rooms,
 * receptacles, objects, properties, starting places and compatibility come from the ALFRED
 * catalogue; goals, task sentences and entity ids have the real games' shape (ids are mangled
 * coordinates, so the real numbering rule names them).
 *
 * Splits: `train` and `valid_seen` use the same pool of layouts and the "seen" (object, parent)
 * pairs; `valid_unseen` uses a disjoint pool of layouts and held-out pairs (~20% of the
 * catalogue's pairs, chosen by hash of the world seed). Sizes are configurable: the default
 * room is small (6-10 receptacles, few distractors) for models trained from scratch on a CPU;
 * ask for 15-30 receptacles and 20+ distractors for rooms like the real games.
 *
 * Deliberately not modelled: receptacle-objects with contents, slicing tasks, floor lamps
 * (no real training game uses them).
 */
import { DataError, UsageError } from "../../../core/errors.ts";
import { Rng, deriveSeed } from "../../../core/rng.ts";
import type { TaskSpec } from "../../env.ts";
import { STATE } from "../flags.ts";
import type { AlfGame, GameObject, Receptacle } from "../game.ts";
import type { Formula } from "../goal.ts";
import { demangle } from "../names.ts";
import { learnPriors, type AlfworldPriors } from "../priors.ts";
import { TASK_TYPES, taskSentences, type TaskType } from "../tasks.ts";
import type { Catalog } from "./catalog.ts";
import { ALFRED_OBJECTS } from "./catalog-objects.ts";
import { ALFRED_ROOMS } from "./catalog-rooms.ts";
import { makeLayout, weighted, type Layout } from "./layout.ts";

/** The catalogue counted from the real training games. */
export const ALFRED_CATALOG: Catalog = { ...ALFRED_ROOMS, ...ALFRED_OBJECTS };

/** Splits of generated games. */
export const GENERATED_SPLITS = ["train", "valid_seen", "valid_unseen"] as const;

/** A split of generated games. */
export type GeneratedSplit = (typeof GENERATED_SPLITS)[number];

/** Options of the generator (every field has a default; the defaults are the embedded ones). */
export type AlfworldGenOptions = {
  /** Receptacles per room, inclusive range. @default [6, 10] */
  readonly receptacles?: readonly [number, number];
  /** Objects besides the task's own, inclusive range. @default [2, 5] */
  readonly distractors?: readonly [number, number];
  /** Task types to draw from (uniformly). @default all six */
  readonly taskTypes?: readonly TaskType[];
  /** Seed of the world: layouts and the held-out pairs. @default 0 */
  readonly worldSeed?: number;
  /** Layouts in each pool (seen and unseen). @default 64 */
  readonly layouts?: number;
  /** Catalogue to draw from. @default ALFRED_CATALOG */
  readonly catalog?: Catalog;
};

const UNSEEN_LAYOUT_BASE = 1 << 20;

const APPLIANCES: Partial<Record<TaskType, readonly string[]>> = {
  pick_clean_then_place_in_recep: ["sinkbasin", "sink"],
  pick_heat_then_place_in_recep: ["microwave"],
  pick_cool_then_place_in_recep: ["fridge"],
};

/** True when an (object, parent) pair is held out for the unseen split. */
export function isHeldOutPair(worldSeed: number, object: string, parent: string): boolean {
  return deriveSeed(worldSeed, "alfworld-heldout", object, parent) % 5 === 0;
}

type Combo = { type: TaskType; object: string; parent: string };

function resolve(options: AlfworldGenOptions): Required<AlfworldGenOptions> {
  const o = {
    receptacles: options.receptacles ?? [6, 10],
    distractors: options.distractors ?? [2, 5],
    taskTypes: options.taskTypes ?? TASK_TYPES,
    worldSeed: options.worldSeed ?? 0,
    layouts: options.layouts ?? 64,
    catalog: options.catalog ?? ALFRED_CATALOG,
  } as const;
  const range = (r: readonly [number, number], name: string, min: number): void => {
    if (!(Number.isInteger(r[0]) && Number.isInteger(r[1]) && r[0] >= min && r[1] >= r[0])) {
      throw new UsageError(`alfworld generator: ${name} must be an integer range [lo, hi] with ${min} <= lo <= hi, got [${r.join(", ")}]`);
    }
  };
  range(o.receptacles, "receptacles", 4);
  range(o.distractors, "distractors", 0);
  if (o.taskTypes.length === 0 || o.taskTypes.some((t) => !(TASK_TYPES as readonly string[]).includes(t))) {
    throw new UsageError(`alfworld generator: taskTypes must be a non-empty subset of ${TASK_TYPES.join(", ")}`);
  }
  if (!Number.isInteger(o.layouts) || o.layouts < 1) throw new UsageError("alfworld generator: layouts must be a positive integer");
  return o;
}

/** Whether a receptacle class can start with an object class in it. Lamps are not in `canContain` (they cannot be picked up), so they go where the catalogue saw them. */
function canHold(c: Catalog, rcls: string, ocls: string): boolean {
  if (ocls.includes("lamp")) return (c.placement[ocls]?.[rcls] ?? 0) > 0;
  return c.canContain[rcls]?.includes(ocls) ?? false;
}

/** Pairs of a task type usable in a layout for a split. */
function combosFor(o: Required<AlfworldGenOptions>, type: TaskType, layout: Layout, split: GeneratedSplit): Combo[] {
  const classes = new Set(layout.receptacles.map((r) => r.cls));
  const out: Combo[] = [];
  for (const key of Object.keys(o.catalog.tasks[type] ?? {})) {
    const [object, parent, kind] = key.split(" ") as [string, string, string];
    if (kind !== layout.kind) continue;
    if (isHeldOutPair(o.worldSeed, object, parent) !== (split === "valid_unseen")) continue;
    const app = APPLIANCES[type];
    if (app !== undefined && !app.some((a) => classes.has(a))) continue;
    if (type === "look_at_obj_in_light") {
      if (!layout.receptacles.some((r) => canHold(o.catalog, r.cls, parent))) continue;
    } else if (!layout.receptacles.some((r) => r.cls === parent && canHold(o.catalog, r.cls, object))) continue;
    if (!layout.receptacles.some((r) => r.cls !== parent && canHold(o.catalog, r.cls, object))) continue;
    out.push({ type, object, parent });
  }
  return out.sort((a, b) => (`${a.object} ${a.parent}` < `${b.object} ${b.parent}` ? -1 : 1));
}

function coordId(rng: Rng, used: Set<string>, base: string, suffix = ""): string {
  for (;;) {
    const part = (): string => {
      const v = rng.int(600) - 300;
      const abs = Math.abs(v);
      return `${v < 0 ? "_minus_" : "_plus_"}${String(Math.floor(abs / 100)).padStart(2, "0")}_dot_${String(abs % 100).padStart(2, "0")}`;
    };
    const id = `${base}_bar_${part()}_bar_${part()}_bar_${part()}${suffix}`;
    if (!used.has(id)) { used.add(id); return id; }
  }
}

function goalFor(c: Combo): Formula {
  const at = (pred: string, ...args: string[]): Formula => ({ op: "atom", pred, args });
  const ot = `${c.object}type`, rt = `${c.parent}type`;
  const place = (extra: Formula[]): Formula => ({
    op: "exists", vars: [{ name: "?r", type: "receptacle" }],
    body: { op: "exists", vars: [{ name: "?o", type: "object" }], body: { op: "and", args: [...extra, at("objecttype", "?o", ot), at("receptacletype", "?r", rt), at("inreceptacle", "?o", "?r")] } },
  });
  switch (c.type) {
    case "pick_and_place_simple": return place([]);
    case "pick_clean_then_place_in_recep": return place([at("cleanable", "?o"), at("isclean", "?o")]);
    case "pick_heat_then_place_in_recep": return place([at("heatable", "?o"), at("ishot", "?o")]);
    case "pick_cool_then_place_in_recep": return place([at("coolable", "?o"), at("iscool", "?o")]);
    case "pick_two_obj_and_place": return {
      op: "exists", vars: [{ name: "?r", type: "receptacle" }, { name: "?o1", type: "object" }],
      body: { op: "and", args: [at("objecttype", "?o1", ot), at("receptacletype", "?r", rt), at("inreceptacle", "?o1", "?r"), {
        op: "exists", vars: [{ name: "?o2", type: "object" }],
        body: { op: "and", args: [{ op: "not", arg: at("=", "?o1", "?o2") }, at("objecttype", "?o2", ot), at("inreceptacle", "?o2", "?r")] },
      }] },
    };
    case "look_at_obj_in_light": return { op: "and", args: [
      { op: "exists", vars: [{ name: "?ot", type: "object" }, { name: "?r", type: "receptacle" }, { name: "?a", type: "agent" }, { name: "?l", type: "location" }],
        body: { op: "and", args: [at("objecttype", "?ot", rt), at("toggleable", "?ot"), at("istoggled", "?ot"), at("receptacleatlocation", "?r", "?l"), at("atlocation", "?a", "?l"), at("inreceptacle", "?ot", "?r")] } },
      { op: "exists", vars: [{ name: "?o", type: "object" }, { name: "?a", type: "agent" }], body: { op: "and", args: [at("objecttype", "?o", ot), at("holds", "?a", "?o")] } },
    ] };
  }
}

/**
 * Generate one game.
 * @param index task index within the split (any non-negative integer)
 * @param seed  generator seed (tasks of different seeds differ)
 * @throws UsageError for bad options; DataError if no layout of the pool can host any task
 */
export function generateGame(split: GeneratedSplit, index: number, seed: number, options: AlfworldGenOptions = {}): AlfGame {
  const o = resolve(options);
  const rng = Rng.from(deriveSeed(seed, "alfworld-gen", split, index));
  const type = rng.choice(o.taskTypes);
  const base = split === "valid_unseen" ? UNSEEN_LAYOUT_BASE : 0;
  const first = rng.int(o.layouts);
  for (let k = 0; k < o.layouts; k++) {
    const layout = makeLayout(o.catalog, o.worldSeed, base + ((first + k) % o.layouts), o.receptacles);
    const combos = combosFor(o, type, layout, split);
    if (combos.length === 0) continue;
    const combo = weighted(rng, combos.map((c) => [c, o.catalog.tasks[type][`${c.object} ${c.parent} ${layout.kind}`] ?? 1] as const));
    return buildGame(o, layout, combo, rng, `generated/${seed}/${split}/${index}`);
  }
  throw new DataError(`alfworld generator: no ${split} layout with ${o.receptacles.join("-")} receptacles can host a ${type} task; enlarge the receptacle range or the layout pool`);
}

function buildGame(o: Required<AlfworldGenOptions>, layout: Layout, combo: Combo, rng: Rng, id: string): AlfGame {
  const c = o.catalog;
  const used = new Set<string>();
  // Receptacle ids depend on the layout only, so every game in the same room has the same
  // receptacles (as ALFRED's trials of one floor plan do); objects vary per game.
  const roomRng = Rng.from(deriveSeed(o.worldSeed, "alfworld-room-ids", layout.id, layout.receptacles.length));
  const spots = [...new Set(layout.receptacles.map((r) => r.spot))].sort((a, b) => a - b);
  const locOf = new Map(spots.map((s, i) => [s, i + 1]));
  const recDrafts = layout.receptacles.map((r) => ({
    id: r.cls.endsWith("basin") ? coordId(roomRng, used, r.cls.slice(0, -5), `_bar_${r.cls}`) : coordId(roomRng, used, r.cls),
    cls: r.cls, openable: r.openable, location: locOf.get(r.spot)!,
  }));
  type ObjDraft = { id: string; cls: string; rec: number };
  const objDrafts: ObjDraft[] = [];
  const place = (cls: string, avoid: string | undefined): void => {
    const options = recDrafts.map((r, i) => [i, r] as const).filter(([, r]) => r.cls !== avoid && canHold(c, r.cls, cls));
    if (options.length === 0) return;
    const w = options.map(([i, r]) => [i, (c.placement[cls]?.[r.cls] ?? 0) + 0.05] as const);
    objDrafts.push({ id: coordId(rng, used, cls), cls, rec: weighted(rng, w) });
  };
  const n = combo.type === "pick_two_obj_and_place" ? 2 + rng.int(2) : 1 + rng.int(2);
  for (let i = 0; i < n; i++) place(combo.object, combo.parent);
  if (combo.type === "look_at_obj_in_light") place(combo.parent, undefined);
  const kindObjects = Object.entries(c.kinds[layout.kind].objects)
    .filter(([cls]) => cls !== combo.object && !cls.includes("lamp") && ((c.props[cls] ?? 0) & 1) !== 0)
    .map(([cls, [, instances]]) => [cls, instances] as const);
  const d = o.distractors[0] + rng.int(o.distractors[1] - o.distractors[0] + 1);
  for (let i = 0; i < d && kindObjects.length > 0; i++) place(weighted(rng, kindObjects), undefined);

  const agentLoc = "loc_bar_0";
  const locIds = [agentLoc, ...spots.map((_s, i) => `loc_bar_${i + 1}`)];
  const names = demangle([...recDrafts.map((r) => r.id), ...objDrafts.map((x) => x.id), ...locIds, "agent1"]);
  const recOrder = recDrafts.map((_r, i) => i).sort((a, b) => (recDrafts[a]!.id < recDrafts[b]!.id ? -1 : 1));
  const recIndex = new Map(recOrder.map((i, k) => [i, k]));
  const receptacles: Receptacle[] = recOrder.map((i) => {
    const r = recDrafts[i]!;
    return { id: r.id, name: names.get(r.id)!, type: `${r.cls}type`, location: r.location, openable: r.openable, opened: false };
  });
  const objects: GameObject[] = [...objDrafts].sort((a, b) => (a.id < b.id ? -1 : 1)).map((x) => {
    const rec = recIndex.get(x.rec)!;
    const inFridge = recDrafts[x.rec]!.cls === "fridge";
    return {
      id: x.id, name: names.get(x.id)!, type: `${x.cls}type`, props: c.props[x.cls] ?? 1, state: inFridge ? STATE.cool : 0,
      receptacles: [rec], locations: [receptacles[rec]!.location], inside: [],
    };
  });
  const canContain = new Set<string>();
  const rclasses = new Set(recDrafts.map((r) => r.cls)), oclasses = new Set(objDrafts.map((x) => x.cls));
  for (const r of rclasses) for (const oc of c.canContain[r] ?? []) if (oclasses.has(oc)) canContain.add(`${r}type ${oc}type`);
  const [s0, s1] = taskSentences(combo.type, combo.object, combo.parent);
  return {
    id, taskType: combo.type, task: rng.bernoulli(0.5) ? s0 : s1,
    receptacles, objects, locationCount: locIds.length, agentStart: 0, canContain, goal: goalFor(combo),
  };
}

/**
 * `count` generated tasks of a split (payload: the game itself), ids `generated/<seed>/<split>/<i>`.
 * @example alfworldGeneratedTasks("train", 256, { seed: 1 })
 */
export function alfworldGeneratedTasks(split: GeneratedSplit, count: number, options: AlfworldGenOptions & { seed?: number } = {}): TaskSpec[] {
  if (!(GENERATED_SPLITS as readonly string[]).includes(split)) {
    throw new UsageError(`generated alfworld has no split '${split}' (one of ${GENERATED_SPLITS.join(", ")})`);
  }
  if (!Number.isInteger(count) || count < 0) throw new UsageError(`task count must be a non-negative integer, got ${count}`);
  const seed = options.seed ?? 0;
  return Array.from({ length: count }, (_x, i) => {
    const game = generateGame(split, i, seed, options);
    return { id: game.id, split, payload: { game } };
  });
}

const priorCache = new Map<string, AlfworldPriors>();

/**
 * Class priors for the expert on generated games: learned from 256 generated training games
 * of the same options (cached per options), the generated counterpart of ALFWORLD_TRAIN_PRIORS.
 */
export function generatedPriors(options: AlfworldGenOptions = {}): AlfworldPriors {
  const key = JSON.stringify({ ...options, catalog: options.catalog === undefined ? "alfred" : "custom" });
  let p = options.catalog === undefined ? priorCache.get(key) : undefined;
  if (p === undefined) {
    p = learnPriors(Array.from({ length: 256 }, (_x, i) => generateGame("train", i, 0x9e3779b9, options)));
    if (options.catalog === undefined) priorCache.set(key, p);
  }
  return p;
}
