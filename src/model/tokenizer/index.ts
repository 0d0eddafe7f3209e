/** The byte-level BPE tokenizer: training, encode/decode, `tokenizer.json` I/O, chat template. */
export { BpeTokenizer, type AddedToken, type BpeSpec } from "./bpe.ts";
export { trainBpe, DEFAULT_ADDED_TOKENS, type BpeTrainOptions } from "./train.ts";
export { loadTokenizer, tokenizerFromHfJson, tokenizerToHfJson, tokenizerJsonText } from "./hf-json.ts";
export { renderChat, encodeChat, type ChatMessage, type ChatOptions } from "./chat.ts";
export { QWEN2_PATTERN, GPT2_PATTERN } from "./pretokenize.ts";
