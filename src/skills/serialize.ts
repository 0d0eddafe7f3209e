/**
 * The serialized trajectory x_τ the analyzer reads (the paper's Stage 1: every observation,
 * action and reward, and the outcome): the task, then per
 * step its index, the raw environment observation the agent acted on (not the whole prompt), the
 * action, its validity, the step reward and the discounted return G_t (γ = 0.95, six decimals),
 * and finally the outcome. The same text is used by every analyzer (rule-based, LLM, the policy
 * itself) in Stage 1 and Stage 2, so it is part of the analyzer template and must not drift.
 *
 * Format (one field per line; multi-line values continue on lines indented by two spaces, so a
 * field line can never be forged by observation text):
 *
 *     Task: put some book on sidetable.
 *     Step 0
 *     Observation: -= Welcome to TextWorld, ALFRED! =-
 *
 *       You are in the middle of a room. ...
 *     Action: go to desk 1
 *     Action valid: true
 *     Reward: 0.000000
 *     Return: 9.025000
 *     ...
 *     Outcome: success
 *
 * Departure from the reference code (which prints no rewards or returns and the full response
 * with its reasoning): we follow the paper (rewards and the outcome shown), and print the projected
 * action
 * by default (`action: "response"` prints the decoded response instead; fix one per run).
 * `readSerializedTrajectory` parses the text back: the rule-based analyzer reads only this text.
 */
import type { Trajectory } from "../core/trajectory.ts";
import { err, ok, type Result } from "../core/result.ts";

/** Episode outcome as the analyzer is told it. */
export type Outcome = "success" | "failure";

/** Options of `serializeTrajectory`. Fix them per run: Stage 1 and Stage 2 must serialize alike. */
export type SerializeOptions = {
  /** Discount of the printed returns G_t. @default 0.95 */
  readonly gamma?: number;
  /** Print the projected action (`action`) or the whole decoded response (`response`). @default "action" */
  readonly action?: "action" | "response";
  /**
   * Longest observation printed; a longer one is cut and marked with ` [...]` (WebShop result
   * pages run to thousands of characters). @default Infinity
   */
  readonly maxObservationChars?: number;
  /**
   * Budget of the whole text. Over it, step 0 (which holds the task context) and as many of the
   * last steps as fit are kept, and an `Omitted: steps a-b` line replaces the middle, so a small
   * model's context still sees how the episode began and ended. @default Infinity
   */
  readonly maxChars?: number;
};

/** A serialized trajectory and the facts the template needs alongside the text. */
export type SerializedTrajectory = {
  readonly text: string;
  readonly task: string;
  readonly outcome: Outcome;
  /** Number of steps. */
  readonly steps: number;
};

/** One step as read back from the text. */
export type SerializedStep = {
  /** The step's index in the episode (indices skip where an `Omitted` line stood). */
  readonly index: number;
  readonly observation: string;
  readonly action: string;
  readonly valid: boolean;
  readonly reward: number;
  readonly return: number;
};

/** A serialized trajectory parsed back into fields. */
export type ParsedTrajectory = { readonly task: string; readonly steps: readonly SerializedStep[]; readonly outcome: Outcome };

/** G_t = Σ_{u ≥ t} γ^{u−t}·r_u, backwards (the same rule as `math/advantages.ts::discountedReturns`, which `skills/` may not import). */
function returnsOf(rewards: readonly number[], gamma: number): number[] {
  const out = new Array<number>(rewards.length);
  let g = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    g = rewards[t]! + gamma * g;
    out[t] = g;
  }
  return out;
}

/** A field line; continuation lines of a multi-line value are indented by two spaces (blank lines stay blank). */
function field(name: string, value: string): string {
  const [first, ...rest] = value.split("\n");
  return [`${name}: ${first}`, ...rest.map((l) => (l === "" ? "" : `  ${l}`))].join("\n");
}

/**
 * The analyzer's view of one trajectory.
 * @example serializeTrajectory(traj).text.split("\n")[0] // "Task: put some book on sidetable."
 */
