/**
 * The EZPoints environment, text port of gym-cards `EZPoints-v0` with verl-agent/SEED rewards
 * (`RL4VLM/RL4VLM:gym-cards/gym_cards/envs/ezpoints.py`). The agent appends one token per step
 * (`1`..`10`, `+`, `*`) and ends with
 * `=`, which pays +10 iff the formula is 12 and both cards were used. Penalties are 0, not the
 * original −1: an unavailable number or an unknown action is a no-op. The image of the
 * original is replaced by a text observation (cards in words, formula without spaces).
 */
import { DataError, EnvStateError } from "../../core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../env.ts";
import { evaluateFormula } from "./formula.ts";
import { describeCard, generateHand, parseCard, type Hand } from "./hand.ts";

/** The 13 actions in gym-cards index order: numbers 1..10, then `+`, `*`, `=`. */
export const EZPOINTS_ACTIONS: readonly string[] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "+", "*", "="];

/** The target value. */
export const EZPOINTS_TARGET = 12;

/** Task payload: a generator seed, or two explicit card names (`["ST", "H2"]`). */
export type EzPointsPayload = { readonly seed: number } | { readonly cards: readonly [string, string] };

/** Options of `EzPointsEnv`. */
export type EzPointsOptions = {
  /** Step limit (verl-agent). @default 8 */
  readonly maxSteps?: number;
  /** The formula may hold at most this many tokens; a step that finds it longer truncates. @default 5 */
  readonly maxFormulaLength?: number;
};

/** The hand a task deals. */
export function handOf(task: TaskSpec): Hand {
  const p = task.payload as Partial<{ seed: unknown; cards: unknown }> | null;
  if (p !== null && typeof p === "object" && Array.isArray(p.cards) && p.cards.length === 2) {
    return [parseCard(String(p.cards[0])), parseCard(String(p.cards[1]))];
  }
  if (p !== null && typeof p === "object" && typeof p.seed === "number" && Number.isInteger(p.seed)) return generateHand(p.seed);
  throw new DataError(`ezpoints task '${task.id}' needs a payload { seed } or { cards: [a, b] }`);
}

/** The observation text: the cards in words and the formula written so far, without spaces. */
export function renderEzPoints(hand: Hand, formula: readonly string[]): string {
  const cards = hand.map((c) => `${describeCard(c)} (${c.name}, value ${c.value})`).join(" and ");
  return `Cards: ${cards}\nFormula: '${formula.join("")}'`;
}

/** The task line: which numbers to combine. */
export function ezpointsTaskText(hand: Hand): string {
  return `make a formula equal to ${EZPOINTS_TARGET} using the numbers ${hand[0].value} and ${hand[1].value}, each once.`;
}

/**
 * EZPoints, one game at a time.
 * @example
 * const env = new EzPointsEnv();
 * env.reset({ id: "ezpoints/x", split: "test", payload: { cards: ["S4", "H3"] } }, 0);
 * for (const a of ["4", "*", "3", "="]) env.step(a); // last reward 10, won
 */
export class EzPointsEnv implements Env {
  readonly id = "ezpoints";
  readonly maxSteps: number;
  readonly maxFormulaLength: number;
  readonly rewardRange = [0, 10] as const;
  private hand: Hand | undefined;
  private formula: string[] = [];
  private used = new Map<number, number>();
  private steps = 0;
  private done = true;
  private task = "";

  constructor(options: EzPointsOptions = {}) {
    this.maxSteps = options.maxSteps ?? 8;
    this.maxFormulaLength = options.maxFormulaLength ?? 5;
  }

  /** The cards of the current game. */
  get cards(): Hand | undefined {
    return this.hand;
  }

  /** The tokens written so far. */
  get tokens(): readonly string[] {
    return this.formula;
  }

  reset(task: TaskSpec, _seed: number): Observation {
    // The hand is the task; the reset seed draws nothing (a group shares one hand).
    this.hand = handOf(task);
    this.formula = [];
    this.used = new Map();
    this.steps = 0;
    this.done = false;
    this.task = ezpointsTaskText(this.hand);
    return this.observe();
  }

  step(action: string): StepResult {
    if (this.hand === undefined) throw new EnvStateError("ezpoints: step before reset");
    if (this.done) throw new EnvStateError("ezpoints: step after the episode ended; call reset");
    this.steps++;
    const token = action.trim();
    let reward = 0, recognized = EZPOINTS_ACTIONS.includes(token), ended = false;
    if (this.formula.length > this.maxFormulaLength) {
      ended = true; // truncated before acting, reward 0 (verl-agent; the original paid −1)
    } else if (token === "=") {
      ended = true;
      const value = evaluateFormula(this.formula);
      const numbers = [...this.used.values()].reduce((a, b) => a + b, 0);
      if (value === EZPOINTS_TARGET && numbers === 2) reward = 10;
    } else if (token === "+" || token === "*") {
      this.formula.push(token);
    } else if (recognized) {
      const n = Number(token);
      const have = this.hand.filter((c) => c.value === n).length;
      const used = this.used.get(n) ?? 0;
      if (used < have) {
        this.formula.push(token);
        this.used.set(n, used + 1);
      } else {
        recognized = false; // an unavailable number: nothing appended, reward 0
      }
    }
    this.done = ended || this.steps >= this.maxSteps;
    const won = reward > 0;
    return { observation: this.observe(), reward, done: this.done, won, score: won ? 1 : 0, actionRecognized: recognized };
  }

  private observe(): Observation {
    return { text: renderEzPoints(this.hand!, this.formula), admissible: EZPOINTS_ACTIONS, task: this.task };
  }
}
