/**
 * Loaders for the real ALFWorld files: one `game.tw-pddl` into an `AlfGame`, and a data
 * directory (`json_2.1.1/<split>/<task>/trial_<ID>/game.tw-pddl`) into game paths and `TaskSpec`s
 * per split. Every failure is a `DataError` naming the path. The embedded defaults never call
 * this file (they use `generator/`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { DataError } from "../../core/errors.ts";
import type { TaskSpec } from "../env.ts";
import { prepareGame } from "./engine.ts";
import { gameFromProblem, type AlfGame } from "./game.ts";
import { parsePddlProblem } from "./problem.ts";
import { parseTaskDir, type TaskType } from "./tasks.ts";
import { trainArchiveOf, unpackedTrainSplit } from "./train-archive.ts";

/** The splits ALFWorld ships, in the order reports use. */
export const ALFWORLD_SPLITS = ["train", "valid_seen", "valid_unseen"] as const;

/** One game file found under a data root. */
export type GameRef = {
  /** Absolute (or root-joined) path of the `game.tw-pddl` file. */
  readonly path: string;
  /** Path relative to the data root, with `/` separators: the game's stable id. */
  readonly id: string;
  readonly split: string;
  readonly taskType: TaskType;
};

/** The payload of an ALFWorld `TaskSpec`: a parsed game, or a file loaded (and cached) on reset. */
export type AlfworldPayload = { readonly game: AlfGame } | { readonly file: string; readonly id?: string };

const TASK_LINE = /"Your task is to: ([^"]*)"/;

/**
 * Parse one game file's text.
 * @param id  the game's stable id (defaults to the path)
 * @throws DataError on invalid JSON, missing keys, an unknown task directory or a bad problem
 */
export function parseGameFile(text: string, path: string, id = path): AlfGame {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new DataError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new DataError(`${path}: a game file must be a JSON object`);
  const d = data as Record<string, unknown>;
  const problem = d["pddl_problem"], grammar = d["grammar"], walkthrough = d["walkthrough"];
  if (typeof problem !== "string") throw new DataError(`${path}: missing string key 'pddl_problem'`);
  if (typeof grammar !== "string") throw new DataError(`${path}: missing string key 'grammar'`);
  if (walkthrough !== undefined && (!Array.isArray(walkthrough) || walkthrough.some((w) => typeof w !== "string"))) {
    throw new DataError(`${path}: 'walkthrough' must be a list of strings`);
  }
  const info = parseTaskDir(basename(dirname(dirname(path))));
  if (info === undefined) {
    throw new DataError(`${path}: the task directory name must look like <task_type>-<Object>-<MovableRecep>-<Parent>-<Scene>`);
  }
  if (/template :: "put \{o\} in\/on \{r\}"/.test(grammar)) {
    throw new DataError(`${path}: this game uses the ReAct-era 'put {o} in/on {r}' protocol; the engine plays the 'move' version (ALFWorld's json_2.1.3_tw-pddl download)`);
  }
  const task = TASK_LINE.exec(grammar)?.[1];
  if (task === undefined) throw new DataError(`${path}: the grammar has no "Your task is to: ..." line`);
  const game = gameFromProblem(parsePddlProblem(problem, path), {
    id, taskType: info.taskType, task, where: path,
    ...(walkthrough !== undefined ? { walkthrough: walkthrough as string[] } : {}),
  });
  prepareGame(game, path);
  return game;
}

/**
 * Read and parse one game file.
 * @throws DataError if the file is missing or malformed
 */
export function loadGameFile(path: string, id = path): AlfGame {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new DataError(`${path}: cannot read the game file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseGameFile(text, path, id);
}

/**
 * The `json_2.1.1` folder of a data root: `<root>/json_2.1.1` if it exists, else `<root>` itself
 * when it directly holds split folders.
 * @throws DataError if neither holds a known split
 */
export function resolveAlfworldRoot(root: string): string {
  if (!existsSync(root)) throw new DataError(`${root}: no such directory`);
  if (!statSync(root).isDirectory()) throw new DataError(`${root}: not a directory`);
  const nested = join(root, "json_2.1.1");
  if (existsSync(nested) && statSync(nested).isDirectory()) return nested;
  if (ALFWORLD_SPLITS.some((s) => existsSync(join(root, s))) || trainArchiveOf(root) !== undefined) return root;
  throw new DataError(`${root}: expected json_2.1.1/{train,valid_seen,valid_unseen} (any subset) inside it`);
}

/**
 * The folder of one split: `<json_2.1.1>/<split>`, or for `train` without that folder the
 * shipped archive beside it, unpacked into the cache (`train-archive.ts`); undefined when absent.
 */
function splitDir(root: string, base: string, split: string): string | undefined {
  const dir = join(base, split);
  if (existsSync(dir)) return dir;
  const archive = split === "train" ? trainArchiveOf(root) : undefined;
  return archive === undefined ? undefined : unpackedTrainSplit(archive);
}

/**
 * Every game file of the given splits under a data root, sorted by id. Paths containing
 * `movable` or `Sliced` are skipped (the benchmark's loaders skip them; none ship).
 * @param splits splits to scan; missing split folders are skipped (a missing `train` is unpacked
 *   from `json_2.1.1_train.tar.xz` when the root has it)
 * @throws DataError if the root holds no split at all
 */
export function listGames(root: string, splits: readonly string[] = ALFWORLD_SPLITS): GameRef[] {
  const base = resolveAlfworldRoot(root);
  const out: GameRef[] = [];
  for (const split of splits) {
    const dir = splitDir(root, base, split);
    if (dir === undefined) continue;
    for (const taskDir of readdirSync(dir).sort()) {
      if (taskDir.includes("movable") || taskDir.includes("Sliced")) continue;
      const info = parseTaskDir(taskDir);
      if (info === undefined) continue;
      const tdir = join(dir, taskDir);
      if (!statSync(tdir).isDirectory()) continue;
      for (const trial of readdirSync(tdir).sort()) {
        const path = join(tdir, trial, "game.tw-pddl");
        if (!existsSync(path)) continue;
        out.push({ path, id: `${split}/${relative(dir, path).split(sep).join("/")}`, split, taskType: info.taskType });
      }
    }
  }
  return out;
}

/**
 * `TaskSpec`s for the games of one split. Games are parsed lazily by the environment on reset
 * (and cached), so listing 3,553 training games is cheap.
 * @throws DataError if the root is not an ALFWorld data directory
 */
export function alfworldTasks(root: string, split: string): TaskSpec[] {
  return listGames(root, [split]).map((g) => ({ id: g.id, split: g.split, payload: { file: g.path, id: g.id } satisfies AlfworldPayload }));
}

/** `TaskSpec`s with the games parsed now (errors surface here rather than on reset). */
export function loadAlfworldTasks(root: string, split: string): TaskSpec[] {
  return listGames(root, [split]).map((g) => ({ id: g.id, split: g.split, payload: { game: loadGameFile(g.path, g.id) } satisfies AlfworldPayload }));
}
