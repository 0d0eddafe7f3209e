/**
 * The environment registry: every benchmark by name, with one way to build its environment, its
 * tasks, its expert and its random action. Generated worlds are the default (the embedded
 * defaults never need benchmark data); `dataPath` switches an environment to the real files.
 * Environment and tasks built with the same options share one world (shop, knowledge base), built
 * once per process.
 *
 * Adding an environment is one entry in `REGISTRY`, from the module's `index.ts`.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DataError, UsageError } from "../core/errors.ts";
import { Rng, deriveSeed } from "../core/rng.ts";
import type { Env, TaskSpec } from "./env.ts";
import { NoisyExpert, randomAdmissible, type Expert, type ExpertFactory, type RandomAction } from "./expert.ts";
import {
  alfworldExpertFactory, alfworldGeneratedTasks, alfworldTasks, GENERATED_SPLITS, makeAlfworldEnv, type GeneratedSplit,
} from "./alfworld/index.ts";
import { EzPointsEnv, ezpointsExpert, ezpointsRandomAction } from "./ezpoints/index.ts";
import {
  Bm25Retriever, loadCorpus, loadQaSet, makeSearchEnv, RemoteRetriever, searchExpert, searchRandomAction, syntheticSearchTasks, type Retriever,
} from "./search/index.ts";
import { seedTasks } from "./seed-tasks.ts";
import { SokobanEnv, sokobanExpert } from "./sokoban/index.ts";
import { generatedShop, realShop, WebShopEnv, webshopExpert, webshopRandomAction, type Shop } from "./webshop/index.ts";

/** The benchmarks, in the paper's order. */
export const ENV_NAMES = ["alfworld", "webshop", "search", "sokoban", "ezpoints"] as const;

/** A benchmark name. */
export type EnvName = (typeof ENV_NAMES)[number];

/**
 * Options of `makeEnv` and `taskSource`. Each environment accepts the keys its entry lists in
 * `options` and rejects the others (a `UsageError` naming them).
 */
export type EnvOptions = {
  /** Seed of a generated world (WebShop shop, Search-QA knowledge base). @default 0 */
  readonly seed?: number;
  /**
   * Real benchmark data instead of the generated world: ALFWorld's root (holding
   * `json_2.1.1/<split>/...`; splits `train`, `valid_seen`, `valid_unseen`); WebShop's folder
   * (holding `items_shuffle_1000.json`, optionally `items_human_ins.json`); Search-QA's folder of question
   * sets (the split is the dataset name, `nq`, `hotpotqa`, ...; the environment then searches the
   * folder's `wiki*.jsonl` corpus unless `corpus` or `retrieverUrl` is given) or one file.
   */
  readonly dataPath?: string;
  /** Search-QA: a Search-R1 JSONL corpus to search with BM25 instead of the generated one. */
  readonly corpus?: string;
  /** Search-QA: a `/retrieve` endpoint to search instead (await `env.prepare` before `step`). */
  readonly retrieverUrl?: string;
  /** Step limit instead of the protocol's. */
  readonly maxSteps?: number;
  /** Sokoban room height, width and boxes. @default 6, 6, 1 */
  readonly rows?: number;
  readonly cols?: number;
  readonly boxes?: number;
};

/** Options of `taskSource`: the world's options plus how many tasks. */
export type TaskSourceOptions = EnvOptions & {
  /** The first `count` tasks of the split (seed-generated splits: how many seeds to draw). */
  readonly count?: number;
};

/** What the registry knows about one environment. */
export type EnvEntry = {
  readonly name: EnvName;
  readonly description: string;
  /** Option keys this environment accepts. */
  readonly options: readonly (keyof TaskSourceOptions)[];
  /** Splits of the generated tasks (real data may name others). */
  readonly splits: readonly string[];
  /** The split(s) evaluation uses by default. */
  readonly evalSplits: readonly string[];
  makeEnv(options: EnvOptions): Env;
  tasks(split: string, options: TaskSourceOptions): TaskSpec[];
  readonly expert: ExpertFactory;
  readonly randomAction: RandomAction;
};

/**
 * An entry of an environment whose module is not in this build (kept so a partial build still
 * lists every benchmark and says what is missing).
 */
type Missing = { readonly name: EnvName; readonly missing: string };

const shops = new Map<string, Shop>();

function webshopShop(o: EnvOptions): Shop {
  const key = o.dataPath === undefined ? `generated:${o.seed ?? 0}` : `real:${o.dataPath}:${o.seed ?? 0}`;
  let shop = shops.get(key);
  if (shop === undefined) {
    if (o.dataPath === undefined) {
      shop = generatedShop({ seed: o.seed ?? 0 });
    } else {
      const catalog = join(o.dataPath, "items_shuffle_1000.json");
      if (!existsSync(catalog)) throw new DataError(`no WebShop catalogue at ${catalog}`);
      const human = join(o.dataPath, "items_human_ins.json");
      shop = realShop({ catalog, seed: o.seed ?? 0, ...(existsSync(human) ? { humanInstructions: human } : {}) });
    }
    shops.set(key, shop);
  }
  return shop;
}

