/**
 * Where the tests find the real ALFWorld files (`../shared/data/alfworld` beside the repository
 * root), a once-per-process extraction of the training archive into a temporary directory, and
 * a hand-written fixture game in the real file format for tests that must run without the data.
 * Test support only: nothing in the library imports this file, and the embedded defaults never
 * need the data.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** `../shared/data/alfworld` relative to the repository root, or undefined when absent. */
export function alfworldDataRoot(): string | undefined {
  const dir = join(REPO_ROOT, "..", "shared", "data", "alfworld");
  return existsSync(join(dir, "json_2.1.1")) ? dir : undefined;
}

/** Reason string for `test(..., { skip })` when the data is absent. */
export const NO_DATA = "../shared/data/alfworld is absent (real ALFWorld files are not shipped with the repository)";

let extracted: string | undefined;

/**
 * A data root holding all three splits: the training archive extracted once per process into
 * a temporary directory (removed at exit), with the evaluation splits linked beside it.
 * Undefined when the data or `tar` is unavailable.
 */
export function alfworldAllSplitsRoot(): string | undefined {
  if (extracted !== undefined) return extracted;
  const data = alfworldDataRoot();
  const archive = data === undefined ? undefined : join(data, "json_2.1.1_train.tar.xz");
  if (data === undefined || archive === undefined || !existsSync(archive)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "seed-alfworld-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  try {
    execFileSync("tar", ["-xJf", archive, "-C", dir], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  mkdirSync(join(dir, "json_2.1.1"), { recursive: true });
  for (const split of ["valid_seen", "valid_unseen"]) {
    const src = join(data, "json_2.1.1", split);
    if (existsSync(src)) symlinkSync(src, join(dir, "json_2.1.1", split));
  }
  extracted = dir;
  return dir;
}

/** The task directory of the hand-written fixture game. */
export const TINY_TASK_DIR = "pick_and_place_simple-Apple-None-CounterTop-1";

/**
 * A hand-written game in the real file format (two apples in a closed fridge, put one on the
 * counter top), so parser and CLI tests run without the shipped data.
 */
export function tinyGameJson(): string {
  const problem = `
(define (problem tiny)
(:domain alfred)
(:objects
  agent1 - agent
  Apple_bar__plus_00_dot_10 Apple_bar__minus_00_dot_20 - object
  AppleType - otype
  CounterTopType FridgeType - rtype
  CounterTop_bar__plus_01 - receptacle
  Fridge_bar__plus_02 - receptacle
  loc_bar_0 loc_bar_1 loc_bar_2 - location
)
(:init
  ; comments are ignored
  (atLocation agent1 loc_bar_0)
  (receptacleType CounterTop_bar__plus_01 CounterTopType)
  (receptacleType Fridge_bar__plus_02 FridgeType)
  (receptacleAtLocation CounterTop_bar__plus_01 loc_bar_1)
  (receptacleAtLocation Fridge_bar__plus_02 loc_bar_2)
  (openable Fridge_bar__plus_02)
  (objectType Apple_bar__plus_00_dot_10 AppleType)
  (objectType Apple_bar__minus_00_dot_20 AppleType)
  (pickupable Apple_bar__plus_00_dot_10)
  (pickupable Apple_bar__minus_00_dot_20)
  (inReceptacle Apple_bar__plus_00_dot_10 Fridge_bar__plus_02)
  (inReceptacle Apple_bar__minus_00_dot_20 Fridge_bar__plus_02)
  (objectAtLocation Apple_bar__plus_00_dot_10 loc_bar_2)
  (objectAtLocation Apple_bar__minus_00_dot_20 loc_bar_2)
  (canContain CounterTopType AppleType)
  (canContain FridgeType AppleType)
)
(:goal (and (exists (?r - receptacle) (exists (?o - object)
  (and (inReceptacle ?o ?r) (objectType ?o AppleType) (receptacleType ?r CounterTopType))))))
)`;
  return JSON.stringify({
    pddl_domain: "(define (domain alfred))",
    grammar: '"task": [{"rhs": "Your task is to: put a apple in countertop."}]',
    pddl_problem: problem,
    solvable: true,
    walkthrough: ["go to fridge 1", "open fridge 1", "take apple 1 from fridge 1", "go to countertop 1", "move apple 1 to countertop 1"],
  });
}

/**
 * Write a data root with the fixture game in `valid_seen` (and, when `corrupt` is set, a
 * second game whose file is not JSON). Returns the root.
 */
export function writeTinyData(root: string, corrupt = false): string {
  const dir = join(root, "json_2.1.1", "valid_seen", TINY_TASK_DIR, "trial_T1");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "game.tw-pddl"), tinyGameJson());
  if (corrupt) {
    const bad = join(root, "json_2.1.1", "valid_seen", "pick_heat_then_place_in_recep-Egg-None-Fridge-1", "trial_T2");
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, "game.tw-pddl"), '{"pddl_problem": "(define (problem x) (:objects a - agent) (:init (atLocation a');
  }
  return root;
}
