/**
 * The Sokoban environment (gym-sokoban dynamics and rewards, verl-agent text mode):
 * 6x6 rooms with one box by default, actions `up`/`down`/`left`/`right` (push actions: walk,
 * or push a box into a free cell), `still` and any unknown string are action 0: grid unchanged,
 * −0.1. Every step counts toward the 15-step limit, `still` and invalid ones included: gym-sokoban
 * does not count action 0, but the benchmark's rollout loop (verl-agent's multi-turn loop) ends every
 * episode after 15 turns whatever they were, so `done` always comes by then. Rewards: −0.1 per step, +1 when a box lands on
 * a target, −1 when one leaves, +10 when all are on targets. The observation is the text grid.
 */
import { DataError, EnvStateError } from "../../core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../env.ts";
import { generateLevel, MOVES, type SokobanGenOptions } from "./generate.ts";
import { CELL, parseGrid, renderGrid, validateLevel, type SokobanLevel } from "./level.ts";

// Hot-path copies of the cell codes (a module-namespace lookup per cell costs more than the step).
const { floor: FLOOR, target: TARGET, box: BOX, boxOnTarget: BOX_ON_TARGET, player: PLAYER } = CELL;

/** Action names by gym action number (0 is the no-op). */
export const SOKOBAN_ACTION_NAMES = ["still", "up", "down", "left", "right"] as const;

/** The actions the environment offers. */
export const SOKOBAN_ADMISSIBLE: readonly string[] = ["up", "down", "left", "right"];

/** The task line every level shares. */
export const SOKOBAN_TASK = "push every box onto a target.";

/** Task payload: a generator seed, an explicit level, or a grid in text form. */
export type SokobanPayload = { readonly seed: number } | { readonly level: SokobanLevel } | { readonly grid: string };

/** Options of `SokobanEnv`. */
export type SokobanOptions = SokobanGenOptions & {
  /** Steps (every `step` call, `still` and invalid ones too) before truncation. @default 15 (verl-agent) */
  readonly maxSteps?: number;
};

// Generated levels by seed and options. A group resets the same level 8 times and generation
// (reverse-play search) costs far more than an episode, so recent levels are kept; levels are
// pure functions of their key, so the cache never changes a result.
const levelCache = new Map<string, SokobanLevel>();
const LEVEL_CACHE_SIZE = 4096;

function cachedLevel(seed: number, gen: SokobanGenOptions): SokobanLevel {
  const key = `${seed}|${gen.rows}|${gen.cols}|${gen.boxes}|${gen.searchDepth}|${gen.walkSteps}|${gen.wander}`;
  let level = levelCache.get(key);
  if (level === undefined) {
    level = generateLevel(seed, gen);
    validateLevel(level);
    if (levelCache.size >= LEVEL_CACHE_SIZE) levelCache.delete(levelCache.keys().next().value!);
    levelCache.set(key, level);
  }
  return level;
}

/** The level of a task under the given generation options. */
export function levelOf(task: TaskSpec, gen: SokobanGenOptions = {}): SokobanLevel {
  const p = task.payload as Partial<{ seed: unknown; level: unknown; grid: unknown }> | null;
  if (p !== null && typeof p === "object" && typeof p.seed === "number" && Number.isInteger(p.seed)) return cachedLevel(p.seed, gen);
  let level: SokobanLevel;
  if (p !== null && typeof p === "object" && typeof p.grid === "string") level = parseGrid(p.grid);
  else if (p !== null && typeof p === "object" && typeof p.level === "object" && p.level !== null) level = p.level as SokobanLevel;
  else throw new DataError(`sokoban task '${task.id}' needs a payload { seed }, { level } or { grid }`);
  validateLevel(level);
  return level;
}

/**
 * Sokoban, one level at a time.
 * @example
 * const env = new SokobanEnv();
 * const obs = env.reset(sokobanTasks("validation", 1)[0]!, 0);
 * env.step("left");
 */