/** A question-set file of a folder for a split (`nq` finds `nq_test.json`), or the path itself. */
function qaFile(dataPath: string, split: string): string {
  if (existsSync(dataPath) && statSync(dataPath).isFile()) return dataPath;
  const files = existsSync(dataPath) ? readdirSync(dataPath).filter((f) => /\.jsonl?$/.test(f) && !f.startsWith("wiki18")) : [];
  const match = files.find((f) => f.replace(/\.jsonl?$/, "") === split) ?? files.find((f) => f.startsWith(`${split}_`));
  if (match === undefined) {
    const names = files.map((f) => f.replace(/_(test|dev|train|sample\d*)?\.jsonl?$/, "").replace(/\.jsonl?$/, ""));
    throw new UsageError(`no question set '${split}' in ${dataPath} (found: ${names.join(", ") || "nothing"})`);
  }
  return join(dataPath, match);
}

// One retriever per corpus file or URL: rollouts build an environment per episode, and the
// episodes of a batch must share one HTTP client for their prefetches to be coalesced.
const retrievers = new Map<string, Retriever>();

/**
 * The retriever of Search-QA options: a remote endpoint, a corpus file, the wiki-18 sample of a
 * data folder, or undefined for the generated knowledge base.
 */
function searchRetriever(o: EnvOptions): Retriever | undefined {
  if (o.corpus !== undefined && o.retrieverUrl !== undefined) throw new UsageError("give corpus or retrieverUrl, not both");
  let corpus = o.corpus;
  if (corpus === undefined && o.retrieverUrl === undefined && o.dataPath !== undefined && existsSync(o.dataPath) && statSync(o.dataPath).isDirectory()) {
    const wiki = readdirSync(o.dataPath).filter((f) => f.startsWith("wiki") && f.endsWith(".jsonl")).sort()[0];
    if (wiki !== undefined) corpus = join(o.dataPath, wiki);
  }
  const key = o.retrieverUrl !== undefined ? `url:${o.retrieverUrl}` : corpus !== undefined ? `corpus:${corpus}` : undefined;
  if (key === undefined) return undefined;
  let r = retrievers.get(key);
  if (r === undefined) {
    r = o.retrieverUrl !== undefined ? new RemoteRetriever(o.retrieverUrl) : new Bm25Retriever(loadCorpus(corpus!));
    retrievers.set(key, r);
  }
  return r;
}

function limit(tasks: TaskSpec[], count: number | undefined): TaskSpec[] {
  return count === undefined ? tasks : tasks.slice(0, count);
}

/**
 * Default sizes of generated ALFWorld splits: the real evaluation splits' sizes (140, 134) and a
 * training pool of 1,000 games (the generator is unbounded, and generating the real train size,
 * 3,553, takes seconds; pass `count` for more).
 */
const ALFWORLD_GENERATED_COUNTS: Readonly<Record<GeneratedSplit, number>> = { train: 1000, valid_seen: 140, valid_unseen: 134 };

function generatedSplit(split: string): GeneratedSplit {
  if (!(GENERATED_SPLITS as readonly string[]).includes(split)) {
    throw new UsageError(`generated alfworld has no split '${split}' (one of ${GENERATED_SPLITS.join(", ")})`);
  }
  return split as GeneratedSplit;
}

/** Default number of seed tasks: the 128 validation seeds of §1.2, the whole training range. */
function seedCount(split: string, count: number | undefined): number {
  return count ?? (split === "train" ? 2 ** 16 : 128);
}

const maxSteps = (o: EnvOptions) => (o.maxSteps === undefined ? {} : { maxSteps: o.maxSteps });

