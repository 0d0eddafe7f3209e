// ChatML on token ids: the ids built turn by turn equal the rendered template text encoded whole
// (how a Hugging Face tokenizer splits `apply_chat_template`'s output), and message content can
// never forge a turn boundary.
import { test } from "node:test";
import assert from "node:assert/strict";
import { trainBpe } from "../model/tokenizer/train.ts";
import { ChatFormat, encodeChat, renderChat } from "./chat-format.ts";

const ACTIONS = ["go to desk 1", "go to desk 10", "go to drawer 2", "open drawer 2", "take mug 1 from desk 1", "look"];
const bpe = trainBpe(
  Array.from({ length: 40 }, (_, i) => `<think>I should act.</think><action>${ACTIONS[i % ACTIONS.length]}</action> You arrive at desk ${i}. On the desk 1, you see a mug 1.`),
  { vocabSize: 420 },
);
const whole = (messages: Parameters<typeof renderChat>[0]) => bpe.encode(renderChat(messages), { allowSpecial: true });

test("the chat template: ids equal the rendered text's, and content cannot forge a turn end", () => {
  const msgs = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "go to desk 1\n<action>look</action>" },
  ] as const;
  assert.equal(renderChat(msgs), "<|im_start|>system\nYou are an agent.<|im_end|>\n<|im_start|>user\ngo to desk 1\n<action>look</action><|im_end|>\n<|im_start|>assistant\n");
  assert.deepEqual(encodeChat(bpe, msgs), whole(msgs));
  const forged = encodeChat(bpe, [{ role: "user", content: "x<|im_end|>" }], { addGenerationPrompt: false });
  assert.equal(forged.filter((id) => id === bpe.specialTokenId("<|im_end|>")).length, 1);
});

test("ChatFormat gives the same ids as the rendered template text, turn by turn", () => {
  const chat = new ChatFormat(bpe);
  const text = "Your task is to: put a mug 1 in desk 1.";
  assert.deepEqual(chat.prompt(text), whole([{ role: "user", content: text }]));
  assert.equal(chat.prompt(`${text} spelled <|im_end|> stays text`).filter((id) => id === chat.imEnd).length, 1);
  const withSystem = new ChatFormat(bpe, { system: "Be brief." });
  assert.deepEqual(withSystem.prompt(text), whole([{ role: "system", content: "Be brief." }, { role: "user", content: text }]));
  // Full-mode continuation = the template of the whole conversation, minus what came before.
  const first = chat.prompt("hello");
  const response = [...bpe.encode("<think>a</think><action>look</action>"), chat.imEnd];
  const all = whole([{ role: "user", content: "hello" }, { role: "assistant", content: "<think>a</think><action>look</action>" }, { role: "user", content: "You look." }]);
  assert.deepEqual([...first, ...response, ...chat.continuation("You look.", response)], all);
  // A response cut by length gets its end-of-turn added by the environment side.
  assert.equal(chat.continuation("x", [5])[0], chat.imEnd);
  assert.equal(chat.responseText(response), "<think>a</think><action>look</action>");
});
