/**
 * The planner over the true game state: on the 274 real evaluation games its distance at reset
 * equals the PDDL planner's walkthrough length and falls by exactly one per walkthrough step; on
 * generated games every admissible command changes the distance by at least -1 (one step can
 * shorten a plan by one at most), the plan's own first command shortens it by exactly one, and
 * the engine is left untouched.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../core/rng.ts";
import { AlfworldEngine } from "./engine.ts";
import { alfworldGeneratedTasks } from "./generator/generate.ts";
import { gameOfTask } from "./env.ts";
import { listGames, loadGameFile } from "./load.ts";
import { goalShape, planDistance } from "./plan-distance.ts";
import { alfworldDataRoot, NO_DATA } from "./test-data.ts";

const data = alfworldDataRoot();

test("real games: distance at reset = walkthrough length, and each walkthrough step shortens it by one", { skip: data === undefined ? NO_DATA : undefined }, () => {
  const refs = listGames(data!, ["valid_seen", "valid_unseen"]);
  assert.equal(refs.length, 274);
  for (const ref of refs) {
    const game = loadGameFile(ref.path, ref.id);
    const engine = new AlfworldEngine(game);
    let d = planDistance(engine)!.steps;
    assert.equal(d, game.walkthrough!.length, ref.id);
    for (const cmd of game.walkthrough!) {
      engine.step(cmd);
      const next = planDistance(engine)!.steps;
      assert.equal(next, d - 1, `${ref.id} after '${cmd}'`);
      d = next;
    }
    assert.ok(engine.won());
  }
});

test("generated games: random commands never shorten the plan by more than one; the plan's first command shortens it by one", () => {
  const rng = Rng.from(7);
  for (const task of alfworldGeneratedTasks("train", 40, { seed: 3 })) {
    const game = gameOfTask(task);
    assert.ok(goalShape(game.goal) !== undefined, game.id);
    const engine = new AlfworldEngine(game);
    for (let step = 0; step < 12 && !engine.won(); step++) {
      const before = planDistance(engine)!;
      assert.ok(Number.isFinite(before.steps) && before.steps > 0, `${game.id}: ${before.steps}`);
      const admissible = [...engine.admissible()];
      const snap = engine.snapshot();
      // Following the plan: exactly one shorter, and the planner left the engine as it found it.
      assert.deepEqual(engine.admissible(), admissible);
      engine.step(before.plan[0]!);
      assert.equal(planDistance(engine)!.steps, before.steps - 1, `${game.id}: '${before.plan[0]}'`);
      engine.restore(snap);
      const cmd = rng.choice(admissible);
      engine.step(cmd);
      const after = planDistance(engine)!.steps;
      assert.ok(after >= before.steps - 1, `${game.id}: '${cmd}' ${before.steps} -> ${after}`);
    }
  }
});

test("goal shapes: a sliced object is not covered; the won state is at distance zero", () => {
  const sliced = { op: "exists", vars: [{ name: "?o", type: "object" }], body: { op: "and", args: [
    { op: "atom", pred: "objecttype", args: ["?o", "appletype"] }, { op: "atom", pred: "issliced", args: ["?o"] },
  ] } } as const;
  assert.equal(goalShape(sliced), undefined);
  const game = gameOfTask(alfworldGeneratedTasks("train", 1, { seed: 1 })[0]!);
  const engine = new AlfworldEngine(game);
  for (const cmd of planDistance(engine)!.plan) engine.step(cmd);
  assert.ok(engine.won());
  assert.deepEqual(planDistance(engine), { steps: 0, plan: [] });
});
