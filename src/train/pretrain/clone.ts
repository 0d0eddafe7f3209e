/**
 * Stage 0's behaviour cloning, shared by every environment's corpus: a BPE trained on the rendered
 * demonstrations, the episodes encoded exactly as `full`-mode rollouts, the seeded tiny model, and
 * NLL on the expert's responses (`sft.ts`). The corpus and the report are the environment's
 * (`stage0.ts` for ALFWorld, `scored-stage0.ts` for WebShop and Search-QA).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deriveSeed } from "../../core/rng.ts";
import { saveCheckpoint } from "../../model/checkpoint.ts";
import { ChatFormat } from "../../policy/chat-format.ts";
import type { PromptRenderer } from "../../agent/prompts/index.ts";
import { presetConfig, type ModelConfig } from "../../model/config.ts";
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
  readonly policy: EmbeddedPolicy;
  readonly bc: NllTrainReport;
};

/**
 * Steps 2-4 of Stage 0 on any environment's corpus: a BPE trained on the rendered episodes, the
 * episodes encoded as `full`-mode rollouts, a seeded tiny model, NLL on the expert's responses.
 */
export async function cloneBase(config: SeedConfig, episodes: readonly DemoEpisode[], renderer: PromptRenderer, quiet: boolean): Promise<ClonedBase> {
  const s = config.stage0;
  const tokenizer = trainBpe(episodes.flatMap((d) => demoTexts(d, renderer)), { vocabSize: s.vocabSize });
  const chat = new ChatFormat(tokenizer);
  const examples = episodes.map((d) => encodeDemo(d, chat, s.maxContext, renderer, { trainNoise: s.trainPlainNoise && d.hint === "", contextWeight: s.contextWeight })).filter((x) => x !== undefined);
  const modelConfig = presetConfig(s.model, {
    vocabSize: tokenizer.vocabSize, maxContext: s.maxContext,
    ...(s.dModel > 0 ? { dModel: s.dModel, ffnSize: 64 * Math.ceil((8 * s.dModel) / 3 / 64) } : {}),
    ...(s.layers > 0 ? { nLayers: s.layers } : {}),
  });
  const policy = EmbeddedPolicy.create({ config: modelConfig, tokenizer, seed: deriveSeed(SEED, "init") });
  const bc = await trainNll(policy, examples, { steps: s.steps, batch: s.batch, lr: s.lr, seed: deriveSeed(SEED, "bc"), label: "stage0 bc", quiet });
  return { tokenizer, chat, examples, modelConfig, policy, bc };
}

/** Writes a Stage-0 output folder atomically: `model/` (weights and tokenizer, no optimizer) and `stage0.json`. */
export function writeBase(outDir: string, base: ClonedBase, report: object): void {
  writeStageOutput(outDir, (tmp) => {
    saveCheckpoint(join(tmp, "model"), { config: base.modelConfig, params: base.policy.params, tokenizer: base.tokenizer });
    writeFileSync(join(tmp, "stage0.json"), JSON.stringify(report, null, 2) + "\n");
  });
}
