/**
 * `seed lm`: the interim main job. Trains a byte-level BPE tokenizer and the embedded
 * Qwen2-family model on a text file (next-token prediction on random windows), saves a
 * checkpoint, and samples a continuation of a prompt. With `--load` it only samples from an
 * existing checkpoint. Progress (step, loss, tokens/s, ETA) goes to stderr; the sample (or, with
 * `--json`, one summary object) to stdout.
 */
import { readFileSync } from "node:fs";
import { UsageError } from "../../core/errors.ts";
import { Progress } from "../../core/progress.ts";
import { Rng, deriveSeed } from "../../core/rng.ts";
import { presetConfig, parameterCount } from "../../model/config.ts";
import { assertCheckpointTarget } from "../../model/checkpoint.ts";
import { trainBpe } from "../../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../../policy/embedded.ts";
import type { ScoreRequest } from "../../policy/policy.ts";
import { numberOption, parseOptions, printJson } from "../args.ts";
import type { Command } from "../main.ts";

const HELP = `usage: seed lm --text <file> --out <dir> [options]
       seed lm --load <dir> --prompt "..." [options]

Train a BPE tokenizer and the embedded model on a text file, save a checkpoint, sample from it.

options:
  --text <file>        training text (UTF-8)
  --out <dir>          checkpoint directory to write
  --load <dir>         sample from an existing checkpoint instead of training
  --steps N            optimizer steps (default 300)
  --prompt "..."       text to continue (default: the start of the text's first line)
  --vocab N            tokenizer vocabulary (default 1024)
  --context N          training window in tokens (default 128)
  --batch N            windows per step (default 8)
  --lr X               peak learning rate, cosine decay after a 5% warm-up (default 0.003)
  --preset NAME        model shape: tiny | embedded (default embedded)
  --max-tokens N       tokens to sample (default 120)
  --temperature X      sampling temperature, 0 = greedy (default 0.8)
  --seed N             seed of everything random (default 0)
  --json               print one JSON summary instead of the sample text`;

const OPTIONS = {
  text: { type: "string" }, out: { type: "string" }, load: { type: "string" }, steps: { type: "string" },
  prompt: { type: "string" }, vocab: { type: "string" }, context: { type: "string" }, batch: { type: "string" },
  lr: { type: "string" }, preset: { type: "string" }, "max-tokens": { type: "string" }, temperature: { type: "string" },
  seed: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" },
} as const;

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  const n = numberOption(value, flag, fallback);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} expects a positive integer, got '${value}'`);
  return n;
}

/** Learning rate at `step` (0-based): linear warm-up over 5% of the steps, then cosine to 10%. */
export function lrAt(step: number, steps: number, peak: number): number {
  const warm = Math.max(1, Math.round(steps * 0.05));
  if (step < warm) return (peak * (step + 1)) / warm;
  const t = (step - warm) / Math.max(1, steps - warm);
  return peak * (0.1 + 0.45 * (1 + Math.cos(Math.PI * t)));
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read --text ${path}: ${(e as Error).message}`);
  }
}

async function sampleText(policy: EmbeddedPolicy, prompt: string, maxTokens: number, temperature: number, seed: number): Promise<string> {
  const ids = policy.tokenizer.encode(prompt);
  if (ids.length === 0) throw new UsageError("--prompt encodes to no tokens");
  const [s] = await policy.sample([{ prompt: ids, maxTokens, temperature, seed: deriveSeed(seed, "lm-sample"), stopTokens: [policy.tokenizer.eosId] }]);
  return prompt + policy.tokenizer.decode(s!.tokens);
}

