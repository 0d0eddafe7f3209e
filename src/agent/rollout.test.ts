import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedPolicy, type ScriptCall } from "../testing/scripted-policy.ts";
import { TinyTokenizer } from "../testing/tiny-tokenizer.ts";
import { TOY_TASK, ToyHouse } from "../testing/toy-house.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import { alfworldRenderer } from "./prompts/alfworld.ts";
import { collectGroups, type RolloutOptions } from "./rollout.ts";
import { policySequences, splitByTurn, teacherSequences } from "./training-views.ts";
import type { Trajectory } from "../core/trajectory.ts";

const act = (a: string) => `<think>ok</think><action>${a}</action>`;
const base: RolloutOptions = { seed: 7, groupSize: 1, renderer: alfworldRenderer, maxActionTokens: 64 };
const task = { ...TOY_TASK };

function envs(list: ToyHouse[]) {
  return () => {
    const e = new ToyHouse();
    list.push(e);
    return e;
  };
}

test("an invalid response is flagged, the env answers it as any bad action, and that answer reaches the next prompt", async () => {
  const made: ToyHouse[] = [];
  const policy = new ScriptedPolicy(["<think>hm</think> go north", act("go to table 1")]);
  const [traj] = await collectGroups(policy, envs(made), [task], { ...base, envSeeds: [0], maxSteps: 2 });
  assert.deepEqual(traj!.turns.map((t) => t.valid), [false, true]);
  assert.deepEqual(made[0]!.received, ["<think>hm</think> go north".toLowerCase().slice(-30), "go to table 1"]);
  assert.equal(traj!.turns[1]!.observation, "Nothing happens.");
  assert.match(policy.calls[1]!.promptText, /current observation is: Nothing happens\./);
  // The window shows the string sent to the environment (here the protocol's fallback tail).
  assert.ok(policy.calls[1]!.promptText.includes(`Action 1: '${made[0]!.received[0]}']`));
  assert.equal(traj!.endedBy, "truncated");
  policy.assertConsumed();
});

test("a won episode ends terminated with the env reward, success and score", async () => {
  const policy = new ScriptedPolicy([act("go to table 1"), act("take key 1 from table 1"), act("go to door 1"), act("open door 1")]);
  const [traj] = await collectGroups(policy, () => new ToyHouse(), [task], { ...base, envSeeds: [0] });
  assert.equal(traj!.endedBy, "terminated");
  assert.equal(traj!.success, true);
  assert.equal(traj!.return, 10);
  assert.deepEqual(traj!.turns.map((t) => t.reward), [0, 0, 0, 10]);
  policy.assertConsumed();
});

function envAuthoredTokensWithLoss(traj: Trajectory): number {
  let bad = 0;
  for (const s of policySequences(traj)) {
    const scored = s.request.tokens.slice(s.request.start);
    // Every scored position with mask 1 must lie inside a sampled segment; every other must be 0.
    const sampledAt = new Set<number>();
    for (const seg of s.segments) for (let i = 0; i < seg.length; i++) sampledAt.add(seg.offset + i);
    scored.forEach((_, i) => {
      if (s.lossMask[i] === 1 && !sampledAt.has(i)) bad++;
      if (s.lossMask[i] === 0 && sampledAt.has(i)) bad++;
    });
  }
  return bad;
}

for (const mode of ["window", "full"] as const) {
  test(`${mode}: the loss mask is 1 exactly on policy-sampled ids and the scored ids are the sampled ones`, async () => {
    const policy = new ScriptedPolicy([act("look"), "<think>x</think> no tags", act("go to table 2")]);
    const [traj] = await collectGroups(policy, () => new ToyHouse(), [task], { ...base, history: { mode }, maxSteps: 3 });
    assert.equal(envAuthoredTokensWithLoss(traj!), 0);
    const seqs = policySequences(traj!);
    assert.equal(seqs.length, mode === "window" ? 3 : 1);
    for (const s of seqs) {
      for (const seg of s.segments) {
        const ids = s.request.tokens.slice(s.request.start + seg.offset, s.request.start + seg.offset + seg.length);
        assert.deepEqual(ids, traj!.turns[seg.turn]!.sampledTokens);
      }
      assert.equal(s.lossMask.length, s.request.tokens.length - s.request.start);
    }
    // The env-authored tokens exist and were excluded: full mode has observations between actions.
    if (mode === "full") assert.ok(seqs[0]!.lossMask.includes(0));
    // Per-turn values come back in turn order, one per sampled id.
    const scored = await policy.score(seqs.map((x) => x.request));
    const perTurn = splitByTurn(seqs, scored);
    assert.deepEqual([...perTurn.keys()].sort(), [0, 1, 2]);
    traj!.turns.forEach((t, i) => assert.deepEqual(Array.from(perTurn.get(i)!), Array.from(Float32Array.from(t.sampledLogprobs))));
  });
}

