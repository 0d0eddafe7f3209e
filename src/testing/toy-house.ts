/**
 * A tiny ALFWorld-like text environment for agent-layer tests: find the key on one of two
 * tables, take it, and open the door. It speaks ALFWorld's conventions (reset banner with a
 * `Your task is to:` line, sorted admissible commands including `help`, `Nothing happens.` for
 * anything else, reward 10 on the winning step) so it can be prompted with the ALFWorld renderer
 * while the real environments are elsewhere. The key's table depends on the seed.
 */
import { EnvStateError } from "../core/errors.ts";
import type { Env, Observation, StepResult, TaskSpec } from "../envs/env.ts";

/** The only task of the toy house. */
export const TOY_TASK: TaskSpec = { id: "toy/open-door", split: "train", payload: null };

/** A two-table, one-door household. */
export class ToyHouse implements Env {
  readonly id: string;
  readonly maxSteps: number;
  readonly rewardRange = [0, 10] as const;
  private keyTable = 1;
  private at = "";
  private holding = false;
  private ended = true;
  /** Every action string this instance received, in order. */
  readonly received: string[] = [];

  constructor(options: { id?: string; maxSteps?: number } = {}) {
    this.id = options.id ?? "toy-house";
    this.maxSteps = options.maxSteps ?? 10;
  }

  private admissible(): string[] {
    const a = ["go to door 1", "go to table 1", "go to table 2", "help", "inventory", "look"];
    if (this.at === `table ${this.keyTable}` && !this.holding) a.push(`take key 1 from table ${this.keyTable}`);
    if (this.at === "door 1" && this.holding) a.push("open door 1");
    return [...new Set(a)].sort();
  }

  private obs(text: string): Observation {
    return { text, admissible: this.admissible(), task: "open the door." };
  }

  reset(_task: TaskSpec, seed: number): Observation {
    this.keyTable = (seed % 2) + 1;
    this.at = "";
    this.holding = false;
    this.ended = false;
    return this.obs("-= Welcome to the toy house! =-\n\nYou are in the middle of a room. You see a door 1, a table 1, and a table 2.\n\nYour task is to: open the door.");
  }

  step(action: string): StepResult {
    if (this.ended) throw new EnvStateError("step after the episode ended");
    this.received.push(action);
    const cmd = action.trim();
    let text = "Nothing happens.";
    let won = false;
    if (this.admissible().includes(cmd)) {
      if (cmd.startsWith("go to ")) {
        this.at = cmd.slice(6);
        const onIt = this.at === `table ${this.keyTable}` && !this.holding ? "a key 1" : "nothing";
        text = this.at.startsWith("table") ? `You arrive at ${this.at}. On the ${this.at}, you see ${onIt}.` : `You arrive at ${this.at}. The door 1 is closed.`;
      } else if (cmd.startsWith("take ")) {
        this.holding = true;
        text = `You pick up the key 1 from the ${this.at}.`;
      } else if (cmd === "open door 1") {
        text = "You open the door 1.";
        won = true;
      } else if (cmd === "inventory") text = this.holding ? "You are carrying: a key 1." : "You are not carrying anything.";
      else if (cmd === "look") text = "You look around.";
      else text = "Available commands: look, inventory, go to, take, open.";
    }
    if (won) this.ended = true;
    return { observation: this.obs(text), reward: won ? 10 : 0, done: won, won, score: won ? 1 : 0, actionRecognized: text !== "Nothing happens." };
  }
}
