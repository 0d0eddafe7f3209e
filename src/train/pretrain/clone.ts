/**
 * Stage 0's behaviour cloning, shared by every environment's corpus: a BPE trained on the rendered
 * demonstrations, the episodes encoded exactly as `full`-mode rollouts, the seeded tiny model, and
 * NLL on the expert's responses (`sft.ts`). With `stage0.init` a pretrained checkpoint takes the
 * place of the BPE and the fresh model: the same corpus, its tokenizer, its weights. The corpus
 * and the report are the environment's (`stage0.ts` for ALFWorld, `scored-stage0.ts` for WebShop
 * and Search-QA).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { deriveSeed } from "../../core/rng.ts";
import { saveCheckpoint } from "../../model/checkpoint.ts";
import { ChatFormat } from "../../policy/chat-format.ts";
import type { PromptRenderer } from "../../agent/prompts/index.ts";
import { parameterCount, presetConfig, type ModelConfig } from "../../model/config.ts";
import { trainBpe, type BpeTokenizer } from "../../model/tokenizer/index.ts";
import { EmbeddedPolicy } from "../../policy/embedded.ts";
import type { SeedConfig } from "../../config/config.ts";
import { demoTexts, encodeDemo, type DemoEpisode } from "./demos.ts";
import { trainNll, type NllTrainReport, type SftExample } from "./sft.ts";
import { writeStageOutput } from "./stage-output.ts";

/**
 * The root seed of every Stage-0 draw: the base agent is a fixed starting point shared by every
 * run seed of an experiment.
 */
export const SEED = deriveSeed(0, "stage0");

/** What behaviour cloning built: the tokenizer, the encoded corpus, the trained model. */
export type ClonedBase = {
  readonly tokenizer: BpeTokenizer;
  readonly chat: ChatFormat;
  readonly examples: readonly SftExample[];
  readonly modelConfig: ModelConfig;
  /** Context the episodes were cut at: `stage0.maxContext`, or less when a pretrained init has less. */
  readonly maxContext: number;
  readonly policy: EmbeddedPolicy;
  readonly bc: NllTrainReport;
};

/**
 * Steps 2-4 of Stage 0 on any environment's corpus: a BPE trained on the rendered episodes, the
 * episodes encoded as `full`-mode rollouts, a seeded tiny model, NLL on the expert's responses.
 */
export async function cloneBase(config: SeedConfig, episodes: readonly DemoEpisode[], renderer: PromptRenderer, quiet: boolean): Promise<ClonedBase> {
  const s = config.stage0;
  const policy = s.init !== "" ? await pretrainedInit(s.init) : undefined;
  const tokenizer = policy?.tokenizer ?? trainBpe(episodes.flatMap((d) => demoTexts(d, renderer)), { vocabSize: s.vocabSize });
  const chat = new ChatFormat(tokenizer);
  const maxContext = Math.min(s.maxContext, policy?.config.maxContext ?? s.maxContext);
  const examples = episodes.map((d) => encodeDemo(d, chat, maxContext, renderer, { trainNoise: s.trainPlainNoise && d.hint === "", contextWeight: s.contextWeight })).filter((x) => x !== undefined);
  const modelConfig = policy?.config ?? presetConfig(s.model, {
    vocabSize: tokenizer.vocabSize, maxContext: s.maxContext,
    ...(s.dModel > 0 ? { dModel: s.dModel, ffnSize: 64 * Math.ceil((8 * s.dModel) / 3 / 64) } : {}),
    ...(s.layers > 0 ? { nLayers: s.layers } : {}),
  });
  const model = policy ?? EmbeddedPolicy.create({ config: modelConfig, tokenizer, seed: deriveSeed(SEED, "init") });
  const bc = await trainNll(model, examples, { steps: s.steps, batch: s.batch, lr: s.lr, seed: deriveSeed(SEED, "bc"), label: "stage0 bc", quiet });
  return { tokenizer, chat, examples, modelConfig, maxContext, policy: model, bc };
}

/**
 * The pretrained model `stage0.init` names, refused in one line when it is not a checkpoint of
 * ours (a Tinker directory has no local weights to clone into). A tokenizer without ChatML is
 * refused by `ChatFormat`.
 */
async function pretrainedInit(dir: string): Promise<EmbeddedPolicy> {
  const path = resolve(dir);
  if (!existsSync(join(path, "config.json"))) throw new UsageError(`stage0.init ${path} is not a checkpoint directory (no config.json; 'seed model import-gguf' writes one)`);
  return EmbeddedPolicy.load(path);
}

/** What every Stage-0 report says of its corpus and behaviour cloning. */
export type CorpusSummary = {
  readonly tokenizer: { readonly vocabSize: number };
  /** The preset, or "pretrained" with the init's absolute path. */
  readonly model: { readonly preset: string; readonly parameters: number; readonly maxContext: number; readonly init?: string };
  readonly corpusTokens: number;
  /** Mean tokens of a demonstration episode (prompt style `prompt`). */
  readonly tokensPerEpisode: number;
  /** The prompt style the agent was trained in (`rollout.prompt`); runs from this base must use it. */
  readonly prompt: string;
  readonly trainedTokens: number;
  readonly bc: NllTrainReport;
};

/** The corpus and BC part of a Stage-0 report. */
export function corpusSummary(config: SeedConfig, base: ClonedBase): CorpusSummary {
  const tokens = base.examples.reduce((a, e) => a + e.request.tokens.length, 0);
  return {
    tokenizer: { vocabSize: base.tokenizer.vocabSize },
    model: {
      preset: config.stage0.init === "" ? config.stage0.model : "pretrained", parameters: parameterCount(base.modelConfig), maxContext: base.maxContext,
      ...(config.stage0.init === "" ? {} : { init: resolve(config.stage0.init) }),
    },
    corpusTokens: tokens,
    tokensPerEpisode: base.examples.length === 0 ? 0 : tokens / base.examples.length,
    prompt: config.rollout.prompt,
    trainedTokens: base.examples.reduce((a, e) => a + e.mask.reduce((x, y) => x + y, 0), 0),
    bc: base.bc,
  };
}

/** Writes a Stage-0 output folder atomically: `model/` (weights and tokenizer, no optimizer) and `stage0.json`. */
export function writeBase(outDir: string, base: ClonedBase, report: object): void {
  writeStageOutput(outDir, (tmp) => {
    saveCheckpoint(join(tmp, "model"), { config: base.modelConfig, params: base.policy.params, tokenizer: base.tokenizer });
    writeFileSync(join(tmp, "stage0.json"), JSON.stringify(report, null, 2) + "\n");
  });
}