test("full mode: the prompt of every step is the previous prompt + the sampled ids + a new user turn", async () => {
  const policy = new ScriptedPolicy([act("look"), act("go to table 1"), act("inventory")]);
  const [traj] = await collectGroups(policy, () => new ToyHouse(), [task], { ...base, history: { mode: "full" }, maxSteps: 3 });
  const chat = new ChatFormat(policy.tokenizer);
  let seq: number[] = [];
  traj!.turns.forEach((t, i) => {
    seq = [...seq, ...t.promptTokens];
    assert.deepEqual([...policy.calls[i]!.request.prompt], seq, `step ${i}`);
    seq = [...seq, ...t.sampledTokens];
  });
  assert.deepEqual(traj!.turns[1]!.promptTokens, chat.continuation(traj!.turns[1]!.promptText, traj!.turns[0]!.sampledTokens));
  assert.match(traj!.turns[1]!.promptText, /^You are now at step 2 and your current observation is: You look around\./);
});

test("all members of a group start from the same observation; groups differ by env seed", async () => {
  const policy = new ScriptedPolicy(Array(8).fill(act("look")));
  const trajs = await collectGroups(policy, () => new ToyHouse(), [task, task], { ...base, groupSize: 4, maxSteps: 1, envSeeds: [0, 1] });
  assert.equal(trajs.length, 8);
  const prompts = policy.calls.map((c) => c.promptText);
  for (let m = 1; m < 4; m++) assert.equal(prompts[m], prompts[0]);
  assert.deepEqual(trajs.map((t) => [t.groupIndex, t.memberIndex, t.seed]), [[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0], [1, 0, 1], [1, 1, 1], [1, 2, 1], [1, 3, 1]]);
  const seeds = new Set(policy.calls.map((c) => c.request.seed));
  assert.equal(seeds.size, 8, "every member samples with its own seed");
});

test("sample seeds derive from (seed, update, group, member, step), not from batch composition", async () => {
  const run = async (groups: number, update: number) => {
    const p = new ScriptedPolicy(Array(groups * 2 * 2).fill(act("look")));
    await collectGroups(p, () => new ToyHouse(), Array(groups).fill(task), { ...base, groupSize: 2, maxSteps: 2, update, envSeeds: [0, 0, 0] });
    return p.calls.map((c) => c.request.seed);
  };
  const one = await run(1, 3);
  const three = await run(3, 3);
  assert.deepEqual([three[0], three[1], three[6], three[7]], one);
  assert.notDeepEqual(await run(1, 4), one);
});

test("window and full modes extract the same actions from the same responses", async () => {
  const script = [act("go to table 2"), "<think>?</think>maybe", act("take key 1 from table 2"), act("go to door 1"), act("open door 1")];
  const window = await collectGroups(new ScriptedPolicy(script), () => new ToyHouse(), [task], { ...base, envSeeds: [1] });
  const full = await collectGroups(new ScriptedPolicy(script), () => new ToyHouse(), [task], { ...base, envSeeds: [1], history: { mode: "full" } });
  const view = (t: Trajectory) => t.turns.map((x) => [x.actionText, x.valid, x.reward, x.observation]);
  assert.deepEqual(view(full[0]!), view(window[0]!));
  assert.equal(full[0]!.success, true);
});

test("the window holds the last k projected actions with absolute step numbers", async () => {
  const actions = ["look", "inventory", "go to table 1", "go to table 2", "look"];
  const policy = new ScriptedPolicy([...actions.map(act), act("look")]);
  await collectGroups(policy, () => new ToyHouse(), [task], { ...base, history: { mode: "window", k: 2 }, maxSteps: 6 });
  const last = policy.calls[5]!.promptText;
  const lines = last.split("\n").filter((l) => l.startsWith("[Observation"));
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^\[Observation 4: 'You arrive at table 1\..*', Action 4: 'go to table 2'\]$/);
  assert.match(lines[1]!, /^\[Observation 5: '.*', Action 5: 'look'\]$/);
  assert.match(last, /You have taken 5 step\(s\) so far\. Here are your last 2 /);
  assert.match(last, /You are now at step 6 /);
});

