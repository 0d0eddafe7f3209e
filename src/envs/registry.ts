/**
 * The environment registry, the one door per environment: each entry owns how to build its
 * environment and its tasks (generated worlds by default, the real files with `dataPath`), its
 * expert and random action, its protocol row (step limit, history window, invalid-action penalty,
 * budgets, from SEED's launchers), its evaluation splits and its special cases (ALFWorld's
 * generator size and evenly spaced real games). Its keys are the one list of environment names:
 * the config's `env.name` choices, the agent's protocol and the CLI's defaults all read it.
 * Environment and tasks built with the same options share one world (shop, knowledge base), built
 * once per process.
 *
 * Adding an environment is its module, one entry in `BUILTIN` (or `registerEnv` at run time), and
 * its prompt renderer in `agent/prompts/` (see `test/toy-env.test.ts`).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DataError, UsageError } from "../core/errors.ts";
import { Rng, deriveSeed } from "../core/rng.ts";
import type { Env, TaskSpec } from "./env.ts";
import { NoisyExpert, randomAdmissible, type Expert, type ExpertFactory, type RandomAction } from "./expert.ts";
import {
  alfworldExpertFactory, alfworldGeneratedTasks, alfworldTasks, GENERATED_SPLITS, makeAlfworldEnv, type AlfworldGenOptions, type GeneratedSplit,
} from "./alfworld/index.ts";
import { EzPointsEnv, ezpointsExpert, ezpointsRandomAction } from "./ezpoints/index.ts";
import {
  Bm25Retriever, loadCorpus, loadQaSet, makeSearchEnv, RemoteRetriever, searchExpert, searchRandomAction, syntheticSearchTasks, type Retriever,
} from "./search/index.ts";
import { seedTasks } from "./seed-tasks.ts";
import { SokobanEnv, sokobanExpert } from "./sokoban/index.ts";
import { generatedShop, realShop, WebShopEnv, webshopExpert, webshopRandomAction, type Shop } from "./webshop/index.ts";


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
  /** ALFWorld generated games: receptacles per room (±2, at least 4: the generator's floor). @default the generator's */
  readonly receptacles?: number;
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

/** Protocol settings of one environment in SEED's launchers (`examples/seed_trainer/_common/*.sh`). */
export type ProtocolSettings = {
  /** Step limit of an episode. */
  readonly maxSteps: number;
  /** History window k of the `window` mode (0: the no-history prompt every step). */
  readonly window: number;
  /** Penalty subtracted from an invalid step's score by the trainer (never seen by the env). */
  readonly invalidPenalty: number;
  /** Prompt budget of the launchers, in tokens. */
  readonly promptTokens: number;
  /** Response budget per action, in tokens. */
  readonly responseTokens: number;
};

/** What the registry knows about one environment. */
export type EnvEntry = {
  readonly name: string;
  readonly description: string;
  /** Option keys this environment accepts. */
  readonly options: readonly (keyof TaskSourceOptions)[];
  /** Splits of the generated tasks (real data may name others). */
  readonly splits: readonly string[];
  /** The split(s) evaluation uses by default (the first is the default of `seed eval`). */
  readonly evalSplits: readonly string[];
  /** The evaluation splits with real data, when they differ (Search-QA: every question set). */
  readonly realEvalSplits?: readonly string[];
  /** The protocol row (the Sokoban and EZPoints numbers are the text port's; SEED ran them with a VLM). */
  readonly protocol: ProtocolSettings;
  /**
   * A real-data training pool of `count` takes evenly spaced tasks instead of the first `count`
   * (ALFWorld: game ids sort by task type, so a prefix would be one or two types). @default false
   */
  readonly spreadRealTasks?: boolean;
  /**
   * The environment serves its tasks from the data it was built on (WebShop: a real task names a
   * catalogue product), so a training run builds it with `dataPath`. @default false
   */
  readonly envReadsData?: boolean;
  makeEnv(options: EnvOptions): Env;
  tasks(split: string, options: TaskSourceOptions): TaskSpec[];
  readonly expert: ExpertFactory;
  readonly randomAction: RandomAction;
};

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

/** Default number of seed tasks: the 128 validation seeds of the launchers, the whole training range. */
function seedCount(split: string, count: number | undefined): number {
  return count ?? (split === "train" ? 2 ** 16 : 128);
}

const maxSteps = (o: EnvOptions) => (o.maxSteps === undefined ? {} : { maxSteps: o.maxSteps });