export const command: Command = {
  summary: "train the embedded model on a text file and sample from it",
  async run(argv) {
    const { values: o } = parseOptions(argv, OPTIONS, false);
    if (o.help) {
      console.log(HELP);
      return 0;
    }
    const seed = numberOption(o.seed, "seed", 0);
    const maxTokens = positiveInt(o["max-tokens"], "max-tokens", 120);
    const temperature = numberOption(o.temperature, "temperature", 0.8);
    if (temperature < 0) throw new UsageError("--temperature must be >= 0");
    if (o.load !== undefined) {
      if (o.text !== undefined || o.out !== undefined) throw new UsageError("--load samples only; it does not take --text or --out");
      if (o.prompt === undefined) throw new UsageError("--load needs --prompt");
      const policy = await EmbeddedPolicy.load(o.load);
      const text = await sampleText(policy, o.prompt, maxTokens, temperature, seed);
      if (o.json) printJson({ checkpoint: o.load, prompt: o.prompt, sample: text });
      else console.log(text);
      return 0;
    }
    if (o.text === undefined || o.out === undefined) throw new UsageError(`--text and --out are required (or --load)\n\n${HELP}`);
    // Refused before training, not after: a folder or file seed did not write is never replaced.
    assertCheckpointTarget(o.out, "--out");
    const steps = positiveInt(o.steps, "steps", 300);
    const context = positiveInt(o.context, "context", 128);
    const batch = positiveInt(o.batch, "batch", 8);
    const vocab = positiveInt(o.vocab, "vocab", 1024);
    const lr = numberOption(o.lr, "lr", 3e-3);
    const text = readText(o.text);
    if (text.trim().length === 0) throw new UsageError(`--text ${o.text} is empty`);

    const t0 = performance.now();
    const tokenizer = trainBpe(text, { vocabSize: vocab });
    const ids = tokenizer.encode(text);
    const tokenizerSeconds = (performance.now() - t0) / 1000;
    // Hold out the last 5% of the tokens to report a validation loss the model never trained on.
    const split = Math.floor(ids.length * 0.95);
    const train = ids.slice(0, split), valid = ids.slice(split);
    const windowLen = context + 1;
    if (train.length < windowLen + 1) throw new UsageError(`--text has ${ids.length} tokens; training needs more than ${windowLen + 1} (lower --context)`);
    const config = presetConfig(o.preset ?? "embedded", { vocabSize: tokenizer.vocabSize, maxContext: Math.max(context + 1, maxTokens + 64) });
    const policy = EmbeddedPolicy.create({ config, tokenizer, seed });
    console.error(`seed lm: ${text.length} chars -> ${ids.length} tokens (vocab ${tokenizer.vocabSize}, BPE ${tokenizerSeconds.toFixed(1)} s); model ${(parameterCount(config) / 1e6).toFixed(2)}M params; engine ${policy.engineKind}`);

    const rng = Rng.from(deriveSeed(seed, "lm-windows"));
    const bar = new Progress("lm", steps);
    let tokens = 0, loss = NaN;
    const tStart = performance.now();
    for (let step = 0; step < steps; step++) {
      const reqs: ScoreRequest[] = Array.from({ length: batch }, () => {
        const at = rng.int(train.length - windowLen + 1);
        return { tokens: train.slice(at, at + windowLen), start: 1 };
      });
      const n = batch * context;
      const weights = reqs.map(() => new Float32Array(context).fill(-1 / n));
      const logprobs = await policy.backwardScored(reqs, weights);
      loss = -logprobs.reduce((s, lp) => s + lp.reduce((a, b) => a + b, 0), 0) / n;
      const { gradNorm } = await policy.step({ lr: lrAt(step, steps, lr), weightDecay: 0.1, maxGradNorm: 1 });
      tokens += n;
      const tps = tokens / ((performance.now() - tStart) / 1000);
      bar.tick(1, `loss ${loss.toFixed(3)}  gnorm ${gradNorm.toFixed(2)}  ${tps.toFixed(0)} tok/s`);
    }
    const validLoss = await meanLoss(policy, valid, context);
    bar.done(`loss ${loss.toFixed(3)}  valid ${validLoss === null ? "n/a" : validLoss.toFixed(3)}`);
    await policy.save(o.out);
    const prompt = o.prompt ?? text.split("\n").find((l) => l.trim().length > 0)!.split(/\s+/).slice(0, 4).join(" ");
    const sample = await sampleText(policy, prompt, maxTokens, temperature, seed);
    const seconds = (performance.now() - tStart) / 1000;
    if (o.json) {
      printJson({ out: o.out, steps, train_loss: loss, valid_loss: validLoss, ln_vocab: Math.log(tokenizer.vocabSize), tokens_per_s: tokens / seconds, params: parameterCount(config), vocab: tokenizer.vocabSize, engine: policy.engineKind, sample });
    } else {
      console.error(`saved ${o.out}; valid loss ${validLoss === null ? "n/a" : validLoss.toFixed(3)} (ln vocab ${Math.log(tokenizer.vocabSize).toFixed(2)})`);
      console.log(sample);
    }
    return 0;
  },
};

/** Mean next-token loss over consecutive windows of held-out tokens (null when too few). */
async function meanLoss(policy: EmbeddedPolicy, ids: readonly number[], context: number): Promise<number | null> {
  const reqs: ScoreRequest[] = [];
  for (let at = 0; at + 2 <= ids.length && reqs.length < 64; at += context) reqs.push({ tokens: ids.slice(at, at + context + 1), start: 1 });
  if (reqs.length === 0) return null;
  const scores = await policy.score(reqs);
  let sum = 0, n = 0;
  for (const s of scores) for (const lp of s) (sum -= lp), n++;
  return sum / n;
}