test("context limit: window mode drops old history to fit; full mode ends the episode with context-limit", async () => {
  const tok = new TinyTokenizer();
  const chat = new ChatFormat(tok);
  const probe = new ScriptedPolicy(Array(4).fill(act("look")));
  await collectGroups(probe, () => new ToyHouse(), [task], { ...base, history: { mode: "window", k: 3 }, maxSteps: 4 });
  const lengths = probe.calls.map((c) => c.request.prompt.length);
  // A context that fits the step-3 prompt (2 records) but not the step-4 prompt with 3 records.
  const limit = lengths[2]! + 64 + 20;
  assert.ok(lengths[3]! + 64 > limit);
  const windowed = new ScriptedPolicy(Array(4).fill(act("look")), { maxContext: limit });
  const [w] = await collectGroups(windowed, () => new ToyHouse(), [task], { ...base, history: { mode: "window", k: 3 }, maxSteps: 4 });
  assert.equal(w!.turns.length, 4);
  assert.ok(windowed.calls.every((c) => c.request.prompt.length + 64 <= limit));
  assert.ok(windowed.calls[3]!.promptText.split("\n").filter((l) => l.startsWith("[Observation")).length < 3);

  const fullPolicy = new ScriptedPolicy(Array(30).fill(act("look")), { maxContext: 900 });
  const [f] = await collectGroups(fullPolicy, () => new ToyHouse(), [task], { ...base, history: { mode: "full" }, maxSteps: 30 });
  assert.equal(f!.endedBy, "context-limit");
  assert.ok(f!.turns.length > 0 && f!.turns.length < 30);
  const total = f!.turns.reduce((n, t) => n + t.promptTokens.length + t.sampledTokens.length, 0);
  assert.ok(total <= 900);
  fullPolicy.calls.forEach((c) => assert.ok(c.request.prompt.length + 64 <= 900));
  assert.equal(chat.stopTokens.length, 2);

  // A first prompt that cannot fit ends the episode before any call, never an exception.
  const tiny = new ScriptedPolicy([], { maxContext: 100 });
  const [t] = await collectGroups(tiny, () => new ToyHouse(), [task], { ...base, history: { mode: "full" } });
  assert.equal(t!.endedBy, "context-limit");
  assert.equal(t!.turns.length, 0);
  assert.deepEqual(policySequences(t!), []);
});

test("action masking restricts the action to the admissible list and is recorded for scoring", async () => {
  const policy = new ScriptedPolicy([act("go to table 1")]);
  const [traj] = await collectGroups(policy, () => new ToyHouse(), [task], { ...base, maxSteps: 1, actionMask: true });
  const turn = traj!.turns[0]!;
  assert.equal(turn.masked, true);
  assert.equal(turn.allowedTokens!.length, turn.sampledTokens.length);
  const restricted = turn.allowedTokens!.filter((a) => a !== null);
  assert.ok(restricted.length >= "go to table 1</action>".length);
  const [seq] = policySequences(traj!);
  const scored = await policy.score([seq!.request]);
  // Uniform-logit double: masked positions score -ln|allowed|, exactly what sampling recorded.
  scored[0]!.forEach((lp, i) => assert.ok(Math.abs(lp - turn.sampledLogprobs[i]!) < 1e-5));
  // A scripted action outside the list would violate the mask: the double refuses it.
  const bad = new ScriptedPolicy([act("fly away")]);
  await assert.rejects(collectGroups(bad, () => new ToyHouse(), [task], { ...base, maxSteps: 1, actionMask: true }), /outside the action mask/);
});

