/**
 * Level generation by random walk and reverse play, after gym-sokoban's `room_utils.py` with
 * verl-agent's additions: carve a room with a random walk of 3x3 masks,
 * place the player and the targets, start from the solved state and play backwards (the player
 * may pull a box it walks away from), keep the reachable state that maximises
 * pulls × Σ box-to-target Manhattan distance with every box off its target, then let the player
 * wander up to 3 cells. The same distribution as upstream, drawn from the project's seeded Rng,
 * so levels match upstream's in kind, never Python's random streams.
 *
 * One upstream quirk is kept on purpose: the depth-first search passes the *initial* last-pull
 * marker down the recursion, so `box_swaps` counts every pull on the path, not box changes.
 */
import { SeedError } from "../../core/errors.ts";
import { Rng, deriveSeed } from "../../core/rng.ts";
import { CELL, type SokobanLevel } from "./level.ts";

/** Generation settings. */
export type SokobanGenOptions = {
  /** Room height. @default 6 */
  readonly rows?: number;
  /** Room width. @default 6 */
  readonly cols?: number;
  /** Boxes (and targets). @default 1 */
  readonly boxes?: number;
  /** Reverse-play depth (`search_depth`). @default 30 (verl-agent; gym-sokoban uses 300) */
  readonly searchDepth?: number;
  /** Random-walk length. @default floor(1.7·(rows + cols)) */
  readonly walkSteps?: number;
  /** Random player moves after reverse play (verl-agent). @default true */
  readonly wander?: boolean;
};

/** Thrown when no level could be generated for a seed after every retry. */
export class SokobanGenerationError extends SeedError {}

const MASKS: readonly (readonly number[])[] = [
  [0, 0, 0, 1, 1, 1, 0, 0, 0],
  [0, 1, 0, 0, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 1, 1, 0],
  [0, 0, 0, 0, 1, 1, 0, 1, 0],
];
const DIRECTIONS: readonly (readonly [number, number])[] = [[1, 0], [0, 1], [-1, 0], [0, -1]];
/** Up, down, left, right as (row, col) changes; gym-sokoban's CHANGE_COORDINATES. */
export const MOVES: readonly (readonly [number, number])[] = [[-1, 0], [1, 0], [0, -1], [0, 1]];
const MAX_EXPLORED = 300_000;

function topology(rng: Rng, rows: number, cols: number, steps: number): number[] {
  const level = new Array<number>(rows * cols).fill(0);
  let dir = rng.choice(DIRECTIONS);
  // Upstream draws the start in [1, dim−1] inclusive; the first clamp pulls it inside.
  let r = 1 + rng.int(rows - 1), c = 1 + rng.int(cols - 1);
  for (let s = 0; s < steps; s++) {
    if (rng.float() < 0.35) dir = rng.choice(DIRECTIONS);
    r = Math.max(Math.min(r + dir[0], rows - 2), 1);
    c = Math.max(Math.min(c + dir[1], cols - 2), 1);
    const mask = rng.choice(MASKS);
    for (let i = 0; i < 9; i++) if (mask[i]) level[(r - 1 + Math.floor(i / 3)) * cols + (c - 1 + (i % 3))] = 1;
  }
  for (let rr = 0; rr < rows; rr++) for (let cc = 0; cc < cols; cc++) {
    if (rr === 0 || cc === 0 || rr === rows - 1 || cc === cols - 1) level[rr * cols + cc] = 0;
  }
  return level;
}

/** Player first, then each target on a remaining floor cell; undefined if the room is too small. */
function placeTargetsAndPlayer(rng: Rng, room: number[], boxes: number): number[] | undefined {
  const floor = () => room.flatMap((v, i) => (v === CELL.floor ? [i] : []));
  const cells = floor();
  if (cells.length <= boxes + 1) return undefined;
  const out = room.slice();
  out[rng.choice(cells)] = CELL.player;
  for (let b = 0; b < boxes; b++) {
    const free = out.flatMap((v, i) => (v === CELL.floor ? [i] : []));
    out[rng.choice(free)] = CELL.target;
  }
  return out;
}

type Search = {
  rows: number; cols: number; fixed: number[]; numBoxes: number;
  explored: Set<string>; bestScore: number; best: number[] | undefined;
};

/** One reverse move: the player steps; on a pull action (< 4) a box behind it follows. */
function reverseMove(s: Search, state: number[], mapping: number[][], action: number): boolean {
  const player = state.indexOf(CELL.player);
  const [dr, dc] = MOVES[action % 4]!;
  const pr = Math.floor(player / s.cols), pc = player % s.cols;
  const next = (pr + dr) * s.cols + (pc + dc);
  if (state[next] !== CELL.floor && state[next] !== CELL.target) return false;
  state[player] = s.fixed[player]!;
  state[next] = CELL.player;
  if (action < 4) {
    const behind = (pr - dr) * s.cols + (pc - dc);
    if (state[behind] === CELL.box || state[behind] === CELL.boxOnTarget) {
      state[player] = CELL.boxOnTarget; // upstream marks every pulled box 3 during the search
      state[behind] = s.fixed[behind]!;
      for (const pair of mapping) if (pair[1] === behind) pair[1] = player;
      return true;
    }
  }
  return false;
}

