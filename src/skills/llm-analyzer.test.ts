import { test } from "node:test";
import assert from "node:assert/strict";
import { batchLlmAnalyzer, batchOf, llmAnalyzer, type BatchComplete } from "./llm-analyzer.ts";
import { analysisMetrics, skillTexts, skillValidity } from "./analyzer.ts";
import { analyzerPrompt } from "./template.ts";
import type { SerializedTrajectory } from "./serialize.ts";
import { RemoteError } from "../core/errors.ts";
import { gatedDistillation } from "../math/distill.ts";
import { batchFromLengths, broadcastToTokens } from "../math/batch.ts";

const traj = (i: number, outcome: "success" | "failure" = "failure"): SerializedTrajectory => ({
  text: `Task: task ${i}\nStep 0\nObservation: o\nAction: look\nAction valid: true\nReward: 0.000000\nReturn: 0.000000\nOutcome: ${outcome}`,
  task: `task ${i}`, outcome, steps: 1,
});

/** A scripted endpoint: answers come from `script(prompt, call)`, every prompt is recorded. */
function scripted(script: (prompt: string, call: number) => string) {
  const prompts: string[][] = [];
  const complete: BatchComplete = async (ps) => {
    prompts.push([...ps]);
    return ps.map((p) => script(p, prompts.length));
  };
  return { complete, prompts };
}

test("a valid first answer is accepted in one attempt; the prompt is the Stage-1 template", async () => {
  const { complete, prompts } = scripted(() => '{"skill": "Open the fridge before looking inside it."}');
  const [a] = await batchLlmAnalyzer(complete).analyze([traj(1)]);
  assert.ok(a!.ok);
  assert.equal(a!.attempts, 1);
  assert.deepEqual(prompts, [[analyzerPrompt(traj(1))]]);
});

test("an unusable answer is retried with the parse error, the bad answer and the schema; the repaired one is accepted", async () => {
  const { complete, prompts } = scripted((_, call) => (call === 1 ? "The agent should open the fridge." : "```json\n{'skill': 'Open the fridge before looking inside it.',}\n```"));
  const [a] = await batchLlmAnalyzer(complete).analyze([traj(1)]);
  assert.ok(a!.ok && a!.attempts === 2 && a!.skill === "Open the fridge before looking inside it.");
  const retry = prompts[1]![0]!;
  assert.ok(retry.startsWith(analyzerPrompt(traj(1))));
  assert.match(retry, /no JSON object was found/);
  assert.match(retry, /The agent should open the fridge\./);
  assert.ok(retry.endsWith('{"skill": "<one short instruction for the agent>"}'));
});

test("after the last attempt a trajectory has no skill: v = 0, and its distillation mask is zero", async () => {
  const { complete, prompts } = scripted((p) => (p.includes("task 2") ? "garbage" : '{"skill": "Check every drawer before giving up."}'));
  const out = await batchLlmAnalyzer(complete, { attempts: 3 }).analyze([traj(1), traj(2), traj(3)]);
  assert.deepEqual(skillValidity(out), [1, 0, 1]);
  assert.deepEqual(skillTexts(out)[1], "");
  const failed = out[1]!;
  assert.ok(!failed.ok && failed.attempts === 3 && failed.issues.length === 3 && failed.answers.length === 3);
  assert.deepEqual(prompts.map((p) => p.length), [3, 1, 1]); // only the failing trajectory is re-asked
  const m = analysisMetrics(out);
  assert.equal(m["skills/valid_frac"], 2 / 3);
  assert.equal(m["skills/issue/no-json"], 1);
  // The trainer's use: v_τ per step-sample masks the OPD term of the failed trajectory.
  const batch = batchFromLengths([2, 2, 2]);
  const opd = gatedDistillation({ batch, policyLogprobs: [-1, -1, -1, -1, -1, -1], teacherLogprobs: [-0.5, -2, -1, -1, -3, 0], skillValid: skillValidity(out) });
  assert.deepEqual(Array.from(opd.dLogprobs.slice(2, 4)), [0, 0]);
  assert.ok(opd.dLogprobs[0]! < 0 && opd.dLogprobs[5]! < 0);
  assert.equal(broadcastToTokens(batch, skillValidity(out))[3], 0);
});

test("attempts: 1 is the paper's Stage-2 path (one greedy answer, no retry)", async () => {
  const { complete, prompts } = scripted(() => "nope");
  const [a] = await batchLlmAnalyzer(complete, { attempts: 1 }).analyze([traj(1)]);
  assert.ok(!a!.ok && a!.attempts === 1);
  assert.equal(prompts.length, 1);
});

test("a RemoteError becomes a counted 'request-failed' issue; any other error propagates", async () => {
  let calls = 0;
  const flaky: BatchComplete = async (ps) => {
    if (calls++ === 0) throw new RemoteError("HTTP 503 from http://localhost:8000/v1");
    return ps.map(() => '{"skill": "Search the countertops first."}');
  };
  const [a] = await batchLlmAnalyzer(flaky).analyze([traj(1)]);
  assert.ok(a!.ok && a!.attempts === 2);
  const down: BatchComplete = async () => {
    throw new RemoteError("connection refused");
  };
  const [b] = await batchLlmAnalyzer(down).analyze([traj(1)]);
  assert.ok(!b!.ok && b!.issues.every((i) => i.kind === "request-failed"));
  assert.equal(analysisMetrics([b!])["skills/issue/request-failed"], 1);
  const buggy: BatchComplete = async () => {
    throw new TypeError("bug");
  };
  await assert.rejects(batchLlmAnalyzer(buggy).analyze([traj(1)]), TypeError);
});

test("batchOf keeps order and bounds concurrency", async () => {
  let inFlight = 0, peak = 0;
  const one = async (p: string) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, 2));
    inFlight--;
    return p.toUpperCase();
  };
  const out = await batchOf(one, 3)(["a", "b", "c", "d", "e", "f", "g"]);
  assert.deepEqual(out, ["A", "B", "C", "D", "E", "F", "G"]);
  assert.equal(peak, 3);
  assert.throws(() => batchOf(one, 0), RangeError);
});

test("llmAnalyzer takes a one-prompt complete function, as the OpenAI-compatible client offers", async () => {
  const asked: string[] = [];
  const analyzer = llmAnalyzer(async (prompt) => {
    asked.push(prompt);
    return asked.length === 1 ? "{}" : '{"skill": "Take the mug before going to the sink."}';
  }, { concurrency: 1 });
  const [a] = await analyzer.analyze([traj(4)]);
  assert.ok(a!.ok && a!.attempts === 2);
  assert.equal(asked[0], analyzerPrompt(traj(4)));
  assert.match(asked[1]!, /has no "skill" field/);
});
