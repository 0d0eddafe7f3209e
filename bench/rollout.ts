/**
 * `seed bench rollout [--json]`: rollout throughput on ALFWorld, 16 tasks x 8 members, with the
 * engine's reference model (the `bench` preset: 4 layers, d 256, 4 heads, random init; vocab at
 * least 2,048) and a BPE tokenizer trained on the tasks' own text, in both history modes.
 *
 * Reported per mode: environment steps per second of wall time, sampled tokens per second of
 * sampling time (prefill included in that time), the split of wall time between sampling and the
 * environments, and the prompt tokens handed to the policy versus those it actually fed through
 * the model (the full mode's prefix cache skips the rest). A random
 * model rarely ends its turn, so responses run to the token limit; the default budget (4 steps,
 * 32 tokens per action) keeps a run to minutes on two cores and can be raised (--steps, --tokens).
 * Reads the real games from ../shared/data/alfworld (or --data).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../src/core/errors.ts";
import { AlfworldEnv } from "../src/envs/alfworld/env.ts";
import { alfworldTasks } from "../src/envs/alfworld/load.ts";
import { collectGroups } from "../src/agent/rollout.ts";
import { alfworldRenderer } from "../src/agent/prompts/alfworld.ts";
import { presetConfig } from "../src/model/config.ts";
import { trainBpe } from "../src/model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../src/policy/embedded.ts";
import { numberOption, parseOptions, printJson } from "../src/cli/args.ts";

type ModeResult = {
  episodes: number;
  env_steps: number;
  sampled_tokens: number;
  /** Prompt tokens handed to the policy (full mode: whole sequences, most of them cached). */
  prompt_tokens: number;
  /** Prompt tokens the policy actually ran through the model (the rest came from its prefix cache). */
  prompt_tokens_fed: number;
  wall_s: number;
  sample_s: number;
  env_s: number;
  env_steps_per_s: number;
  sampled_tokens_per_s: number;
};

/** Run the benchmark; returns the process exit code. */
export async function run(argv: readonly string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    json: { type: "boolean" },
    tasks: { type: "string" },
    members: { type: "string" },
    steps: { type: "string" },
    tokens: { type: "string" },
    data: { type: "string" },
  }, false);
  const tasksN = numberOption(values.tasks, "tasks", 16);
  const members = numberOption(values.members, "members", 8);
  const steps = numberOption(values.steps, "steps", 4);
  const tokens = numberOption(values.tokens, "tokens", 32);
  const root = resolve(values.data ?? "../shared/data/alfworld");
  if (!existsSync(root)) throw new UsageError(`bench rollout needs the ALFWorld games: ${root} does not exist (pass --data)`);

  const all = alfworldTasks(root, "valid_seen");
  const tasks = Array.from({ length: tasksN }, (_, i) => all[(i * 7) % all.length]!);
  // Tokenizer trained on what prompts contain: every valid_seen game's reset text, commands and a
  // few feedback lines, plus the prompt template's own wording.
  const corpus = all.map((t) => {
    const env = new AlfworldEnv();
    const o = env.reset(t, 0);
    const lines = [o.text, ...(o.admissible ?? [])];
    for (const a of (o.admissible ?? []).slice(0, 8)) lines.push(env.step(a).observation.text);
    return lines.join("\n");
  });
  corpus.push(alfworldRenderer.first({ task: "", step: 0, observation: { text: "", task: "" }, history: [] }) + "<think></think><action></action>");
  const tokenizer = trainBpe(corpus, { vocabSize: 2048 });
  const config = presetConfig("bench", { vocabSize: Math.max(2048, tokenizer.vocabSize), maxContext: 4096 });
  const policy = EmbeddedPolicy.create({ config, tokenizer, seed: 1 });

  const results: Record<string, ModeResult> = {};
  for (const mode of ["window", "full"] as const) {
    const cache0 = policy.cacheStats();
    let promptTokens = 0;
    const counting = new Proxy(policy, {
      get(target, key, receiver) {
        if (key === "sample") return (rs: Parameters<typeof policy.sample>[0]) => ((promptTokens += rs.reduce((n, r) => n + r.prompt.length, 0)), target.sample(rs));
        return Reflect.get(target, key, receiver);
      },
    });
    const t0 = performance.now();
    const trajs = await collectGroups(counting, () => new AlfworldEnv(), tasks, {
      seed: 1, groupSize: members, history: { mode }, maxSteps: steps, maxActionTokens: tokens, temperature: 1,
    });
    const wall = (performance.now() - t0) / 1000;
    const envSteps = trajs.reduce((n, t) => n + t.turns.length, 0);
    const sampled = trajs.reduce((n, t) => n + t.turns.reduce((m, x) => m + x.sampledTokens.length, 0), 0);
    const sampleS = trajs.reduce((n, t) => n + t.timings.sampleSeconds, 0);
    const envS = trajs.reduce((n, t) => n + t.timings.envSeconds, 0);
    const cache1 = policy.cacheStats();
    results[mode] = {
      episodes: trajs.length, env_steps: envSteps, sampled_tokens: sampled, prompt_tokens: promptTokens,
      prompt_tokens_fed: promptTokens - (cache1.reused - cache0.reused), wall_s: wall, sample_s: sampleS, env_s: envS,
      env_steps_per_s: envSteps / wall, sampled_tokens_per_s: sampled / sampleS,
    };
  }
  const w = results["window"]!, f = results["full"]!;
  const out = {
    env: "alfworld", tasks: tasksN, members, steps, tokens_per_action: tokens, model: "bench", engine: policy.engineKind,
    env_steps_per_s_window: w.env_steps_per_s, sampled_tokens_per_s_window: w.sampled_tokens_per_s,
    env_steps_per_s_full: f.env_steps_per_s, sampled_tokens_per_s_full: f.sampled_tokens_per_s,
    window: w, full: f,
  };
  if (values.json) printJson(out);
  else {
    console.log(`rollout on alfworld: ${tasksN} tasks x ${members} members, ${steps} steps, ${tokens} tokens/action, bench model (${policy.engineKind} engine)`);
    for (const [mode, r] of Object.entries(results)) {
      console.log(`  ${mode.padEnd(6)}  ${r.env_steps_per_s.toFixed(1)} env steps/s  ${r.sampled_tokens_per_s.toFixed(0)} sampled tokens/s  (wall ${r.wall_s.toFixed(1)} s: sampling ${r.sample_s.toFixed(1)} s, envs ${r.env_s.toFixed(3)} s; prompt tokens ${r.prompt_tokens}, fed ${r.prompt_tokens_fed})`);
    }
  }
  return 0;
}
