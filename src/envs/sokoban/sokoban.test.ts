// Sokoban: generated levels are well formed and solvable, gym-sokoban's dynamics and rewards,
// verl-agent's exact text cells, frozen regression levels, the BFS expert, and the conformance suite.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DataError } from "../../core/errors.ts";
import { Rng } from "../../core/rng.ts";
import { runEnvConformance } from "../../testing/env-conformance.ts";
import { NoisyExpert, playEpisode } from "../expert.ts";
import type { TaskSpec } from "../env.ts";
import {
  CELL, generateLevel, parseGrid, renderGrid, SOKOBAN_ACTION_NAMES, SokobanEnv, sokobanExpert, sokobanTasks, solveSokoban,
} from "./index.ts";

const gridTask = (rows: string[]): TaskSpec => ({ id: `grid/${rows.join("|")}`, split: "test", payload: { grid: rows.join("\n") } });
const compact = (text: string) => text.split("\n").map((r) => r.replace(/[ \t]/g, "")).join("|");

test("every generated level: walls around, one player, one box, one target, unsolved, solvable", () => {
  for (let seed = 0; seed < 300; seed++) {
    const l = generateLevel(seed);
    for (let r = 0; r < l.rows; r++) for (let c = 0; c < l.cols; c++) {
      if (r === 0 || c === 0 || r === l.rows - 1 || c === l.cols - 1) assert.equal(l.fixed[r * l.cols + c], CELL.wall, `seed ${seed} border`);
    }
    assert.equal(l.state.filter((v) => v === CELL.player).length, 1, `seed ${seed} player`);
    assert.equal(l.state.filter((v) => v === CELL.box).length, 1, `seed ${seed} box`);
    assert.equal(l.state.filter((v) => v === CELL.boxOnTarget).length, 0, `seed ${seed} unsolved`);
    assert.equal(l.fixed.filter((v) => v === CELL.target).length, 1, `seed ${seed} target`);
    const plan = solveSokoban(l);
    assert.ok(plan !== undefined && plan.length > 0, `seed ${seed} solvable`);
  }
});

test("levels are deterministic per seed and frozen (regression fixtures)", () => {
  const frozen: Record<number, string> = {
    0: "######|#_O__#|#__X_#|#___P#|######|######",
    1: "######|##___#|##PX_#|##___#|##_O_#|######",
    2: "######|#_O###|#P_###|#_X###|#__###|######",
    65536: "######|###__#|###O_#|##_XP#|###__#|######",
    123456789: "######|#_P_##|#_X###|#_O_##|#___##|######",
  };
  for (const [seed, grid] of Object.entries(frozen)) {
    const l = generateLevel(Number(seed));
    assert.equal(compact(renderGrid(l.rows, l.cols, l.fixed, l.state)), grid, `seed ${seed}`);
  }
  assert.deepEqual(generateLevel(99, { rows: 8, cols: 7, boxes: 2 }), generateLevel(99, { rows: 8, cols: 7, boxes: 2 }));
});

test("larger rooms with two boxes generate and solve", () => {
  for (let seed = 0; seed < 20; seed++) {
    const l = generateLevel(seed, { rows: 8, cols: 8, boxes: 2 });
    assert.equal(l.state.filter((v) => v === CELL.box).length, 2);
    assert.ok(solveSokoban(l) !== undefined, `seed ${seed}`);
  }
});

test("the text grid uses verl-agent's exact cells, player on target as S", () => {
  const env = new SokobanEnv();
  const obs = env.reset(gridTask(["#####", "#PXO#", "#####"]), 0);
  assert.equal(obs.text, " # \t # \t # \t # \t # \t\n # \t P \t X \t O \t # \t\n # \t # \t # \t # \t # \t");
  const l = parseGrid("#####\n#_XS#\n#####");
  assert.equal(renderGrid(l.rows, l.cols, l.fixed, l.state), " # \t # \t # \t # \t # \t\n # \t _ \t X \t S \t # \t\n # \t # \t # \t # \t # \t");
  assert.throws(() => parseGrid("#?#"), DataError);
  assert.throws(() => env.reset(gridTask(["#####", "#_X_#", "#####"]), 0), DataError);
});

