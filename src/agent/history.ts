/**
 * The history an agent keeps between steps (the verl-agent protocol): per past step, the
 * observation seen before acting (as the prompt shows it), the action actually sent to the
 * environment (never the reasoning), and the observation that followed (Search-QA pairs its
 * queries with the information they returned). Window selection and the exact line format live
 * here; the surrounding wording lives in each environment's renderer.
 */

/** One past step. `step` is the absolute 1-based step number. */
export type HistoryRecord = {
  readonly step: number;
  /** Observation before acting, as prompts show it (WebShop: reformatted). */
  readonly observation: string;
  /** Action sent to the environment, as prompts show it (Sokoban: `Up`, `Still`, ...). */
  readonly action: string;
  /** Observation returned by this step's action (as prompts show it). */
  readonly after: string;
};

/** The last `k` records (all of them if fewer; none for k <= 0). */
export function lastRecords(history: readonly HistoryRecord[], k: number): readonly HistoryRecord[] {
  return k <= 0 ? [] : history.slice(Math.max(0, history.length - k));
}

/**
 * verl-agent's history line, **exact**: `[Observation {n}: '{observation}', Action {n}: '{action}']`,
 * lines joined by a newline.
 */
export function observationActionLines(records: readonly HistoryRecord[]): string {
  return records.map((r) => `[Observation ${r.step}: '${r.observation}', Action ${r.step}: '${r.action}']`).join("\n");
}

/**
 * Search-QA's history block, **exact**: `Step {n}:{action} {information}\n` per record, records
 * joined by a newline (so entries are separated by a blank line).
 */
export function searchHistoryBlock(records: readonly HistoryRecord[]): string {
  return records.map((r) => `Step ${r.step}:${r.action} ${r.after}\n`).join("\n");
}
