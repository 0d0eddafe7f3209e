import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedPolicy } from "../testing/scripted-policy.ts";
import { TOY_TASK, ToyHouse } from "../testing/toy-house.ts";
import { alfworldRenderer } from "./prompts/alfworld.ts";
import { collectGroups } from "./rollout.ts";
import { appendTrajectories, parseTrajectories, readTrajectories, trajectoryJsonLine } from "./jsonl.ts";

const act = (a: string) => `<think>t</think><action>${a}</action>`;

test("a JSONL dump round-trips trajectories exactly, masks included; appends accumulate", async () => {
  const policy = new ScriptedPolicy([act("look"), act("go to table 1"), act("look"), act("inventory")]);
  const trajs = await collectGroups(policy, () => new ToyHouse(), [TOY_TASK], { seed: 1, groupSize: 2, renderer: alfworldRenderer, maxSteps: 2, maxActionTokens: 64, actionMask: true });
  const dir = mkdtempSync(join(tmpdir(), "seed-jsonl-"));
  try {
    const path = join(dir, "samples", "step-000001.jsonl");
    appendTrajectories(path, trajs.slice(0, 1));
    appendTrajectories(path, trajs.slice(1), { extra: (t) => ({ skill: `skill of member ${t.memberIndex}` }) });
    assert.equal(readFileSync(path, "utf8").split("\n").filter(Boolean).length, 2);
    const back = readTrajectories(path);
    assert.deepEqual(back[0], trajs[0]);
    assert.deepEqual({ ...back[1], skill: undefined }, { ...trajs[1], skill: undefined });
    assert.equal((back[1] as unknown as { skill: string }).skill, "skill of member 1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const readable = JSON.parse(trajectoryJsonLine(trajs[0]!, { tokens: false })) as { turns: Record<string, unknown>[] };
  assert.equal(readable.turns[0]!["sampledTokens"], undefined);
  assert.equal(readable.turns[0]!["actionText"], "look");
  assert.throws(() => parseTrajectories(trajectoryJsonLine(trajs[0]!, { tokens: false })), /turn\.promptTokens is not a list of numbers \(written with tokens: false\?\)/);
});

test("malformed dumps name the line of the problem", () => {
  assert.throws(() => parseTrajectories('\n{"envId":"x"}', "f.jsonl"), /^DataError: f\.jsonl:2: not a trajectory/);
  assert.throws(() => parseTrajectories("{nope", "f.jsonl"), /f\.jsonl:1: not JSON/);
  assert.throws(() => readTrajectories("/nonexistent/x.jsonl"), /cannot read/);
  assert.deepEqual(parseTrajectories("\n\n"), []);
});