/** Every environment. */
export const REGISTRY: Readonly<Record<EnvName, EnvEntry | Missing>> = {
  alfworld: {
    name: "alfworld",
    description: "ALFWorld (TextWorld-PDDL household games): real game files with dataPath, generated games otherwise",
    options: ["seed", "dataPath", "maxSteps", "count"],
    splits: [...GENERATED_SPLITS],
    evalSplits: ["valid_seen", "valid_unseen"],
    makeEnv: (o) => makeAlfworldEnv(maxSteps(o)),
    tasks: (split, o) => o.dataPath !== undefined
      ? limit(alfworldTasks(o.dataPath, split), o.count)
      : alfworldGeneratedTasks(generatedSplit(split), o.count ?? ALFWORLD_GENERATED_COUNTS[generatedSplit(split)], { seed: o.seed ?? 0 }),
    expert: alfworldExpertFactory(),
    randomAction: randomAdmissible,
  },
  webshop: {
    name: "webshop",
    description: "WebShop text mode: search, results, item pages, Buy Now; reward from type/attribute/option/price match",
    options: ["seed", "dataPath", "maxSteps", "count"],
    splits: ["train", "test", "all"],
    evalSplits: ["test"],
    makeEnv: (o) => new WebShopEnv(webshopShop(o), maxSteps(o)),
    tasks: (split, o) => webshopShop(o).tasks(split, o.count),
    expert: webshopExpert,
    randomAction: webshopRandomAction,
  },
  search: {
    name: "search",
    description: "Search-QA (Search-R1 protocol, verl-agent turns): <search> returns top-3 passages, <answer> scores EM",
    options: ["seed", "dataPath", "corpus", "retrieverUrl", "maxSteps", "count"],
    splits: ["train", "test"],
    evalSplits: ["test"],
    makeEnv: (o) => {
      const retriever = searchRetriever(o);
      return makeSearchEnv({ seed: o.seed ?? 0, ...(retriever ? { retriever } : {}), ...(o.maxSteps === undefined ? {} : { maxTurns: o.maxSteps }) });
    },
    tasks: (split, o) => o.dataPath === undefined
      ? syntheticSearchTasks(split, { seed: o.seed ?? 0, ...(o.count === undefined ? {} : { count: o.count }) })
      : limit(loadQaSet(qaFile(o.dataPath, split), { split }), o.count),
    expert: searchExpert,
    randomAction: searchRandomAction,
  },
  sokoban: {
    name: "sokoban",
    description: "Sokoban 6x6, one box (gym-sokoban dynamics and rewards, verl-agent text grid)",
    options: ["seed", "maxSteps", "rows", "cols", "boxes", "count"],
    splits: ["train", "validation"],
    evalSplits: ["validation"],
    makeEnv: (o) => new SokobanEnv({
      ...maxSteps(o), ...(o.rows === undefined ? {} : { rows: o.rows }), ...(o.cols === undefined ? {} : { cols: o.cols }), ...(o.boxes === undefined ? {} : { boxes: o.boxes }),
    }),
    tasks: (split, o) => seedTasks("sokoban", split, seedCount(split, o.count), o.seed ?? 0),
    expert: sokobanExpert,
    randomAction: randomAdmissible,
  },
  ezpoints: {
    name: "ezpoints",
    description: "EZPoints (gym-cards, text port): build a formula equal to 12 from two cards, one token per step",
    options: ["seed", "maxSteps", "count"],
    splits: ["train", "validation"],
    evalSplits: ["validation"],
    makeEnv: (o) => new EzPointsEnv(maxSteps(o)),
    tasks: (split, o) => seedTasks("ezpoints", split, seedCount(split, o.count), o.seed ?? 0),
    expert: ezpointsExpert,
    randomAction: ezpointsRandomAction,
  },
};

/** Whether a string names a benchmark. */
export function isEnvName(name: string): name is EnvName {
  return (ENV_NAMES as readonly string[]).includes(name);
}

/** The registry entry of an environment, or a `UsageError` listing the valid names. */
export function envEntry(name: string): EnvEntry {
  if (!isEnvName(name)) throw new UsageError(`unknown environment '${name}' (one of ${ENV_NAMES.join(", ")})`);
  const entry = REGISTRY[name];
  if ("missing" in entry) throw new UsageError(`environment '${name}' is not available: ${entry.missing}`);
  return entry;
}

/** Names of the environments available in this build. */
export function availableEnvs(): EnvName[] {
  return ENV_NAMES.filter((n) => !("missing" in REGISTRY[n]));
}

function checkOptions(entry: EnvEntry, options: object): void {
  const unknown = Object.keys(options).filter((k) => (options as Record<string, unknown>)[k] !== undefined && !(entry.options as readonly string[]).includes(k));
  if (unknown.length > 0) throw new UsageError(`${entry.name} does not take option(s) ${unknown.join(", ")} (it takes ${entry.options.join(", ")})`);
}

/**
 * A new environment instance.
 * @example
 * const env = makeEnv("sokoban");
 * const [task] = taskSource("sokoban", "validation", { count: 1 });
 * env.reset(task!, 0);
 */
export function makeEnv(name: string, options: EnvOptions = {}): Env {
  const entry = envEntry(name);
  checkOptions(entry, options);
  return entry.makeEnv(options);
}

/**
 * The tasks of a split: generated by default, from the real files when `dataPath` is given.
 * @example taskSource("search", "nq", { dataPath: "../shared/data/search-qa", count: 100 })
 */
export function taskSource(name: string, split: string, options: TaskSourceOptions = {}): TaskSpec[] {
  const entry = envEntry(name);
  checkOptions(entry, options);
  return entry.tasks(split, options);
}

/** The expert of one episode, optionally noisy (epsilon-random actions drawn from `seed`). */
export function makeExpert(name: string, task: TaskSpec, seed: number, epsilon = 0): Expert {
  const entry = envEntry(name);
  const expert = entry.expert(task, seed);
  return epsilon === 0 ? expert : new NoisyExpert(expert, { epsilon, rng: Rng.from(deriveSeed(seed, "noisy-expert", name, task.id)), randomAction: entry.randomAction });
}

/** A short human description of each available environment (for `--help` texts). */
export function describeEnvs(): string {
  return ENV_NAMES.map((n) => {
    const e = REGISTRY[n];
    return "missing" in e ? `${n}: (not available: ${e.missing})` : `${n}: ${e.description}`;
  }).join("\n");
}
