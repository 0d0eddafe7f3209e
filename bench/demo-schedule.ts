/**
 * The schedule `seed bench update` times: the `demo` experiment's (configs/experiments/demo.json:
 * tasks per update, step limit, mini-batches), read from the experiment itself so the bench always
 * times the demo's update and never the library defaults (16 x 8 tasks, 30 steps, several
 * optimizer steps per update), which hold several times its arithmetic. `run.updates` is left
 * out: the bench sets its own.
 */
import { readExperimentSpec } from "../src/eval/experiment-spec.ts";

/** The demo experiment's dotted overrides, less `run.updates`. */
export function demoOverrides(): string[] {
  return readExperimentSpec("demo").overrides.filter((o) => !o.startsWith("run.updates="));
}
