import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { presetConfig } from "../model/config.ts";
import { ParamStore } from "../model/params.ts";
import { Transformer } from "../model/transformer.ts";
import { PrefixCache } from "./prefix-cache.ts";

const config = presetConfig("tiny", { maxContext: 32 });
const model = new Transformer(config, ParamStore.init(config, Rng.from(1)));

/** Feeds each assigned prompt's uncached tail and records the sequence, as the policy does. */
function run(pc: PrefixCache, prompts: number[][]): { slots: number[]; cached: number[] } {
  const { cache, slots, cached } = pc.assign(prompts);
  const live = prompts.map((_, i) => i).filter((i) => prompts[i]!.length < config.maxContext);
  if (live.length > 0) cache.append(live.map((i) => slots[i]!), live.map((i) => prompts[i]!.slice(cached[i]!)));
  prompts.forEach((p, i) => pc.record(slots[i]!, p));
  return { slots, cached };
}

test("each prompt gets a distinct slot holding its longest cached prefix, always leaving a token to feed", () => {
  const pc = new PrefixCache(model);
  const a = [1, 2, 3, 4], b = [9, 8, 7];
  const first = run(pc, [a, b, [5]]);
  assert.deepEqual(first.cached, [0, 0, 0]);
  // a grows (full history), b is repeated exactly, a new prompt shares a's first two tokens.
  const second = run(pc, [[9, 8, 7], [...a, 5, 6], [1, 2, 10]]);
  assert.deepEqual(second.cached[1], 4);
  assert.equal(second.slots[1], first.slots[0]);
  assert.equal(second.cached[0], 2, "an exact repeat keeps all but its last token, so the loop gets logits");
  assert.equal(second.slots[0], first.slots[1]);
  assert.equal(new Set(second.slots).size, 3);
  assert.equal(second.cached[2], 0, "a's slot went to the longer match; the third prompt starts cold");
  assert.deepEqual([pc.reusedTokens, pc.fedTokens], [6, 4 + 3 + 1 + 1 + 2 + 3]);
  // More prompts than rows (4, rounded up from 3): a bigger cache starts cold.
  assert.deepEqual(run(pc, [a, b, [5], [6], [7]]).cached, [0, 0, 0, 0, 0]);
});

test("invalidate forgets every prefix; a prompt that fills the context reuses and feeds nothing", () => {
  const pc = new PrefixCache(model);
  run(pc, [[1, 2, 3]]);
  pc.invalidate();
  assert.deepEqual(run(pc, [[1, 2, 3, 4]]).cached, [0]);
  const full = Array.from({ length: 32 }, (_, i) => i % 7);
  assert.deepEqual(run(pc, [full]).cached, [0]);
});