test("promptTransform changes the student prompt; teacher sequences rebuild it and keep the sampled ids", async () => {
  const skill = (text: string) => text.replace("Your task is to: open the door.", "Your task is to: open the door.\n\n[SKILL]\n");
  const policy = new ScriptedPolicy([act("look"), act("inventory")]);
  const [traj] = await collectGroups(policy, () => new ToyHouse(), [task], { ...base, maxSteps: 2 });
  const chat = new ChatFormat(policy.tokenizer);
  const teacher = teacherSequences(traj!, skill, chat);
  assert.equal(teacher.length, 2);
  teacher.forEach((s, i) => {
    const turn = traj!.turns[i]!;
    assert.deepEqual(s.request.tokens.slice(s.request.start), turn.sampledTokens);
    assert.match(policy.tokenizer.decode(s.request.tokens.slice(0, s.request.start)), /\[SKILL\]/);
    assert.deepEqual(s.request.tokens.slice(0, s.request.start), chat.prompt(skill(turn.promptText)));
  });
  // Full mode: H once, on the first user message; later ids unchanged.
  const fp = new ScriptedPolicy([act("look"), act("inventory")]);
  const [ft] = await collectGroups(fp, () => new ToyHouse(), [task], { ...base, maxSteps: 2, history: { mode: "full" } });
  const [student] = policySequences(ft!);
  const [fteacher] = teacherSequences(ft!, skill, chat);
  assert.deepEqual(fteacher!.request.tokens.slice(fteacher!.request.start), student!.request.tokens.slice(student!.request.start));
  assert.ok(fteacher!.request.start > student!.request.start);
  // Left truncation keeps the sampled part whole.
  const [cut] = teacherSequences(ft!, skill, chat, { maxContext: student!.request.tokens.length });
  assert.equal(cut!.request.tokens.length, student!.request.tokens.length);
  assert.deepEqual(cut!.request.tokens.slice(cut!.request.start), student!.request.tokens.slice(student!.request.start));
  assert.ok((cut!.promptCut ?? 0) > 0 && fteacher!.promptCut === undefined, "the cut is counted");
  // With keepChars the cut falls after the protected head: the task line and the skill survive.
  const keepEnd = (text: string) => text.indexOf("[SKILL]") + "[SKILL]".length;
  const [kept] = teacherSequences(ft!, skill, chat, { maxContext: student!.request.tokens.length, keepChars: keepEnd });
  assert.equal(kept!.request.tokens.length, student!.request.tokens.length);
  assert.equal(kept!.promptCut, cut!.promptCut);
  assert.match(policy.tokenizer.decode(kept!.request.tokens.slice(0, kept!.request.start)), /Your task is to: open the door\.\n\n\[SKILL\]/);
  // Left truncation loses the chat header's start; the protected cut keeps it.
  assert.deepEqual(kept!.request.tokens.slice(0, 4), fteacher!.request.tokens.slice(0, 4));
  assert.notDeepEqual(cut!.request.tokens.slice(0, 4), fteacher!.request.tokens.slice(0, 4));
  assert.deepEqual(kept!.request.tokens.slice(kept!.request.start), student!.request.tokens.slice(student!.request.start));

  const seen: string[] = [];
  const sp = new ScriptedPolicy([(c: ScriptCall) => (seen.push(c.promptText), act("look"))]);
  const [st] = await collectGroups(sp, () => new ToyHouse(), [task], { ...base, maxSteps: 1, promptTransform: (t) => skill(t) });
  assert.match(seen[0]!, /\[SKILL\]/);
  assert.match(st!.turns[0]!.promptText, /\[SKILL\]/);
});

test("the scripted policy throws beyond its script and reports unconsumed steps", async () => {
  const policy = new ScriptedPolicy([act("look")]);
  await assert.rejects(collectGroups(policy, () => new ToyHouse(), [task], { ...base, maxSteps: 2 }), /beyond the script/);
  const spare = new ScriptedPolicy([act("look"), act("look")]);
  await collectGroups(spare, () => new ToyHouse(), [task], { ...base, maxSteps: 1 });
  assert.throws(() => spare.assertConsumed(), /1 of 2 script step\(s\) were never used/);
});

test("bad options are usage errors, not crashes", async () => {
  const policy = new ScriptedPolicy([]);
  await assert.rejects(collectGroups(policy, () => new ToyHouse(), [task], { ...base, groupSize: 0 }), /groupSize must be a positive integer/);
  await assert.rejects(collectGroups(policy, () => new ToyHouse({ id: "nowhere" }), [task], { seed: 1 }), /no prompt renderer for environment 'nowhere'/);
});

test("groupOffset makes a batch rolled out in pieces sample exactly as in one call", async () => {
  const whole = new ScriptedPolicy(Array(4).fill(act("look")));
  await collectGroups(whole, () => new ToyHouse(), [task, task, task, task], { ...base, maxSteps: 1 });
  const parts: number[] = [];
  for (const offset of [0, 2]) {
    const p = new ScriptedPolicy(Array(2).fill(act("look")));
    const trajs = await collectGroups(p, () => new ToyHouse(), [task, task], { ...base, maxSteps: 1, groupOffset: offset });
    assert.deepEqual(trajs.map((t) => t.groupIndex), [offset, offset + 1]);
    parts.push(...p.calls.map((c) => c.request.seed));
  }
  assert.deepEqual(parts, whole.calls.map((c) => c.request.seed));
});

test("environments with I/O are prepared for every action of a batch, concurrently, before stepping", async () => {
  const log: string[] = [];
  let inFlight = 0, most = 0;
  class Remote extends ToyHouse {
    async prepare(action: string): Promise<void> {
      inFlight++;
      most = Math.max(most, inFlight);
      log.push(`prepare ${action}`);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    }
    override step(action: string) {
      log.push(`step ${action}`);
      return super.step(action);
    }
  }
  const policy = new ScriptedPolicy([act("look"), act("inventory"), act("look"), act("look")]);
  await collectGroups(policy, () => new Remote(), [task], { ...base, groupSize: 2, maxSteps: 2 });
  assert.deepEqual(log.slice(0, 4), ["prepare look", "prepare inventory", "step look", "step inventory"]);
  assert.equal(most, 2);
});
