/**
 * The Search-QA environment, verl-agent's version of the Search-R1 protocol
 * (`PeterGriffinJin/Search-R1`): the reset observation is the question; an action is what the agent
 * layer extracted,
 * `<search>query</search>`, `<answer>text</answer>` or anything else (invalid). A search returns
 * the top 3 passages as `<information>…</information>` (`information.ts`); an answer ends the
 * episode with
 * reward EM ∈ {0, 1} (`em.ts`); an invalid action returns an empty observation (or Search-R1's fixed
 * "My previous action is invalid…" text in that style). Every step counts: the 4th ends the
 * episode, and as in verl-agent's search env a search on that last turn is not executed (the
 * episode ends with no information). With a remote retriever, await `prepare(action)` before
 * `step(action)` (remote.ts).
 */
import { DataError, EnvStateError } from "../../core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../env.ts";
import { exactMatch } from "./em.ts";
import { informationText, SEARCH_R1_INVALID, type InformationStyle } from "./information.ts";
import type { SearchPayload } from "./loaders.ts";
import type { PrefetchingRetriever } from "./remote.ts";
import type { Retriever } from "./retriever.ts";

/** Options of `SearchEnv`. */
export type SearchEnvOptions = {
  /** Where searches go: in-process BM25, or a `RemoteRetriever` (then await `prepare`). */
  readonly retriever: Retriever;
  /** Passages per search. @default 3 */
  readonly topk?: number;
  /** Turns per episode. @default 4 */
  readonly maxTurns?: number;
  /** Information text and invalid-turn answer. @default "verl-agent" (SEED) */
  readonly style?: InformationStyle;
};

/** A parsed action: a search query, an answer, or neither. */
export type SearchAction = { kind: "search"; query: string } | { kind: "answer"; answer: string } | { kind: "invalid" };

/** Parse the agent layer's re-emitted action (one whole tag block; tags in any case). */
export function parseSearchAction(action: string): SearchAction {
  const t = action.trim();
  const search = /^<search>([\s\S]*?)<\/search>$/i.exec(t);
  if (search) return { kind: "search", query: search[1]!.trim() };
  const answer = /^<answer>([\s\S]*?)<\/answer>$/i.exec(t);
  if (answer) return { kind: "answer", answer: answer[1]!.trim() };
  return { kind: "invalid" };
}

/** The payload of a Search-QA task, validated. */
export function searchPayloadOf(task: TaskSpec): SearchPayload {
  const p = task.payload as Partial<SearchPayload> | null;
  if (p === null || typeof p !== "object" || typeof p.question !== "string" || !Array.isArray(p.answers) || p.answers.length === 0) {
    throw new DataError(`search task '${task.id}' needs a payload { question, answers: [...] }`);
  }
  return p as SearchPayload;
}

function isPrefetching(r: Retriever): r is PrefetchingRetriever {
  return typeof (r as Partial<PrefetchingRetriever>).prefetch === "function";
}

/**
 * Search-QA, one question at a time.
 * @example
 * const kb = generateKnowledgeBase();
 * const env = new SearchEnv({ retriever: new Bm25Retriever(kb.passages) });
 * env.reset(kb.questions[0]!, 0);
 * env.step("<search>Velmora Works</search>");
 */
export class SearchEnv implements Env {
  readonly id = "search";
  readonly maxSteps: number;
  readonly rewardRange = [0, 1] as const;
  readonly topk: number;
  readonly style: InformationStyle;
  private readonly retriever: Retriever;
  private payload: SearchPayload | undefined;
  private turns = 0;
  private done = true;

  constructor(options: SearchEnvOptions) {
    this.retriever = options.retriever;
    this.topk = options.topk ?? 3;
    this.maxSteps = options.maxTurns ?? 4;
    this.style = options.style ?? "verl-agent";
  }

  reset(task: TaskSpec, _seed: number): Observation {
    // The question is the task; nothing here is random.
    this.payload = searchPayloadOf(task);
    this.turns = 0;
    this.done = false;
    return { text: this.payload.question, task: this.payload.question };
  }

  /** Fetch a remote search's passages before `step` (a no-op for in-process retrievers). */
  async prepare(action: string): Promise<void> {
    const a = parseSearchAction(action);
    const last = this.turns + 1 >= this.maxSteps;
    if (a.kind === "search" && !last && isPrefetching(this.retriever)) await this.retriever.prefetch([a.query], this.topk);
  }

  step(action: string): StepResult {
    if (this.payload === undefined) throw new EnvStateError("search: step before reset");
    if (this.done) throw new EnvStateError("search: step after the episode ended; call reset");
    this.turns++;
    const a = parseSearchAction(action);
    const last = this.turns >= this.maxSteps;
    let text = "", reward = 0, ended = false;
    if (a.kind === "search" && last) {
      // Upstream ends the episode before running the tool on the last turn.
    } else if (a.kind === "search") {
      text = informationText(this.retriever.retrieve([a.query], this.topk), this.style);
    } else if (a.kind === "answer") {
      reward = exactMatch(a.answer, this.payload.answers);
      ended = true;
    } else if (this.style === "search-r1") {
      text = SEARCH_R1_INVALID.trim();
    }
    this.done = ended || this.turns >= this.maxSteps;
    const won = this.done && reward >= 1;
    return {
      observation: { text, task: this.payload.question },
      reward,
      done: this.done,
      won,
      score: reward,
      actionRecognized: a.kind !== "invalid",
    };
  }
}
