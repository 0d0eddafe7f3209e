// Rollouts on the real environments with scripted experts: the agent layer's prompts, projections
// and history modes against ALFWorld (real game file), Sokoban and EZPoints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Env, Observation, StepResult, TaskSpec } from "../envs/env.ts";
import { AlfworldEnv, gameOfTask } from "../envs/alfworld/env.ts";
import { SokobanEnv, sokobanExpert, sokobanTasks } from "../envs/sokoban/index.ts";
import { EzPointsEnv, ezpointsExpert } from "../envs/ezpoints/index.ts";
import { ezpointsTasks } from "../envs/ezpoints/index.ts";
import { ScriptedPolicy, type ScriptCall } from "../testing/scripted-policy.ts";
import { collectGroups } from "./rollout.ts";
import { policySequences } from "./training-views.ts";
import type { Expert } from "../envs/expert.ts";

const GAME = resolve(import.meta.dirname, "../../../shared/data/alfworld/json_2.1.1/valid_seen/pick_and_place_simple-Book-None-SideTable-329");
const haveData = existsSync(GAME);

/** An env wrapper that exposes the current observation, so a script can ask an expert. */
class Watched implements Env {
  readonly inner: Env;
  current: Observation | undefined;
  constructor(inner: Env) {
    this.inner = inner;
  }
  get id() {
    return this.inner.id;
  }
  get maxSteps() {
    return this.inner.maxSteps;
  }
  get rewardRange() {
    return this.inner.rewardRange;
  }
  reset(task: TaskSpec, seed: number): Observation {
    return (this.current = this.inner.reset(task, seed));
  }
  step(action: string): StepResult {
    const r = this.inner.step(action);
    this.current = r.observation;
    return r;
  }
}

/** Play one task with a policy that answers `format(expert action)` for the current observation. */
async function playWithExpert(env: Watched, expert: Expert, task: TaskSpec, format: (a: string) => string, mode: "window" | "full") {
  const policy = new ScriptedPolicy(Array.from({ length: env.maxSteps }, () => (_c: ScriptCall) => format(expert.act(env.current!))));
  const [t] = await collectGroups(policy, () => env, [task], { seed: 1, groupSize: 1, history: { mode } });
  return { t: t!, policy };
}

test("ALFWorld (real game): the walkthrough, answered in tags, wins in both history modes with masking on", { skip: haveData ? false : "needs ../shared/data/alfworld" }, async () => {
  const dir = join(GAME, (await import("node:fs")).readdirSync(GAME).find((d) => d.startsWith("trial_"))!);
  const task: TaskSpec = { id: "book-329", split: "valid_seen", payload: { file: join(dir, "game.tw-pddl") } };
  const walkthrough = gameOfTask(task).walkthrough!;
  const script = walkthrough.map((a) => `<think>next: ${a}</think>\n<action>${a}</action>`);
  const results = [];
  for (const mode of ["window", "full"] as const) {
    const policy = new ScriptedPolicy(script);
    const [t] = await collectGroups(policy, () => new AlfworldEnv(), [task], { seed: 3, groupSize: 1, history: { mode }, actionMask: true });
    policy.assertConsumed();
    assert.equal(t!.success, true, mode);
    assert.equal(t!.return, 10);
    assert.deepEqual(t!.turns.map((x) => x.actionText), [...walkthrough]);
    assert.ok(t!.turns.every((x) => x.valid && x.masked));
    const first = policy.calls[0]!.promptText;
    assert.ok(first.includes("Your current observation is: -= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room."));
    assert.ok(first.includes("'go to bed 1'\n 'go to diningtable 1'"));
    assert.ok(!first.includes("'help'"));
    results.push(t!);
    for (const s of policySequences(t!)) assert.equal(s.request.allowed?.length, s.lossMask.length);
  }
  assert.match(results[0]!.turns[1]!.promptText, /Your task is to: put some book on sidetable\.\n/);
});

test("Sokoban: the BFS expert answered through the prompt protocol solves generated levels", async () => {
  for (const task of sokobanTasks("validation", 3, 5)) {
    const { t, policy } = await playWithExpert(new Watched(new SokobanEnv()), sokobanExpert(task, 0), task, (a) => `<think>push</think><action>${a}</action>`, "window");
    assert.equal(t.success, true, t.taskId);
    assert.ok(t.turns.every((x) => x.valid));
    assert.ok(Math.abs(t.return - (-0.1 * t.turns.length + 11)) < 1e-6);
    if (t.turns.length > 1) assert.match(policy.calls[1]!.promptText, /\[Observation 1: '[^]*', Action 1: '(Up|Down|Left|Right)'\]/);
  }
});

test("EZPoints: JSON answers are projected to tokens and the expert's formulas win", async () => {
  for (const task of ezpointsTasks("validation", 4, 2)) {
    const { t, policy } = await playWithExpert(new Watched(new EzPointsEnv()), ezpointsExpert(task, 0), task, (a) => `{"thoughts": "append ${a}", "action": "${a}"}`, "full");
    assert.equal(t.success, true, t.taskId);
    assert.equal(t.turns[t.turns.length - 1]!.actionText, "=");
    assert.match(policy.calls[0]!.promptText, /Cards: .*\nFormula: ''/);
  }
});
