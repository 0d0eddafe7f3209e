/**
 * ChatML chat formatting on token ids (the template of Qwen2-family models and of our embedded
 * tokenizer): `<|im_start|>{role}\n{content}<|im_end|>\n`, ending with the generation header
 * `<|im_start|>assistant\n`. Special tokens are placed by id and message content is encoded with
 * special tokens disallowed, so text in an observation can never forge a role boundary. Each run of
 * plain text between two special tokens is encoded as one string, which is how a Hugging Face
 * tokenizer splits the rendered template, so the ids equal those of `apply_chat_template`.
 *
 * `renderChat` is the same template as text (what `apply_chat_template` prints); `encodeChat`
 * the ids of a list of messages. This file is the only place ChatML is written.
 *
 * Not a Jinja interpreter: a model with another template needs its own `ChatFormat`.
 */
import { ConfigError } from "../core/errors.ts";
import type { Tokenizer } from "../policy/policy.ts";

/** One chat message. */
export type ChatMessage = { readonly role: "system" | "user" | "assistant"; readonly content: string };

/** Options of {@link ChatFormat}. */
export type ChatFormatOptions = {
  /**
   * System message placed before the first user message. Qwen2.5's own template inserts a
   * default system message when none is given; pass it here to reproduce that exactly.
   * @default undefined (no system message)
   */
  readonly system?: string;
};

/** Options of `renderChat`, `encodeChat` and `ChatFormat.conversation`. */
export type ChatOptions = {
  /** End with an open `<|im_start|>assistant\n` turn for the model to continue. @default true */
  readonly addGenerationPrompt?: boolean;
};

/** The chat as template text (special tokens spelled out). */
export function renderChat(messages: readonly ChatMessage[], options: ChatOptions = {}): string {
  let s = "";
  for (const m of messages) s += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
  if (options.addGenerationPrompt ?? true) s += "<|im_start|>assistant\n";
  return s;
}

/**
 * The chat as token ids, contents encoded without special tokens (text that merely spells
 * `<|im_end|>` never closes a turn). Equals `encode(renderChat(messages), { allowSpecial: true })`
 * whenever contents hold no special-token strings.
 * @throws ConfigError when the tokenizer lacks `<|im_start|>` or `<|im_end|>`
 */
export function encodeChat(tokenizer: Tokenizer, messages: readonly ChatMessage[], options: ChatOptions = {}): number[] {
  return new ChatFormat(tokenizer).conversation(messages, options);
}

/** ChatML formatting for one tokenizer. */
export class ChatFormat {
  readonly tokenizer: Tokenizer;
  /** Id of `<|im_start|>`. */
  readonly imStart: number;
  /** Id of `<|im_end|>`: the end of every turn, and a stop token of every response. */
  readonly imEnd: number;
  readonly system: string | undefined;

  constructor(tokenizer: Tokenizer, options: ChatFormatOptions = {}) {
    const start = tokenizer.specialTokenId("<|im_start|>");
    const end = tokenizer.specialTokenId("<|im_end|>");
    if (start === undefined || end === undefined) {
      throw new ConfigError([{ path: "tokenizer", message: "has no ChatML special tokens <|im_start|> and <|im_end|>; the agent layer formats prompts with ChatML" }]);
    }
    this.tokenizer = tokenizer;
    this.imStart = start;
    this.imEnd = end;
    this.system = options.system;
  }

  /** Tokens that end a response: `<|im_end|>` and the tokenizer's end-of-sequence id. */
  get stopTokens(): number[] {
    return this.imEnd === this.tokenizer.eosId ? [this.imEnd] : [this.imEnd, this.tokenizer.eosId];
  }

  private text(s: string): number[] {
    return s === "" ? [] : this.tokenizer.encode(s, { allowSpecial: false });
  }

  /** Ids of one complete message, `<|im_start|>role\ncontent<|im_end|>`, without the newline after. */
  private message(m: ChatMessage): number[] {
    return [this.imStart, ...this.text(`${m.role}\n${m.content}`), this.imEnd];
  }

  /** The generation header `<|im_start|>assistant\n`. */
  private header(): number[] {
    return [this.imStart, ...this.text("assistant\n")];
  }

  /**
   * Ids of a conversation followed by the generation header (`add_generation_prompt=True`,
   * unless `options` turns it off). The system message of the options is prepended unless
   * `messages` starts with one.
   */
  conversation(messages: readonly ChatMessage[], options: ChatOptions = {}): number[] {
    const all = this.system !== undefined && messages[0]?.role !== "system" ? [{ role: "system" as const, content: this.system }, ...messages] : messages;
    // Appended element by element: `push(...ids)` passes every id as an argument, and a message of
    // a few MB (a client's, through `seed serve`) overflows the call stack.
    const ids: number[] = [];
    const append = (xs: readonly number[]) => {
      for (let i = 0; i < xs.length; i++) ids.push(xs[i]!);
    };
    for (const m of all) {
      append(this.message(m));
      append(this.text("\n"));
    }
    if (options.addGenerationPrompt ?? true) append(this.header());
    return ids;
  }

  /** Ids of a single-user-message prompt (the window mode, and the first turn of the full mode). */
  prompt(userText: string): number[] {
    return this.conversation([{ role: "user", content: userText }]);
  }

  /**
   * Ids appended after an assistant turn in the full mode to open the next one: `<|im_end|>` when
   * the response did not end with it (a length cut or a stop string), the newline, the user
   * message and the generation header. All of it is environment-authored (loss mask 0).
   */
  continuation(userText: string, previousResponse: readonly number[]): number[] {
    const close = previousResponse[previousResponse.length - 1] === this.imEnd ? [] : [this.imEnd];
    return [...close, ...this.text("\n"), ...this.message({ role: "user", content: userText }), ...this.text("\n"), ...this.header()];
  }

  /** The text of a response without a final stop token (what the action is extracted from). */
  responseText(sampled: readonly number[]): string {
    const last = sampled[sampled.length - 1];
    const body = last !== undefined && this.stopTokens.includes(last) ? sampled.slice(0, -1) : sampled;
    return this.tokenizer.decode(body);
  }
}