test("rewards: −0.1 per step, +1 on target, −1 off, +10 when solved (10.9 on the solving push)", () => {
  const env = new SokobanEnv();
  env.reset(gridTask(["#######", "#PXO__#", "#######"]), 0);
  const r1 = env.step("right");
  assert.deepEqual([r1.reward, r1.done, r1.won], [-0.1 + 1 + 10, true, true]);
  const two = gridTask(["########", "#PXO_O_#", "#__X___#", "########"]);
  env.reset(two, 0);
  assert.ok(Math.abs(env.step("right").reward - 0.9) < 1e-12); // first box onto the first target
  assert.ok(Math.abs(env.step("right").reward - -1.1) < 1e-12); // pushed off it again
  assert.ok(Math.abs(env.step("right").reward - 0.9) < 1e-12); // onto the second target
});

test("walls and blocked boxes stop the player; still and unknown actions leave the grid and count as steps", () => {
  const env = new SokobanEnv({ maxSteps: 6 });
  const start = env.reset(gridTask(["######", "#PX#O#", "#___##", "######"]), 0);
  const blocked = env.step("right"); // box against a wall: nothing moves, step counted
  assert.equal(blocked.observation.text, start.text);
  assert.ok(Math.abs(blocked.reward - -0.1) < 1e-12);
  for (const a of ["still", "Still", "jump", ""]) {
    const r = env.step(a);
    assert.equal(r.observation.text, start.text);
    assert.ok(Math.abs(r.reward - -0.1) < 1e-12);
    assert.equal(r.done, false);
    assert.equal(r.actionRecognized, a.toLowerCase() === "still");
  }
  assert.equal(env.step("up").done, true, "the sixth step truncates, four of them no-ops");
});

test("issue 11: an agent that only says still or garbage gets done at the benchmark's 15 steps", () => {
  for (const action of ["still", "<action>dance</action>", ""]) {
    const env = new SokobanEnv();
    assert.equal(env.maxSteps, 15);
    env.reset(sokobanTasks("validation", 1)[0]!, 0);
    const dones: boolean[] = [];
    for (let t = 0; t < 15; t++) dones.push(env.step(action).done);
    assert.deepEqual(dones, [...Array(14).fill(false), true], action);
    assert.throws(() => env.step(action), /after the episode ended/);
  }
});

test("the rewards along a BFS solution sum to −0.1·len + 11", () => {
  for (const task of sokobanTasks("validation", 40)) {
    const env = new SokobanEnv({ maxSteps: 100 });
    const obs = env.reset(task, 0);
    const plan = solveSokoban(parseGrid(obs.text))!;
    let total = 0, won = false;
    for (const a of plan) {
      const r = env.step(SOKOBAN_ACTION_NAMES[a]!);
      total += r.reward;
      won = r.won;
    }
    assert.ok(won, task.id);
    assert.ok(Math.abs(total - (-0.1 * plan.length + 11)) < 1e-9, `${task.id}: ${total} over ${plan.length}`);
  }
});

test("the noisy expert is deterministic per seed and wins less than the expert", () => {
  const tasks = sokobanTasks("train", 60);
  const run = (eps: number) => tasks.map((task, i) => {
    const e = new NoisyExpert(sokobanExpert(task, i), { epsilon: eps, rng: Rng.from(i) });
    return playEpisode(new SokobanEnv(), task, i, (o) => e.act(o)).won;
  });
  const noisy = run(0.5);
  assert.deepEqual(run(0.5), noisy);
  const rate = (ws: boolean[]) => ws.filter(Boolean).length / ws.length;
  assert.equal(rate(run(0)), 1);
  assert.ok(rate(noisy) < 1 && rate(noisy) > 0.2, `noisy rate ${rate(noisy)}`);
});

runEnvConformance({
  name: "sokoban",
  makeEnv: () => new SokobanEnv(),
  tasks: [...sokobanTasks("train", 4), ...sokobanTasks("validation", 3)],
  sampleActions: ["up", "left", "still", "<action>down</action>", "🙂", "RIGHT"],
  invalidObservation: (before) => before.text,
  countedActions: ["up", "down", "left", "right"],
  expert: sokobanExpert,
});
