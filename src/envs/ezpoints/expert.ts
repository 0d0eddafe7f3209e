/**
 * The EZPoints expert: the shortest continuation of the current formula that makes 12 with both
 * cards, then `=`. It reads the formula from the observation, so it re-plans after the noisy
 * expert's random tokens. When no continuation exists (a hand without a solution, or a formula
 * spoiled by random tokens) it presses `=` at once, which ends the game with reward 0 exactly as
 * the benchmark scores any wrong formula.
 */
import type { Rng } from "../../core/rng.ts";
import type { Expert } from "../expert.ts";
import type { Observation, TaskSpec } from "../env.ts";
import { EZPOINTS_ACTIONS, EZPOINTS_TARGET, handOf } from "./env.ts";
import { evaluateFormula } from "./formula.ts";

/** Split a formula written without spaces back into tokens (`1010+2` is `10`,`10`,`+`,`2`). */
export function splitFormula(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    // No action writes a bare 0, so a 0 after a 1 always belongs to a 10.
    if (c === "1" && text[i + 1] === "0") {
      out.push("10");
      i++;
    } else {
      out.push(c);
    }
  }
  return out;
}

/**
 * The shortest token sequence that, appended to `prefix`, gives a formula of at most `maxLength`
 * tokens equal to 12 using every card value once; `undefined` if none exists.
 */
export function solveEzPoints(values: readonly number[], prefix: readonly string[] = [], maxLength = 5): string[] | undefined {
  const remaining = [...values];
  for (const t of prefix) {
    if (!/^\d+$/.test(t)) continue;
    const i = remaining.indexOf(Number(t));
    if (i < 0) return undefined;
    remaining.splice(i, 1);
  }
  // Breadth-first over continuations: at most 5 tokens from at most 4 symbols.
  let frontier: { tokens: string[]; left: number[] }[] = [{ tokens: [], left: remaining }];
  for (let depth = 0; depth <= maxLength - prefix.length; depth++) {
    const next: typeof frontier = [];
    for (const node of frontier) {
      if (node.left.length === 0 && evaluateFormula([...prefix, ...node.tokens]) === EZPOINTS_TARGET) return node.tokens;
      const choices = [...new Set(node.left.map(String)), "+", "*"];
      for (const c of choices) {
        const left = [...node.left];
        if (c !== "+" && c !== "*") left.splice(left.indexOf(Number(c)), 1);
        next.push({ tokens: [...node.tokens, c], left });
      }
    }
    frontier = next;
  }
  return undefined;
}

function formulaOf(obs: Observation): string[] {
  const m = /^Formula: '([^']*)'$/m.exec(obs.text);
  return m === null ? [] : splitFormula(m[1]!);
}

/** The expert for one EZPoints game. */
export function ezpointsExpert(task: TaskSpec, _seed: number): Expert {
  const values = handOf(task).map((c) => c.value);
  return {
    act(obs) {
      const plan = solveEzPoints(values, formulaOf(obs));
      return plan === undefined || plan.length === 0 ? "=" : plan[0]!;
    },
  };
}

/** A uniformly random action among the 13 (the noisy expert's exploration). */
export function ezpointsRandomAction(_obs: Observation, rng: Rng): string {
  return rng.choice(EZPOINTS_ACTIONS);
}