function displacement(s: Search, mapping: readonly number[][]): number {
  let d = 0;
  for (const [target, at] of mapping) {
    d += Math.abs(Math.floor(target! / s.cols) - Math.floor(at! / s.cols)) + Math.abs((target! % s.cols) - (at! % s.cols));
  }
  return d;
}

function depthFirst(s: Search, state: number[], mapping: number[][], pulls: number, ttl: number): void {
  ttl -= 1;
  if (ttl <= 0 || s.explored.size >= MAX_EXPLORED) return;
  const key = String.fromCharCode(...state);
  if (s.explored.has(key)) return;
  let score = pulls * displacement(s, mapping);
  let emptyTargets = 0;
  for (const v of state) if (v === CELL.target) emptyTargets++;
  if (emptyTargets !== s.numBoxes) score = 0;
  if (score > s.bestScore) {
    s.bestScore = score;
    s.best = state;
  }
  s.explored.add(key);
  for (let action = 0; action < 8; action++) {
    const next = state.slice();
    const nextMapping = mapping.map((p) => p.slice());
    const pulled = reverseMove(s, next, nextMapping, action);
    depthFirst(s, next, nextMapping, pulls + (pulled ? 1 : 0), ttl);
  }
}

/** verl-agent's wander: with probability p, 1–3 player steps to fresh free cells, each continued w.p. 0.5. */
function wander(rng: Rng, state: number[], fixed: readonly number[], cols: number, p: number): void {
  if (rng.float() > p) return;
  let player = state.indexOf(CELL.player);
  const visited = new Set([player]);
  for (let steps = 0; steps < 3; steps++) {
    const options: number[] = [];
    for (const [dr, dc] of MOVES) {
      const next = player + dr * cols + dc;
      if ((state[next] === CELL.floor || state[next] === CELL.target) && !visited.has(next)) options.push(next);
    }
    if (options.length === 0) break;
    const next = rng.choice(options);
    state[player] = fixed[player]!;
    state[next] = CELL.player;
    visited.add(next);
    player = next;
    if (rng.float() > 0.5) break;
  }
}

function attempt(rng: Rng, rows: number, cols: number, boxes: number, depth: number, walk: number, doWander: boolean): SokobanLevel | undefined {
  for (let t = 0; t < 4; t++) {
    const room = placeTargetsAndPlayer(rng, topology(rng, rows, cols, walk), boxes);
    if (room === undefined) continue;
    const fixed = room.map((v) => (v === CELL.player ? CELL.floor : v));
    const start = room.map((v) => (v === CELL.target ? CELL.box : v)); // solved: a box on every target
    const s: Search = { rows, cols, fixed, numBoxes: boxes, explored: new Set(), bestScore: -1, best: undefined };
    const mapping = fixed.flatMap((v, i) => (v === CELL.target ? [[i, i]] : []));
    depthFirst(s, start, mapping, 0, depth);
    if (s.best === undefined || s.bestScore <= 0) continue;
    const state = s.best.map((v) => (v === CELL.boxOnTarget ? CELL.box : v));
    if (doWander) {
      const moved = mapping.length === 1 ? displacementOfBest(fixed, state, cols) : 0;
      wander(rng, state, fixed, cols, moved === 1 ? 0.8 : 0.5);
    }
    return { rows, cols, fixed, state };
  }
  return undefined;
}

/** Distance of the single box from its target. */
function displacementOfBest(fixed: readonly number[], state: readonly number[], cols: number): number {
  const target = fixed.indexOf(CELL.target), box = state.indexOf(CELL.box);
  return Math.abs(Math.floor(target / cols) - Math.floor(box / cols)) + Math.abs((target % cols) - (box % cols));
}

/**
 * The level of a seed. Deterministic: the same seed and options always give the same level.
 * A seed whose four tries all fail retries with a seed derived from it, as upstream's reset does.
 * @example generateLevel(7) // a 6x6 room with one box
 */
export function generateLevel(seed: number, options: SokobanGenOptions = {}): SokobanLevel {
  const rows = options.rows ?? 6, cols = options.cols ?? 6, boxes = options.boxes ?? 1;
  const depth = options.searchDepth ?? 30;
  const walk = options.walkSteps ?? Math.floor(1.7 * (rows + cols));
  if (rows < 4 || cols < 4 || !Number.isInteger(boxes) || boxes < 1) {
    throw new RangeError(`Sokoban needs at least 4x4 and one box, got ${rows}x${cols} with ${boxes}`);
  }
  let s = seed;
  for (let retry = 0; retry < 50; retry++) {
    const level = attempt(Rng.from(s), rows, cols, boxes, depth, walk, options.wander ?? true);
    if (level !== undefined) return level;
    s = deriveSeed(s, "sokoban-retry");
  }
  throw new SokobanGenerationError(`no ${rows}x${cols} level with ${boxes} box(es) after 50 seeds from ${seed}`);
}
