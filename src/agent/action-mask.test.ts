import { test } from "node:test";
import assert from "node:assert/strict";
import { trainBpe } from "../model/tokenizer/train.ts";
import { TinyTokenizer } from "../testing/tiny-tokenizer.ts";
import { buildActionMask, replayConstraint } from "./action-mask.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import type { Tokenizer } from "../policy/policy.ts";

const ACTIONS = ["go to desk 1", "go to desk 10", "go to drawer 2", "open drawer 2", "take mug 1 from desk 1", "look"];
const bpe = trainBpe(
  Array.from({ length: 40 }, (_, i) => `<think>I should act.</think><action>${ACTIONS[i % ACTIONS.length]}</action> You arrive at desk ${i}. On the desk 1, you see a mug 1.`),
  { vocabSize: 420 },
);

/** Walk the constraint along `ids` (a response), asserting each id is allowed; return the allowed sets. */
function walk(tok: Tokenizer, ids: readonly number[], allowedAt: (prefix: readonly number[]) => readonly number[] | null): (readonly number[] | null)[] {
  return ids.map((id, i) => {
    const allowed = allowedAt(ids.slice(0, i));
    if (allowed !== null) assert.ok(allowed.includes(id), `id ${id} (${JSON.stringify(tok.decode([id]))}) not allowed at ${i}`);
    return allowed;
  });
}

for (const [name, tok] of [["trained BPE", bpe], ["byte tokenizer", new TinyTokenizer()]] as const) {
  test(`${name}: every admissible action, encoded in position, passes the mask; then only stop tokens`, () => {
    const chat = new ChatFormat(tok);
    const mask = buildActionMask(tok, ACTIONS.map((text) => ({ text, open: false })), chat.stopTokens)!;
    assert.equal(mask.fallbacks, 0);
    for (const a of ACTIONS) {
      const ids = [...tok.encode(`<think>fine</think><action>${a}</action>`), chat.imEnd];
      const allowed = walk(tok, ids, (p) => mask.allowed(p));
      assert.equal(allowed.slice(0, tok.encode("<think>fine</think><action>").length).every((x) => x === null), true, "free before <action>");
      assert.deepEqual(allowed[allowed.length - 1], chat.stopTokens);
    }
  });

  test(`${name}: a non-admissible action is cut off inside the trie`, () => {
    const chat = new ChatFormat(tok);
    const mask = buildActionMask(tok, ACTIONS.map((text) => ({ text, open: false })), chat.stopTokens)!;
    const ids = tok.encode("<think>x</think><action>go to bed 1</action>");
    const violations = ids.filter((id, i) => {
      const allowed = mask.allowed(ids.slice(0, i));
      return allowed !== null && !allowed.includes(id);
    });
    assert.ok(violations.length > 0);
  });
}

test("open entries leave the text after their prefix free (WebShop search)", () => {
  const tok = new TinyTokenizer();
  const mask = buildActionMask(tok, [{ text: "search[", open: true }, { text: "click[buy now]", open: false }], [tok.eosId])!;
  const prefix = tok.encode("<action>search[");
  assert.deepEqual(mask.allowed(tok.encode("<action>")), [...new Set([tok.encode("s")[0]!, tok.encode("c")[0]!])]);
  assert.equal(mask.allowed(prefix), null);
  assert.equal(mask.allowed([...prefix, ...tok.encode("red shoes]")]), null);
});

test("a BPE merge across the opener falls back to the action's own encoding (documented limitation)", () => {
  const tok = new TinyTokenizer({ pieces: [">go", "go"] });
  const mask = buildActionMask(tok, [{ text: "go to desk 1", open: false }, { text: "look", open: false }], [tok.eosId])!;
  assert.equal(mask.fallbacks, 1);
  const opener = tok.encode("<action>");
  assert.deepEqual([...mask.allowed(opener)!].sort(), [tok.encode("go")[0]!, tok.encode("l")[0]!].sort());
});

test("replayConstraint reproduces the allowed sets used at sampling time; an empty list builds no mask", () => {
  const tok = new TinyTokenizer();
  const mask = buildActionMask(tok, [{ text: "look", open: false }], [tok.eosId])!;
  const ids = [...tok.encode("<think>a</think><action>look</action>"), tok.eosId];
  const replayed = replayConstraint(mask, ids);
  assert.deepEqual(replayed, ids.map((_, i) => mask.allowed(ids.slice(0, i))));
  assert.equal(replayed.filter((x) => x !== null).length, "look</action>".length + 1);
  assert.equal(buildActionMask(tok, [], [tok.eosId]), undefined);
});

