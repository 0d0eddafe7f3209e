/** The byte-level BPE tokenizer: training, encode/decode, `tokenizer.json` I/O (the chat template is `policy/chat-format.ts`). */
export { BpeTokenizer, type AddedToken, type BpeSpec } from "./bpe.ts";
export { trainBpe, DEFAULT_ADDED_TOKENS, type BpeTrainOptions } from "./train.ts";
export { loadTokenizer, tokenizerFromHfJson, tokenizerToHfJson, tokenizerJsonText } from "./hf-json.ts";
export { QWEN2_PATTERN, GPT2_PATTERN } from "./pretokenize.ts";
