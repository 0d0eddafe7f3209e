import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../core/rng.ts";
import { CheckpointError } from "../core/errors.ts";
import { presetConfig } from "../model/config.ts";
import { saveCheckpoint } from "../model/checkpoint.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "./embedded.ts";
import { trainSteps } from "./resume-child.helper.ts";
import type { SampleRequest, ScoreRequest, TokenConstraint } from "./policy.ts";

const root = mkdtempSync(join(tmpdir(), "seed-policy-"));
test.after(() => rmSync(root, { recursive: true, force: true }));

const tok = trainBpe("go to desk 1. open drawer 2. take apple from fridge 1. you see a mug.\n".repeat(30), { vocabSize: 320 });
const config = presetConfig("tiny", { vocabSize: tok.vocabSize, maxContext: 64 });
const make = (seed = 1, prefixCache = true) => EmbeddedPolicy.create({ config, tokenizer: tok, seed, prefixCache });
const prompt = tok.encode("go to desk 1. open");

function bits(a: Float32Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

test("seeded sampling is reproducible; a request samples the same tokens in any batch; seeds differ", async () => {
  const p = make();
  const req = (seed: number): SampleRequest => ({ prompt, maxTokens: 20, seed, stopTokens: [] });
  const [a, b, c] = await p.sample([req(1), req(2), req(1)]);
  assert.deepEqual(await make().sample([req(1), req(2), req(1)]), [a, b, c], "an identical run is bit-identical");
  p.clearPrefixCache();
  assert.deepEqual(await p.sample([req(1), req(2), req(1)]), [a, b, c], "so is a repeat after clearing the prefix cache");
  // Native matmuls may round a row differently by its position in the batch (measured ~3e-8),
  // so across batch positions the tokens are equal and the log-probs equal to f32 rounding.
  assert.deepEqual(a!.tokens, c!.tokens);
  assert.ok(maxDiff(a!.logprobs, c!.logprobs) < 1e-6);
  assert.notDeepEqual(a!.tokens, b!.tokens);
  const [alone] = await make(1, false).sample([req(2)]);
  assert.deepEqual(alone!.tokens, b!.tokens);
  assert.ok(maxDiff(alone!.logprobs, b!.logprobs) < 1e-6);
});

test("temperature 0 gives the same tokens for any seed", async () => {
  const p = make();
  const outs = await p.sample([1, 2, 3, 4].map((seed) => ({ prompt, maxTokens: 15, seed, temperature: 0, stopTokens: [] })));
  for (const o of outs) assert.deepEqual(o.tokens, outs[0]!.tokens);
});

test("sampling never exceeds maxTokens or the context and reports why it stopped", async () => {
  const p = make();
  const long = Array.from({ length: 60 }, (_, i) => prompt[i % prompt.length]!);
  const [a, b, c] = await p.sample([
    { prompt, maxTokens: 7, seed: 1, stopTokens: [] },
    { prompt: long, maxTokens: 20, seed: 1, stopTokens: [] },
    { prompt: [...long, ...long.slice(0, 4)], maxTokens: 5, seed: 1 },
  ]);
  assert.deepEqual([a!.tokens.length, a!.finishReason], [7, "length"]);
  assert.deepEqual([b!.tokens.length, b!.finishReason], [4, "context"]);
  assert.deepEqual([c!.tokens.length, c!.finishReason], [0, "context"]);
  const [s] = await p.sample([{ prompt, maxTokens: 30, seed: 3, stopTokens: [...Array(tok.vocabSize).keys()] }]);
  assert.deepEqual([s!.tokens.length, s!.finishReason], [1, "stop"]);
});

test("sampled log-probs at temperature 1 equal the policy's score of the same tokens (masked too)", async () => {
  const p = make(5);
  const samples = await p.sample([1, 2, 3].map((seed) => ({ prompt, maxTokens: 20, seed, stopTokens: [] })));
  const scores = await p.score(samples.map((s) => ({ tokens: [...prompt, ...s.tokens], start: prompt.length })));
  samples.forEach((s, i) => assert.ok(maxDiff(s.logprobs, scores[i]!) < 1e-4, `row ${i}: ${maxDiff(s.logprobs, scores[i]!)}`));
  // Greedy tokens carry the log-prob of the untempered distribution, which is what score gives.
  const [g] = await p.sample([{ prompt, maxTokens: 10, seed: 1, temperature: 0, stopTokens: [] }]);
  const [gs] = await p.score([{ tokens: [...prompt, ...g!.tokens], start: prompt.length }]);
  assert.ok(maxDiff(g!.logprobs, gs!) < 1e-4);
  // A constraint whose allowed set depends on what was generated so far.
  const sets = (n: number) => [n % 7, 10 + (n % 5), 20, 31, tok.eosId];
  const constraint: TokenConstraint = { allowed: (g) => sets(g.length) };
  const [m] = await p.sample([{ prompt, maxTokens: 12, seed: 9, stopTokens: [], constraint }]);
  m!.tokens.forEach((t, i) => assert.ok(sets(i).includes(t)));
  const allowed = m!.tokens.map((_, i) => sets(i));
  const [masked] = await p.score([{ tokens: [...prompt, ...m!.tokens], start: prompt.length, allowed }]);
  assert.ok(maxDiff(m!.logprobs, masked!) < 1e-4);
  const [unmasked] = await p.score([{ tokens: [...prompt, ...m!.tokens], start: prompt.length }]);
  assert.ok(maxDiff(m!.logprobs, unmasked!) > 0.1, "the mask matters: unmasked scores are lower");
});

test("top-k 1 samples the greedy tokens with log-prob 0; padded vocabulary rows are never sampled", async () => {
  const p = make(5);
  const [k1] = await p.sample([{ prompt, maxTokens: 10, seed: 4, topK: 1, stopTokens: [] }]);
  const [greedy] = await p.sample([{ prompt, maxTokens: 10, seed: 5, temperature: 0, stopTokens: [] }]);
  assert.deepEqual(k1!.tokens, greedy!.tokens);
  assert.deepEqual(k1!.logprobs, k1!.tokens.map(() => 0));
  // A model wider than its tokenizer (as real Qwen2 checkpoints are): the extra ids never come out.
  const padded = EmbeddedPolicy.create({ config: { ...config, vocabSize: tok.vocabSize + 40 }, tokenizer: tok, seed: 1 });
  const outs = await padded.sample([1, 2, 3, 4].map((seed) => ({ prompt, maxTokens: 30, seed, temperature: 3, stopTokens: [] })));
  for (const o of outs) assert.ok(o.tokens.every((t) => t < tok.vocabSize));
});

function batch(seed: number): ScoreRequest[] {
  const rng = Rng.from(seed);
  return Array.from({ length: 3 }, () => ({ tokens: Array.from({ length: 10 }, () => rng.int(tok.vocabSize)), start: 2 }));
}

test("splitting a batch into chunks (maxBatchTokens) changes neither scores nor gradients", async () => {
  const whole = make(9), split = EmbeddedPolicy.create({ config, tokenizer: tok, seed: 9, maxBatchTokens: 12 });
  const reqs = batch(7);
  const w = reqs.map(() => new Float32Array(8).fill(-1 / 24));
  const [a, b] = [await whole.score(reqs), await split.score(reqs)];
  a.forEach((x, i) => assert.ok(maxDiff(x, b[i]!) < 1e-6));
  await whole.backward(reqs, w);
  await split.backward(reqs, w);
  for (const [name, g] of whole.grads.entries()) assert.ok(maxDiff(g, split.grads.get(name)) < 1e-6, name);
});

test("backward + step moves the weights; a non-finite gradient skips the update", async () => {
  const p = make(2);
  const before = p.params.clone();
  const reqs = batch(1);
  await p.backward(reqs, reqs.map(() => new Float32Array(8).fill(-1 / 24)));
  const r = await p.step({ lr: 1e-2 });
  assert.equal(r.skipped, false);
  assert.ok(r.gradNorm > 0 && Number.isFinite(r.gradNorm));
  assert.ok(maxDiff(p.params.get("model.embed_tokens.weight"), before.get("model.embed_tokens.weight")) > 0);
  assert.equal(p.optimizerStep, 1);
  // Gradients were zeroed by step; poison one and step again.
  const after = p.params.clone();
  p.grads.get("model.norm.weight")[0] = NaN;
  const skipped = await p.step({ lr: 1e-2 });
  assert.equal(skipped.skipped, true);
  assert.equal(p.optimizerStep, 1);
  for (const [name, t] of after.entries()) assert.deepEqual(bits(p.params.get(name)), bits(t), name);
  assert.equal(p.grads.get("model.norm.weight")[0], 0, "the gradient is zeroed even when the step is skipped");
});

test("training lowers the loss of the trained sequences", async () => {
  const p = make(3);
  const reqs = batch(2);
  const w = reqs.map(() => new Float32Array(8).fill(-1 / 24));
  const first = await p.backwardScored(reqs, w);
  await p.step({ lr: 1e-2 });
  for (let i = 0; i < 20; i++) {
    await p.backward(reqs, w);
    await p.step({ lr: 1e-2 });
  }
  const last = await p.score(reqs);
  const mean = (xs: Float32Array[]) => xs.reduce((s, x) => s + x.reduce((a, b) => a + b, 0), 0) / 24;
  assert.ok(mean(last) > mean(first) + 1, `${mean(first)} -> ${mean(last)}`);
});

test("a snapshot is frozen: later steps change the policy, not the snapshot", async () => {
  const p = make(4);
  const reqs = batch(3);
  const snap = await p.snapshot();
  const [before] = await snap.score(reqs);
  await p.backward(reqs, reqs.map(() => new Float32Array(8).fill(-1)));
  await p.step({ lr: 1e-2 });
  const [after] = await snap.score(reqs);
  const [live] = await p.score(reqs);
  assert.deepEqual(bits(after!), bits(before!));
  assert.ok(maxDiff(live!, before!) > 1e-3);
  assert.equal("step" in snap, false);
});

test("save/load round-trips weights, optimizer and state; a directory without a tokenizer is refused", async () => {
  const p = make(6);
  const reqs = batch(4);
  await p.backward(reqs, reqs.map(() => new Float32Array(8).fill(-0.1)));
  await p.step({ lr: 1e-2 });
  const dir = join(root, "rt");
  await p.save(dir, { rng: { data: Rng.from(1).state() }, extra: { cursor: 3 } });
  const q = await EmbeddedPolicy.load(dir);
  for (const [name, t] of p.params.entries()) assert.deepEqual(bits(q.params.get(name)), bits(t), name);
  assert.equal(q.optimizerStep, 1);
  assert.deepEqual(q.checkpointState, { rng: { data: Rng.from(1).state() }, extra: { cursor: 3 } });
  assert.deepEqual((await q.score(reqs)).map(bits), (await p.score(reqs)).map(bits));
  const bare = join(root, "bare");
  saveCheckpoint(bare, { config, params: p.params });
  await assert.rejects(EmbeddedPolicy.load(bare), (e: unknown) => e instanceof CheckpointError && /no tokenizer\.json/.test(e.message));
});

test("resume equivalence: 4 steps == 2 steps, save, load in a new process, 2 steps (bit for bit)", async () => {
  const straight = make(7);
  await trainSteps(straight, Rng.from(11), 4);

  const first = make(7);
  const rng = Rng.from(11);
  await trainSteps(first, rng, 2);
  const mid = join(root, "resume-mid"), end = join(root, "resume-end");
  await first.save(mid, { rng: { data: rng.state() }, extra: { note: "half way" } });
  const child = spawnSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "resume-child.helper.ts"), mid, "2", end], { encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  const resumed = await EmbeddedPolicy.load(end);
  assert.equal(resumed.optimizerStep, 4);
  for (const [name, t] of straight.params.entries()) assert.deepEqual(bits(resumed.params.get(name)), bits(t), name);
  assert.deepEqual(resumed.checkpointState!.extra, { note: "half way" });
});

