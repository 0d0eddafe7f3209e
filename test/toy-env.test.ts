// What a new environment costs: (1) its module, (2) one registry entry that owns its protocol
// row, evaluation splits and loaders, (3) its prompt renderer and (4) the renderer's entry. The
// toy "counter" environment below is added exactly that way (at run time, where a source change
// would add envs/counter/, one entry in envs/registry.ts, agent/prompts/counter.ts and one entry
// in agent/prompts/index.ts); then the config, the conformance suite, the training environment,
// the rollout and a real training update on the tiny model all take it with no other change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EnvStateError } from "../src/core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../src/envs/env.ts";
import { envEntry, envNames, makeEnv, registerEnv, taskSource } from "../src/envs/registry.ts";
import { seedTasks } from "../src/envs/seed-tasks.ts";
import { projectTagged } from "../src/agent/parse-action.ts";
import { registerRenderer, rendererFor } from "../src/agent/prompts/index.ts";
import { tagInstruction, type PromptRenderer } from "../src/agent/prompts/renderer.ts";
import { protocolOf } from "../src/agent/protocol.ts";
import { collectGroups } from "../src/agent/rollout.ts";
import { ChatFormat } from "../src/policy/chat-format.ts";
import { trainingEnv } from "../src/run/training-env.ts";
import { rolloutOptions } from "../src/run/rollout-options.ts";
import { ensureBase } from "../src/train/pretrain/base.ts";
import { train } from "../src/train/trainer.ts";
import { runEnvConformance } from "../src/testing/env-conformance.ts";
import { ScriptedPolicy } from "../src/testing/scripted-policy.ts";
import { metricsLines, tempDir, TEST_CACHE, tinyConfig } from "./train-helpers.ts";

// (1) The module: count up to a target with "add one"; "done" ends the episode, a win when exact.
const ACTIONS = ["add one", "done"];
class CounterEnv implements Env {
  readonly id = "counter";
  readonly maxSteps: number;
  readonly rewardRange = [0, 1] as const;
  private target = 0;
  private value = 0;
  private steps = 0;
  private over = true;
  constructor(maxSteps = 6) {
    this.maxSteps = maxSteps;
  }
  private obs(): Observation {
    return { text: `The counter shows ${this.value}.`, admissible: ACTIONS, task: `make the counter show ${this.target}, then say done` };
  }
  reset(task: TaskSpec, seed: number): Observation {
    this.target = 1 + (((task.payload as { seed: number }).seed + seed) % 3);
    this.value = 0;
    this.steps = 0;
    this.over = false;
    return this.obs();
  }
  step(action: string): StepResult {
    if (this.over) throw new EnvStateError("the episode is over");
    this.steps++;
    const a = action.trim().toLowerCase();
    if (a === "add one") this.value++;
    const won = a === "done" && this.value === this.target;
    this.over = a === "done" || this.steps >= this.maxSteps;
    return { observation: this.obs(), reward: won ? 1 : 0, done: this.over, won, score: won ? 1 : 0, actionRecognized: ACTIONS.includes(a) };
  }
}

// (2) The registry entry: protocol row, splits, loaders, expert.
registerEnv({
  name: "counter",
  description: "a toy counter (test only)",
  options: ["seed", "maxSteps", "count"],
  splits: ["train", "validation"],
  evalSplits: ["validation"],
  protocol: { maxSteps: 5, window: 1, invalidPenalty: 0.05, promptTokens: 256, responseTokens: 16 },
  makeEnv: (o) => new CounterEnv(o.maxSteps ?? 5),
  tasks: (split, o) => seedTasks("counter", split, o.count ?? 8, o.seed ?? 0),
  expert: () => ({ act: (obs) => (/shows (\d+)/.exec(obs.text)?.[1] === /show (\d+)/.exec(obs.task)?.[1] ? "done" : "add one") }),
  randomAction: (obs, rng) => obs.admissible![rng.int(obs.admissible!.length)]!,
});

// (3) The renderer, and (4) its entry.
const counterRenderer: PromptRenderer = {
  envId: "counter",
  actionTags: true,
  window: (s) => `Your task is to: ${s.task}\n${s.observation.text}\nActions: ${ACTIONS.join(", ")}.\n${tagInstruction("action")}`,
  first(s) {
    return this.window(s, 0);
  },
  next: (s) => s.observation.text,
  viewObservation: (o) => o.text,
  viewAction: (a) => a,
  project: (r) => projectTagged(r, 10),
  maskEntries: (o) => o.admissible?.map((text) => ({ text, open: false })),
};
registerRenderer("counter", counterRenderer);

runEnvConformance({
  name: "counter",
  makeEnv: () => makeEnv("counter"),
  tasks: taskSource("counter", "validation", { count: 3 }),
  sampleActions: ["add one", "done", "<action>add one</action>", "🙂"],
  invalidObservation: (before) => before.text,
  countedActions: ["add one"],
  expert: envEntry("counter").expert,
  skip: [],
});

test("the toy environment is in every list that reads the registry, with its own protocol row", () => {
  assert.ok(envNames().includes("counter"));
  assert.equal(envEntry("counter").evalSplits[0], "validation");
  assert.deepEqual(protocolOf("counter"), { maxSteps: 5, window: 1, invalidPenalty: 0.05, promptTokens: 256, responseTokens: 16 });
  assert.equal(rendererFor("counter", "compact"), counterRenderer, "no compact renderer: the standard one");
  const config = tinyConfig("grpo", ["--env.name=counter", "--env.maxSteps=0", "--env.invalidPenalty=-1"]);
  const env = trainingEnv(config);
  assert.equal(env.maxSteps, 5, "env.maxSteps 0 takes the entry's protocol");
  assert.equal(env.invalidPenalty, 0.05);
  assert.equal(env.tasks("train", 4).length, 4);
});

test("a scripted rollout on the toy environment: window k from its protocol, actions projected by its renderer", async () => {
  const config = tinyConfig("grpo", ["--env.name=counter", "--env.maxSteps=0", "--rollout.history=window", "--rollout.window=-1", "--rollout.maxActionTokens=64"]);
  const env = trainingEnv(config);
  const policy = new ScriptedPolicy(["<think>a</think><action>add one</action>", "<think>b</think><action>done</action>"]);
  const chat = new ChatFormat(policy.tokenizer);
  const tasks = env.tasks("validation", 1);
  const opts = rolloutOptions({ config, chat, env, tasks }, 1);
  assert.deepEqual(opts.history, { mode: "window", k: 1 });
  const [traj] = await collectGroups(policy, () => env.makeEnv(), tasks, { ...opts, groupSize: 1 });
  assert.deepEqual(traj!.turns.map((t) => [t.actionText, t.valid]), [["add one", true], ["done", true]]);
  policy.assertConsumed();
});

test("one real training update on the toy environment (tiny model, GRPO)", async () => {
  const base = await ensureBase(tinyConfig("grpo"), { cacheDir: TEST_CACHE, quiet: true });
  const config = tinyConfig("grpo", ["--env.name=counter", "--env.maxSteps=0", `--policy.init=${base}`]);
  const runDir = tempDir("counter");
  const result = await train(config, { runDir, cacheDir: TEST_CACHE, quiet: true });
  assert.equal(result.updates, 1);
  const [line] = metricsLines(runDir);
  assert.equal(line!["episode/count"], config.rollout.tasksPerUpdate * config.rollout.groupSize);
  assert.ok((line!["episode/turns_mean"] as number) <= 5, "episodes end within the entry's step limit");
});
