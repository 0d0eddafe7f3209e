/**
 * The verl-agent reformatting of WebShop observations for prompts and history
 * (verl-agent's WebShop wrapper): keep only the `[SEP]` parts after the part equal to the task (the
 * instruction), each
 * wrapped in single quotes. The environment itself always returns the benchmark's raw text;
 * the agent layer applies this when it builds prompts.
 */

/**
 * Reformat one observation. The task is the instruction, i.e. the third part of the reset
 * observation; when no part equals it, the text is returned unchanged.
 * @example reformatObservation("WebShop [SEP] Instruction: [SEP] i need socks [SEP] Search", "i need socks") === "'Search'"
 */
export function reformatObservation(text: string, task: string): string {
  const parts = text.split(" [SEP] ");
  const at = parts.indexOf(task);
  if (at < 0) return text;
  return parts.slice(at + 1).map((p) => `'${p}'`).join(" [SEP] ");
}