test("the prefix cache reuses a growing episode's tokens and samples what a cold cache samples", async () => {
  const warm = make(8), cold = make(8, false);
  const obs = tok.encode(" you see a mug.");
  let seq = [...prompt];
  for (let turn = 0; turn < 3; turn++) {
    const req: SampleRequest[] = [{ prompt: seq, maxTokens: 6, seed: turn, stopTokens: [] }, { prompt: tok.encode("take apple"), maxTokens: 4, seed: 50 + turn, stopTokens: [] }];
    const [w, c] = [await warm.sample(req), await cold.sample(req)];
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(w[i]!.tokens, c[i]!.tokens, `turn ${turn} row ${i}`);
      assert.ok(maxDiff(w[i]!.logprobs, c[i]!.logprobs) < 1e-5);
    }
    seq = [...seq, ...w[0]!.tokens, ...obs];
  }
  const stats = warm.cacheStats();
  assert.ok(stats.reused > stats.fed, `reused ${stats.reused}, fed ${stats.fed}`);
  // After a step the cache is dropped: the next call reuses nothing and matches a cold policy.
  for (const p of [warm, cold]) {
    const reqs = batch(5);
    await p.backward(reqs, reqs.map(() => new Float32Array(8).fill(-0.1)));
    await p.step({ lr: 1e-2 });
  }
  const reusedBefore = warm.cacheStats().reused;
  const req: SampleRequest[] = [{ prompt: seq, maxTokens: 6, seed: 9, stopTokens: [] }];
  assert.deepEqual((await warm.sample(req))[0]!.tokens, (await cold.sample(req))[0]!.tokens);
  assert.equal(warm.cacheStats().reused, reusedBefore);
  // Saving drops it too, so a run resumed from that checkpoint starts from the same (empty) cache.
  await warm.sample(req);
  assert.ok(warm.cacheStats().reused > reusedBefore);
  const reusedAtSave = warm.cacheStats().reused;
  await warm.save(join(root, "prefix-save"));
  await warm.sample(req);
  assert.equal(warm.cacheStats().reused, reusedAtSave);
});