/** Generated ALFWorld game options of a receptacle count: `receptacles` per room ±2, at least 4 (the generator's floor). */
export function alfworldGenOptions(receptacles: number): AlfworldGenOptions {
  const lo = Math.max(4, receptacles - 2);
  return { receptacles: [lo, Math.max(lo, receptacles + 2)] };
}

const gen = (o: EnvOptions) => (o.receptacles === undefined ? {} : alfworldGenOptions(o.receptacles));

/** The built-in environments, in the paper's order. */
const BUILTIN = {
  alfworld: {
    name: "alfworld",
    description: "ALFWorld (TextWorld-PDDL household games): real game files with dataPath, generated games otherwise",
    options: ["seed", "dataPath", "maxSteps", "receptacles", "count"],
    splits: [...GENERATED_SPLITS],
    evalSplits: ["valid_seen", "valid_unseen"],
    // SEED's window of 5 (verl-agent's ALFWorld default is 2).
    protocol: { maxSteps: 30, window: 5, invalidPenalty: 0.1, promptTokens: 2048, responseTokens: 512 },
    spreadRealTasks: true,
    makeEnv: (o) => makeAlfworldEnv(maxSteps(o)),
    tasks: (split, o) => o.dataPath !== undefined
      ? limit(alfworldTasks(o.dataPath, split), o.count)
      : alfworldGeneratedTasks(generatedSplit(split), o.count ?? ALFWORLD_GENERATED_COUNTS[generatedSplit(split)], { ...gen(o), seed: o.seed ?? 0 }),
    expert: alfworldExpertFactory(),
    randomAction: randomAdmissible,
  },
  webshop: {
    name: "webshop",
    description: "WebShop text mode: search, results, item pages, Buy Now; reward from type/attribute/option/price match",
    options: ["seed", "dataPath", "maxSteps", "count"],
    splits: ["train", "test", "all"],
    evalSplits: ["test"],
    protocol: { maxSteps: 15, window: 2, invalidPenalty: 0.1, promptTokens: 4096, responseTokens: 512 },
    envReadsData: true,
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
    realEvalSplits: ["all"],
    protocol: { maxSteps: 4, window: 4, invalidPenalty: 0.01, promptTokens: 4096, responseTokens: 512 },
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
    protocol: { maxSteps: 15, window: 2, invalidPenalty: 0.1, promptTokens: 1024, responseTokens: 512 },
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
    protocol: { maxSteps: 8, window: 0, invalidPenalty: 0.1, promptTokens: 1024, responseTokens: 512 },
    makeEnv: (o) => new EzPointsEnv(maxSteps(o)),
    tasks: (split, o) => seedTasks("ezpoints", split, seedCount(split, o.count), o.seed ?? 0),
    expert: ezpointsExpert,
    randomAction: ezpointsRandomAction,
  },
} as const satisfies Record<string, EnvEntry>;

/** A built-in benchmark name. */
export type EnvName = keyof typeof BUILTIN;

/** The built-in benchmarks, in the paper's order. */
export const ENV_NAMES = Object.keys(BUILTIN) as EnvName[];

const registered = new Map<string, EnvEntry>();

/**
 * Adds an environment at run time (a plugin, a test's toy world): after this, `makeEnv`,
 * `taskSource`, the config's `env.name` and the agent's protocol know it. A built-in name cannot
 * be replaced.
 */
export function registerEnv(entry: EnvEntry): void {
  if (Object.hasOwn(BUILTIN, entry.name)) throw new UsageError(`environment '${entry.name}' is built in`);
  registered.set(entry.name, entry);
}

/** Every environment name: the built-in ones, then those registered at run time. */
export function envNames(): string[] {
  return [...ENV_NAMES, ...registered.keys()];
}

/** Whether a string names an environment. */
export function isEnvName(name: string): boolean {
  return Object.hasOwn(BUILTIN, name) || registered.has(name);
}

/** The registry entry of an environment, or a `UsageError` listing the valid names. */
export function envEntry(name: string): EnvEntry {
  const entry: EnvEntry | undefined = Object.hasOwn(BUILTIN, name) ? BUILTIN[name as EnvName] : registered.get(name);
  if (entry === undefined) throw new UsageError(`unknown environment '${name}' (one of ${envNames().join(", ")})`);
  return entry;
}

/** Names of the environments available in this build. */
export function availableEnvs(): string[] {
  return envNames();
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
  return envNames().map((n) => `${n}: ${envEntry(n).description}`).join("\n");
}
