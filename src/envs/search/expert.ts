/**
 * The Search-QA expert for generated questions: follow the fact chain. It searches each hop's
 * query until that hop's passage has appeared in an observation, then answers with the gold.
 * It reads the observations, so it re-plans after the noisy expert's random actions (a hop whose
 * passage a random search happened to surface is not searched again). Real QA sets have no chain:
 * there it answers at once with the first gold answer (an oracle, useful only as a protocol check).
 */
import type { Rng } from "../../core/rng.ts";
import type { Expert } from "../expert.ts";
import type { Observation, TaskSpec } from "../env.ts";
import { searchPayloadOf } from "./env.ts";

/** The expert for one Search-QA episode. */
export function searchExpert(task: TaskSpec, _seed: number): Expert {
  const payload = searchPayloadOf(task);
  const hops = payload.hops ?? [];
  const seen = new Set<string>();
  return {
    act(obs: Observation) {
      for (const h of hops) if (showsTitle(obs.text, h.query)) seen.add(h.passageId);
      const next = hops.find((h) => !seen.has(h.passageId));
      return next === undefined ? `<answer>${payload.answers[0]}</answer>` : `<search>${next.query}</search>`;
    },
  };
}

// The information text carries contents, not ids: a hop's passage is recognised by its quoted
// title, which is the hop's query (generated entities are searched by name). In verl-agent's
// JSON the quotes are escaped, in Search-R1's they are not.
function showsTitle(text: string, title: string): boolean {
  return text.includes(`\\"${title}\\"`) || text.includes(`(Title: "${title}")`);
}

/** A random action: a search for a few words of the question, or an answer of one of them. */
export function searchRandomAction(obs: Observation, rng: Rng): string {
  const words = obs.task.replace(/[?.,]/g, "").split(/\s+/).filter((w) => w !== "");
  const pick = () => (words.length === 0 ? "" : rng.choice(words));
  if (rng.float() < 0.75) return `<search>${Array.from({ length: 1 + rng.int(3) }, pick).join(" ")}</search>`;
  return `<answer>${pick()}</answer>`;
}