export function serializeTrajectory(trajectory: Trajectory, options: SerializeOptions = {}): SerializedTrajectory {
  const gamma = options.gamma ?? 0.95;
  const view = options.action ?? "action";
  const obsCap = options.maxObservationChars ?? Infinity;
  const returns = returnsOf(trajectory.turns.map((t) => t.reward), gamma);
  const head = field("Task", trajectory.task);
  const blocks = trajectory.turns.map((turn, i) => {
    const observation = turn.observation.length > obsCap ? `${turn.observation.slice(0, obsCap)} [...]` : turn.observation;
    return [
      `Step ${i}`,
      field("Observation", observation),
      field("Action", view === "action" ? turn.actionText : turn.responseText),
      `Action valid: ${turn.valid}`,
      `Reward: ${turn.reward.toFixed(6)}`,
      `Return: ${returns[i]!.toFixed(6)}`,
    ].join("\n");
  });
  const outcome: Outcome = trajectory.success ? "success" : "failure";
  const tail = `Outcome: ${outcome}`;
  const text = [head, ...withinBudget(blocks, options.maxChars ?? Infinity, head.length + tail.length + 2), tail].join("\n");
  return { text, task: trajectory.task, outcome, steps: trajectory.turns.length };
}

/** Step 0 plus the longest suffix of steps that fits `budget` (minus `fixed`), with an `Omitted` line between. */
function withinBudget(blocks: readonly string[], budget: number, fixed: number): string[] {
  const size = (bs: readonly string[]) => bs.reduce((n, b) => n + b.length + 1, fixed);
  if (blocks.length <= 2 || size(blocks) <= budget) return [...blocks];
  let keepFrom = blocks.length - 1;
  const omittedLine = (from: number) => `Omitted: steps 1-${from - 1}`;
  while (keepFrom > 2 && size([blocks[0]!, omittedLine(keepFrom - 1), ...blocks.slice(keepFrom - 1)]) <= budget) keepFrom--;
  return [blocks[0]!, omittedLine(keepFrom), ...blocks.slice(keepFrom)];
}

type Field = { name: string; value: string[] };

/** Splits the text into field lines with their continuation lines. */
function fields(text: string): Field[] {
  const out: Field[] = [];
  for (const line of text.split("\n")) {
    const cont = line === "" || line.startsWith("  ");
    if (cont && out.length > 0) {
      out[out.length - 1]!.value.push(line === "" ? "" : line.slice(2));
      continue;
    }
    const step = /^Step (\d+)$/.exec(line);
    if (step) {
      out.push({ name: "Step", value: [step[1]!] });
      continue;
    }
    const colon = line.indexOf(": ");
    const bare = line.endsWith(":") ? line.slice(0, -1) : undefined;
    if (colon > 0) out.push({ name: line.slice(0, colon), value: [line.slice(colon + 2)] });
    else if (bare !== undefined) out.push({ name: bare, value: [""] });
    else out.push({ name: "?", value: [line] });
  }
  return out;
}

/**
 * Parses a serialized trajectory back into fields, or says what is malformed. Total: never throws.
 */
export function readSerializedTrajectory(text: string): Result<ParsedTrajectory, string> {
  const fs = fields(text.replace(/\r\n/g, "\n"));
  let i = 0;
  const take = (name: string): string | undefined => {
    const f = fs[i];
    if (f === undefined || f.name !== name) return undefined;
    i++;
    return f.value.join("\n").replace(/\n+$/, "");
  };
  const task = take("Task");
  if (task === undefined) return err("the text does not start with a 'Task:' line");
  const steps: SerializedStep[] = [];
  while (fs[i]?.name === "Step" || fs[i]?.name === "Omitted") {
    if (take("Omitted") !== undefined) continue;
    const index = Number(take("Step"));
    const observation = take("Observation");
    const action = take("Action");
    const valid = take("Action valid");
    const reward = Number(take("Reward"));
    const ret = Number(take("Return"));
    if (observation === undefined || action === undefined || (valid !== "true" && valid !== "false") || !Number.isFinite(reward) || !Number.isFinite(ret)) {
      return err(`step ${index} is missing one of Observation, Action, Action valid, Reward, Return`);
    }
    steps.push({ index, observation, action, valid: valid === "true", reward, return: ret });
  }
  const outcome = take("Outcome");
  if (outcome !== "success" && outcome !== "failure") return err("the text does not end with 'Outcome: success' or 'Outcome: failure'");
  if (i !== fs.length) return err(`unexpected line after the outcome: ${fs[i]!.name}`);
  return ok({ task, steps, outcome });
}