export class SokobanEnv implements Env {
  readonly id = "sokoban";
  readonly maxSteps: number;
  /** −0.1 − 1 (a box pushed off a target) to −0.1 + 1 + 10 (the solving push). */
  readonly rewardRange = [-1.1, 10.9] as const;
  private readonly gen: SokobanGenOptions;
  private rows = 0;
  private cols = 0;
  private fixed: number[] = [];
  private state: number[] = [];
  private player = -1;
  private numBoxes = 0;
  private boxesOnTarget = 0;
  private steps = 0;
  private done = true;
  private started = false;
  // The grid only changes when the player moves; blocked moves and no-ops reuse the last text.
  private last: Observation = { text: "", task: SOKOBAN_TASK };

  constructor(options: SokobanOptions = {}) {
    const { maxSteps, ...gen } = options;
    this.maxSteps = maxSteps ?? 15;
    this.gen = gen;
  }

  reset(task: TaskSpec, _seed: number): Observation {
    // The level is the task (a group shares it); play has no randomness.
    const level = levelOf(task, this.gen);
    this.rows = level.rows;
    this.cols = level.cols;
    this.fixed = [...level.fixed];
    this.state = [...level.state];
    this.player = this.state.indexOf(PLAYER);
    this.numBoxes = this.state.filter((v) => v === BOX || v === BOX_ON_TARGET).length;
    this.boxesOnTarget = this.countBoxesOnTarget();
    this.steps = 0;
    this.done = false;
    this.started = true;
    this.last = this.observe();
    return this.last;
  }

  step(action: string): StepResult {
    if (!this.started) throw new EnvStateError("sokoban: step before reset");
    if (this.done) throw new EnvStateError("sokoban: step after the episode ended; call reset");
    const index = (SOKOBAN_ACTION_NAMES as readonly string[]).indexOf(action.trim().toLowerCase());
    let reward = -0.1, moved = false;
    this.steps++;
    if (index > 0) {
      moved = this.push(index);
      const onTarget = this.countBoxesOnTarget();
      if (onTarget > this.boxesOnTarget) reward += 1;
      else if (onTarget < this.boxesOnTarget) reward -= 1;
      this.boxesOnTarget = onTarget;
    }
    const won = this.boxesOnTarget === this.numBoxes;
    if (won) reward += 10;
    this.done = won || this.steps >= this.maxSteps;
    if (moved) this.last = this.observe();
    return { observation: this.last, reward, done: this.done, won, score: won ? 1 : 0, actionRecognized: index >= 0 };
  }

  /** gym-sokoban `_push`: push a box if one is ahead and the cell behind it is free, else walk. */
  private push(action: number): boolean {
    const [dr, dc] = MOVES[action - 1]!;
    const r = Math.floor(this.player / this.cols) + dr, c = (this.player % this.cols) + dc;
    if (r < 0 || c < 0 || r >= this.rows || c >= this.cols) return false;
    const next = r * this.cols + c;
    const s = this.state;
    if (s[next] === BOX || s[next] === BOX_ON_TARGET) {
      const rr = r + dr, cc = c + dc;
      if (rr < 0 || cc < 0 || rr >= this.rows || cc >= this.cols) return false;
      const beyond = rr * this.cols + cc;
      if (s[beyond] !== FLOOR && s[beyond] !== TARGET) return false;
      s[beyond] = this.fixed[beyond] === TARGET ? BOX_ON_TARGET : BOX;
    } else if (s[next] !== FLOOR && s[next] !== TARGET) {
      return false;
    }
    s[this.player] = this.fixed[this.player]!;
    s[next] = PLAYER;
    this.player = next;
    return true;
  }

  private countBoxesOnTarget(): number {
    let n = 0;
    for (const v of this.state) if (v === BOX_ON_TARGET) n++;
    return n;
  }

  private observe(): Observation {
    return { text: renderGrid(this.rows, this.cols, this.fixed, this.state), admissible: SOKOBAN_ADMISSIBLE, task: SOKOBAN_TASK };
  }
}
