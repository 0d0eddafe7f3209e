/**
 * Sokoban grids with gym-sokoban's cell codes and verl-agent's text rendering
 * (verl-agent's `env_package/sokoban/sokoban/env.py`). A level is two row-major grids: `fixed` (0
 * wall, 1 floor, 2 target)
 * and `state` (0 wall, 1 floor, 2 empty target, 3 box on target, 4 box, 5 player); the player on
 * a target is stored as 5 and rendered as 6, as upstream does.
 */
import { DataError } from "../../core/errors.ts";

/** gym-sokoban cell codes. */
export const CELL = { wall: 0, floor: 1, target: 2, boxOnTarget: 3, box: 4, player: 5, playerOnTarget: 6 } as const;

/** The text of each code in `tiny_rgb_array` text mode (**exact**, verl-agent). */
export const CELL_TEXT: readonly string[] = [" # \t", " _ \t", " O \t", " √ \t", " X \t", " P \t", " S \t"];

/** One level: its size and the two row-major grids. */
export type SokobanLevel = {
  readonly rows: number;
  readonly cols: number;
  /** [rows·cols] walls, floor and targets only. */
  readonly fixed: readonly number[];
  /** [rows·cols] the dynamic grid at the start. */
  readonly state: readonly number[];
};

/** Render a state grid as verl-agent's text: one cell string per code, rows joined by `\n`. */
export function renderGrid(rows: number, cols: number, fixed: ArrayLike<number>, state: ArrayLike<number>): string {
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    let line = "";
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const code = state[i] === 5 && fixed[i] === 2 ? 6 : state[i]!; // player on a target renders as S
      line += CELL_TEXT[code]!;
    }
    lines.push(line);
  }
  return lines.join("\n");
}

/**
 * Read a grid back from its text (verl-agent cells, or RAGEN's bare `#_O√XPS` symbols).
 * Throws `DataError` on anything else.
 */
export function parseGrid(text: string): SokobanLevel {
  const symbols = "#_O√XPS";
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const grid = lines.map((line) => [...line.replace(/[ \t]/g, "")].map((ch) => {
    const code = symbols.indexOf(ch);
    if (code < 0) throw new DataError(`'${ch}' is not a Sokoban cell (one of ${symbols})`);
    return code;
  }));
  const cols = grid[0]?.length ?? 0;
  if (cols === 0 || grid.some((row) => row.length !== cols)) throw new DataError("a Sokoban grid needs rows of equal, non-zero length");
  const codes = grid.flat();
  const fixed = codes.map((c) => (c === CELL.wall ? 0 : c === CELL.target || c === CELL.boxOnTarget || c === CELL.playerOnTarget ? 2 : 1));
  const state = codes.map((c) => (c === CELL.playerOnTarget ? CELL.player : c));
  return { rows: grid.length, cols, fixed, state };
}

/** Check a level's shape and contents (one player, as many boxes as targets); throws `DataError`. */
export function validateLevel(level: SokobanLevel): void {
  const n = level.rows * level.cols;
  if (!Number.isInteger(level.rows) || !Number.isInteger(level.cols) || level.rows < 3 || level.cols < 3) {
    throw new DataError(`a Sokoban level is at least 3x3, got ${level.rows}x${level.cols}`);
  }
  if (level.fixed.length !== n || level.state.length !== n) throw new DataError(`level grids must hold ${n} cells`);
  let players = 0, boxes = 0, targets = 0;
  for (let i = 0; i < n; i++) {
    const f = level.fixed[i]!, s = level.state[i]!;
    if (f !== 0 && f !== 1 && f !== 2) throw new DataError(`fixed cell ${i} has code ${f}`);
    if ((f === 0) !== (s === 0)) throw new DataError(`cell ${i}: walls of the two grids differ`);
    if (s === CELL.player) players++;
    if (s === CELL.box || s === CELL.boxOnTarget) boxes++;
    if (s === CELL.boxOnTarget && f !== CELL.target) throw new DataError(`cell ${i}: box on target off a target`);
    if (s === CELL.target && f !== CELL.target) throw new DataError(`cell ${i}: target missing from the fixed grid`);
    if (f === CELL.target) targets++;
  }
  if (players !== 1) throw new DataError(`a level needs exactly one player, found ${players}`);
  if (boxes === 0 || boxes !== targets) throw new DataError(`a level needs as many boxes as targets (boxes ${boxes}, targets ${targets})`);
}
