/**
 * The chat template: Qwen2 / ChatML turns, `<|im_start|>{role}\n{content}<|im_end|>\n`, with an
 * optional open assistant turn at the end for generation. No default system message is added
 * (Qwen2.5's template inserts one; our embedded model is not Qwen).
 *
 * `encodeChat` builds ids turn by turn, encoding message contents with `allowSpecial: false`, so
 * text that merely spells `<|im_end|>` can never close a turn. Because encoding splits on added
 * tokens first anyway, the ids equal `encode(renderChat(...), { allowSpecial: true })` whenever
 * contents contain no special-token strings.
 */
import { CheckpointError } from "../../core/errors.ts";
import type { BpeTokenizer } from "./bpe.ts";

/** One chat message. */
export type ChatMessage = { readonly role: "system" | "user" | "assistant"; readonly content: string };

/** Options of the chat template. */
export type ChatOptions = {
  /** End with an open `<|im_start|>assistant\n` turn for the model to continue. @default true */
  readonly addGenerationPrompt?: boolean;
};

/** The chat as template text. */
export function renderChat(messages: readonly ChatMessage[], options: ChatOptions = {}): string {
  let s = "";
  for (const m of messages) s += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
  if (options.addGenerationPrompt ?? true) s += "<|im_start|>assistant\n";
  return s;
}

/**
 * The chat as token ids, contents encoded without special tokens.
 * @throws CheckpointError when the tokenizer lacks `<|im_start|>` or `<|im_end|>`
 */
export function encodeChat(tok: BpeTokenizer, messages: readonly ChatMessage[], options: ChatOptions = {}): number[] {
  const start = tok.specialTokenId("<|im_start|>"), end = tok.specialTokenId("<|im_end|>");
  if (start === undefined || end === undefined) throw new CheckpointError("tokenizer", "has no <|im_start|>/<|im_end|> tokens, so it cannot render chats");
  const ids: number[] = [];
  for (const m of messages) {
    ids.push(start, ...tok.encode(`${m.role}\n${m.content}`), end, ...tok.encode("\n"));
  }
  if (options.addGenerationPrompt ?? true) ids.push(start, ...tok.encode("assistant\n"));
  return ids;
}
