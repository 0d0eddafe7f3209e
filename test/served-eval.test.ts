// Issue 11 item 10: one checkpoint evaluated in process and served by `seed serve` (started
// here on 127.0.0.1) gets the same prompts, chat format and history, so the two evaluations take
// the same actions: token for token at greedy decoding and, with the same seeds, when sampling.
// Also: `seed eval` on a Stage-0/1 model takes the environment from the model's stage report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TEST_CACHE } from "./train-helpers.ts";
import { resolveConfig } from "../src/config/presets.ts";
import { baseDirs } from "../src/train/pretrain/base.ts";

const root = mkdtempSync(join(tmpdir(), "seed-served-eval-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const bin = resolve(import.meta.dirname, "../bin/seed.js");
const seed = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: root });

type Turn = { promptTokens: number[]; sampledTokens: number[]; actionText: string; valid: boolean };
type Traj = { taskId: string; turns: Turn[]; success: boolean };

function evaluate(target: string[], decoding: string[], name: string): { json: Record<string, unknown>; trajectories: Traj[] } {
  const samples = join(root, `${name}.jsonl`);
  const r = seed("eval", ...target, ...decoding, "--episodes", "6", "--panel-seed", "3", "--samples", samples, "--json");
  assert.equal(r.status, 0, r.stderr);
  return { json: JSON.parse(r.stdout), trajectories: readFileSync(samples, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Traj) };
}

async function serve(checkpoint: string): Promise<{ child: ChildProcess; url: string; model: string }> {
  const child = spawn(process.execPath, [bin, "serve", "--checkpoint", checkpoint, "--port", "0", "--host", "127.0.0.1", "--quiet"], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  const { url, model } = JSON.parse(line.toString().split("\n")[0]!) as { url: string; model: string };
  return { child, url, model };
}

test("served and in-process evaluations of one checkpoint take the same actions, greedy and sampled", async () => {
  const run = join(root, "run");
  const t = seed("train", "--quick", "--quiet", "--run-dir", run, "--cache-dir", TEST_CACHE);
  assert.equal(t.status, 0, t.stderr);
  const server = await serve(run);
  try {
    const agent = (await (await fetch(`${server.url}/seed/agent`)).json()) as { source: string; config: { rollout: { prompt: string } } };
    assert.match(agent.source, /^the run at .*run$/);
    assert.equal(agent.config.rollout.prompt, JSON.parse(readFileSync(join(run, "config.json"), "utf8")).rollout.prompt);
    for (const decoding of [["--greedy"], ["--temperature", "0.7"]]) {
      const local = evaluate(["--checkpoint", run], decoding, `local${decoding.length}`);
      const remote = evaluate(["--policy", `openai:${server.url}`, "--model", server.model], decoding, `served${decoding.length}`);
      assert.deepEqual(remote.json["panel"], local.json["panel"]);
      assert.deepEqual(remote.json["outcomes"], local.json["outcomes"]);
      assert.equal(remote.json["valid_action_rate"], local.json["valid_action_rate"]);
      assert.equal(remote.json["mean_length"], local.json["mean_length"]);
      assert.equal(remote.trajectories.length, 6);
      remote.trajectories.forEach((r, i) => {
        const l = local.trajectories[i]!;
        assert.equal(r.taskId, l.taskId);
        assert.equal(r.turns.length, l.turns.length, `${r.taskId}: episode length`);
        r.turns.forEach((turn, k) => {
          assert.deepEqual(turn.promptTokens, l.turns[k]!.promptTokens, `${r.taskId} turn ${k}: prompt`);
          assert.deepEqual(turn.sampledTokens, l.turns[k]!.sampledTokens, `${r.taskId} turn ${k}: action`);
        });
      });
    }
  } finally {
    server.child.kill("SIGTERM");
    await once(server.child, "exit");
  }
});

test("seed eval on a Stage-0/1 model takes the environment from its stage report (no --env)", () => {
  const dirs = baseDirs(resolveConfig({ preset: "seed", quick: true }), TEST_CACHE);
  for (const model of [join(dirs.stage0, "model"), join(dirs.stage1, "model")]) {
    const r = seed("eval", "--checkpoint", model, "--greedy", "--episodes", "2", "--json");
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.equal(json.split, "valid_seen");
    assert.ok((json.columns as string[]).includes("Pick2"), "ALFWorld's columns");
  }
  // A bare policy folder that records nothing still asks for --env.
  const bare = join(root, "bare");
  cpSync(join(dirs.stage0, "model"), bare, { recursive: true });
  const r = seed("eval", "--checkpoint", bare, "--episodes", "1");
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^seed eval: missing required option --env\n$/);
});
