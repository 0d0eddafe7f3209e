/**
 * Search-QA: the environment, retrievers (BM25 in process, HTTP client, HTTP server), EM
 * scoring, information text, question-set loaders, the synthetic knowledge base, expert and tasks.
 */
export { SearchEnv, parseSearchAction, searchPayloadOf } from "./env.ts";
export type { SearchEnvOptions, SearchAction } from "./env.ts";
export { normalizeAnswer, exactMatch, substringMatch, extractAnswer } from "./em.ts";
export { informationText, verlAgentResultText, searchR1ResultText, SEARCH_R1_INVALID } from "./information.ts";
export type { InformationStyle } from "./information.ts";
export { pyJsonDumps, pyJsonString } from "./py-json.ts";
export { Bm25Retriever, loadCorpus, parseCorpus } from "./retriever.ts";
export type { Passage, RetrievalHit, Retriever } from "./retriever.ts";
export { RemoteRetriever, parseRetrieveResponse } from "./remote.ts";
export type { PrefetchingRetriever, RemoteRetrieverOptions } from "./remote.ts";
export { createRetrievalServer, parseRetrieveRequest } from "./server.ts";
export type { RetrievalServerOptions } from "./server.ts";
export { loadQaSet, parseQaSet, normalizeQuestion } from "./loaders.ts";
export type { SearchPayload } from "./loaders.ts";
export { generateKnowledgeBase } from "./knowledge.ts";
export type { KnowledgeBase, KnowledgeBaseOptions } from "./knowledge.ts";
export { searchExpert, searchRandomAction } from "./expert.ts";
import { UsageError } from "../../core/errors.ts";
import type { TaskSpec } from "../env.ts";
import { SearchEnv, type SearchEnvOptions } from "./env.ts";
import { generateKnowledgeBase, type KnowledgeBase } from "./knowledge.ts";
import { Bm25Retriever } from "./retriever.ts";

const worlds = new Map<number, { kb: KnowledgeBase; retriever: Bm25Retriever }>();

/**
 * Size of the generated world that training and evaluation use (`generateKnowledgeBase`'s
 * `scale`): 720 passages, 2,048 train and 512 test questions, so the evaluation panel holds 500
 * questions (the default world's 64 test questions give intervals of ±12 points).
 */
export const SEARCH_WORLD_SCALE = 8;

/** The generated knowledge base of a seed (at {@link SEARCH_WORLD_SCALE}) and its BM25 retriever, built once per process. */
export function syntheticWorld(seed = 0): { kb: KnowledgeBase; retriever: Bm25Retriever } {
  let w = worlds.get(seed);
  if (w === undefined) {
    const kb = generateKnowledgeBase({ seed, scale: SEARCH_WORLD_SCALE });
    w = { kb, retriever: new Bm25Retriever(kb.passages) };
    worlds.set(seed, w);
  }
  return w;
}

/** Questions of the synthetic knowledge base (`train` or `test`), optionally the first `count`. */
export function syntheticSearchTasks(split: string, options: { readonly seed?: number; readonly count?: number } = {}): TaskSpec[] {
  if (split !== "train" && split !== "test") throw new UsageError(`search has no generated split '${split}' (train, test)`);
  const all = syntheticWorld(options.seed ?? 0).kb.questions.filter((q) => q.split === split);
  return options.count === undefined ? all : all.slice(0, options.count);
}

/** A Search-QA environment over the synthetic knowledge base of `seed` unless a retriever is given. */
export function makeSearchEnv(options: Partial<SearchEnvOptions> & { readonly seed?: number } = {}): SearchEnv {
  const { seed, ...rest } = options;
  return new SearchEnv({ retriever: rest.retriever ?? syntheticWorld(seed ?? 0).retriever, ...rest });
}
