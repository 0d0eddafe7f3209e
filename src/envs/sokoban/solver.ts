/**
 * Breadth-first Sokoban solver: the shortest sequence of gym-sokoban push actions (1 up, 2 down,
 * 3 left, 4 right; each walks, or pushes a box if the cell behind it is free) from a state to
 * every box on a target. States are the player cell plus the sorted box cells; exact, so it
 * suits the small rooms of the benchmark (6x6, one or two boxes), not large puzzle collections.
 */
import { CELL } from "./level.ts";
import { MOVES } from "./generate.ts";

/** A solver input: walls/targets grid and the current dynamic grid, row-major. */
export type SolverInput = { readonly cols: number; readonly fixed: ArrayLike<number>; readonly state: ArrayLike<number> };

/**
 * Shortest solution as gym action numbers 1..4, `[]` if already solved, `undefined` if none
 * exists within `maxStates` explored states.
 */
export function solveSokoban(input: SolverInput, maxStates = 1_000_000): number[] | undefined {
  const { cols, fixed, state } = input;
  const n = fixed.length;
  let player = -1;
  const boxes: number[] = [];
  for (let i = 0; i < n; i++) {
    if (state[i] === CELL.player) player = i;
    if (state[i] === CELL.box || state[i] === CELL.boxOnTarget) boxes.push(i);
  }
  if (player < 0) return undefined;
  const solved = (bs: readonly number[]) => bs.every((b) => fixed[b] === CELL.target);
  if (solved(boxes)) return [];
  const key = (p: number, bs: readonly number[]) => `${p}:${bs.join(",")}`;
  const parents = new Map<string, { prev: string; action: number } | null>([[key(player, boxes), null]]);
  let frontier: { p: number; bs: number[]; k: string }[] = [{ p: player, bs: boxes, k: key(player, boxes) }];
  while (frontier.length > 0 && parents.size < maxStates) {
    const next: typeof frontier = [];
    for (const node of frontier) {
      for (let a = 0; a < 4; a++) {
        const [dr, dc] = MOVES[a]!;
        const step = dr * cols + dc;
        const to = node.p + step;
        if (to < 0 || to >= n || fixed[to] === CELL.wall) continue;
        const r = Math.floor(node.p / cols), c = node.p % cols;
        if (Math.floor(to / cols) !== r + dr || (to % cols) !== c + dc) continue; // no wrapping across rows
        let bs = node.bs;
        const hit = bs.indexOf(to);
        if (hit >= 0) {
          const beyond = to + step;
          if (beyond < 0 || beyond >= n || fixed[beyond] === CELL.wall || bs.includes(beyond)) continue;
          bs = bs.slice();
          bs[hit] = beyond;
          bs.sort((x, y) => x - y);
        }
        const k = key(to, bs);
        if (parents.has(k)) continue;
        parents.set(k, { prev: node.k, action: a + 1 });
        if (solved(bs)) {
          const path: number[] = [];
          for (let cur: string | undefined = k; cur !== undefined;) {
            const link = parents.get(cur);
            if (link === null || link === undefined) break;
            path.push(link.action);
            cur = link.prev;
          }
          return path.reverse();
        }
        next.push({ p: to, bs, k });
      }
    }
    frontier = next;
  }
  return undefined;
}
