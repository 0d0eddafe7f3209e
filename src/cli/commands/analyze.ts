/**
 * `seed analyze gates`: does the teacher's gate prefer good actions? Rolls out seeded episodes of
 * a checkpoint on held-out tasks, scores the sampled actions with and without a skill (the
 * trainer's scoring), labels each action good from the true environment state (ALFWorld: it
 * shortens the shortest plan to the goal; WebShop, Search-QA: it improves what the clean expert
 * achieves from there, score then steps), and prints the within-trajectory AUC of the gate with
 * intervals over episodes, its Pearson with the label, the distribution of Δ = ℓ_skill −
 * ℓ_student, the gate's spread and tie rates (eval/gate-action.ts, eval/expert-value.ts).
 */
import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { defaultConfig, mergeConfig, type SeedConfig } from "../../config/config.ts";
import { checkpointAgentSettings } from "../../eval/agent-settings.ts";
import { defaultEvalSplit } from "../../eval/benchmark.ts";
import { actionGateAnalysis, GATE_LABELS, GATE_SKILLS, type ActionGateReport, type GateLabel, type GateSkill } from "../../eval/gate-action.ts";
import { GATE_DEFAULTS } from "../../eval/gate-value.ts";
import { openPolicyDir } from "../../eval/policies.ts";
import { resolveCheckpoint } from "../../run/run-dir.ts";
import { numberOption, parseOptions, printJson, requireOption } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed analyze gates --checkpoint <dir> [options]

  --checkpoint <dir>   a run directory (its newest checkpoint), checkpoints/update-N, or a policy dir
                       (a Stage-0 or Stage-1 base: <out>/model); the environment, prompt, history,
                       action budget and mask are the checkpoint's (its run's config or stage report)
  --env <id>           alfworld, webshop, search (default: the checkpoint's, else alfworld)
  --label <kind>       how actions are labelled from the replayed environment state:
                       plan    ALFWorld only (its default): good iff the shortest plan to the goal
                               is shorter after the action
                       expert  every environment with a clean expert (default off ALFWorld): the
                               clean expert plays on from the state before and after the action
                               (shown the trajectory's history) within the remaining step budget;
                               good iff score_after > score_before, or equal scores and
                               steps_after < steps_before (steps infinite when it does not
                               end the episode in time or ends it with score 0)
  --data <dir>         real benchmark data (e.g. ../shared/data/alfworld); default: the checkpoint's
                       (generated games, shops and questions for the embedded defaults)
  --split <name>       held-out split (default: the environment's evaluation split: valid_seen, test)
  --skill <source>     self (the checkpoint's analyzer role), rule (the rule analyzer's hindsight
                       skill of the same trajectory; default), hint (Stage 0's hint: the rule
                       analyzer on a clean expert's episode of the task; alfworld and webshop),
                       foreign (a control: the rule skill of an episode of another task)
  --tasks <n>          held-out tasks (default ${GATE_DEFAULTS.tasks})
  --group-size <n>     episodes per task (default: the run's group size)
  --max-steps <n>      step limit per episode (default: the checkpoint's)
  --seed <n>           seed of rollouts and the bootstrap (default 0)
  --resamples <n>      bootstrap resamples (default ${GATE_DEFAULTS.resamples})
  --json               one JSON object on stdout

  e.g. seed analyze gates --checkpoint runs/stage0-webshop/model --tasks 32 --group-size 8 --skill rule`;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = numberOption(value, flag, 0);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer, got ${value}`);
  return n;
}

function f3(e: { value: number; low: number; high: number }): string {
  const x = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "n/a");
  return Number.isFinite(e.low) ? `${x(e.value)} [${x(e.low)}, ${x(e.high)}]` : x(e.value);
}

function printReport(r: ActionGateReport): void {
  const q = (o: Readonly<Record<string, number>>) => Object.entries(o).map(([k, v]) => `${k} ${v.toFixed(4)}`).join(", ");
  console.log(`${r.env}/${r.split}, skill ${r.skill}: ${r.tasks} tasks x ${r.trajectories / Math.max(1, r.tasks)} episodes, success ${(100 * r.successRate).toFixed(1)}%, skill valid ${(100 * r.skillValidRate).toFixed(1)}%, beta ${r.beta}`);
  console.log(`label ${r.label}: ${r.labelRule}`);
  if (r.expertStart !== undefined) console.log(`clean expert from the first state: score ${r.expertStart.score.toFixed(3)}, finished ${(100 * r.expertStart.finished).toFixed(1)}% in ${r.expertStart.steps.toFixed(2)} steps`);
  console.log(`actions ${r.actions} (${(100 * r.goodRate).toFixed(1)}% good), ${r.mixedTrajectories} trajectories with good and bad steps, ${r.unlabelled} unlabelled, ${r.replayMismatch} replay mismatches`);
  console.log(`within-trajectory AUC ${f3(r.auc)} (per-trajectory mean ${Number.isFinite(r.aucPerTrajectoryMean) ? r.aucPerTrajectoryMean.toFixed(3) : "n/a"}); Pearson(gate, good) ${f3(r.pearson)}`);
  console.log(`same-state AUC ${f3(r.sameStateAuc)} over ${r.mixedStates} states with good and bad actions (episodes of one task, same turn and observation)`);
  console.log(`mean gate good ${r.meanGate.good.toFixed(4)} / bad ${r.meanGate.bad.toFixed(4)}; spread sd ${r.gateSpread.std.toFixed(4)} (within trajectories ${r.gateSpread.withinTrajectoryStd.toFixed(4)})`);
  console.log(`gate quantiles: ${q(r.gateSpread.quantiles)}`);
  console.log(`delta per token: ${q(r.delta.token)}`);
  console.log(`delta per action: ${q(r.delta.action)}`);
  console.log(`ties: ${(100 * r.ties.pairs).toFixed(2)}% of good/bad pairs, ${(100 * r.ties.zeroDeltaTokens).toFixed(2)}% of tokens with delta 0; teacher prompts cut ${(100 * r.teacherTruncatedFrac).toFixed(1)}% (${r.seconds.toFixed(0)} s)`);
}

/** Environments whose actions have a label: ALFWorld's plan distance, the clean expert's outcome. */
const GATE_ENVS: readonly string[] = ["alfworld", "webshop", "search"];

/** The `analyze` command. */
export const command: Command = {
  summary: "analyses of a checkpoint: gates vs action value (analyze gates)",
  async run(argv) {
    const [what, ...rest] = argv;
    if (what === undefined || what === "--help" || what === "-h") {
      console.log(USAGE);
      return what === undefined ? 2 : 0;
    }
    if (what !== "gates") throw new UsageError(`unknown analysis '${what}' (one of: gates)`);
    const { values } = parseOptions(rest, {
      checkpoint: { type: "string" }, env: { type: "string" }, label: { type: "string" }, data: { type: "string" }, split: { type: "string" }, skill: { type: "string" },
      tasks: { type: "string" }, "group-size": { type: "string" }, "max-steps": { type: "string" }, seed: { type: "string" }, resamples: { type: "string" },
      json: { type: "boolean" }, help: { type: "boolean", short: "h" },
    }, false);
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const checkpoint = requireOption(values.checkpoint, "checkpoint");
    const skill = (values.skill ?? "rule") as GateSkill;
    if (!(GATE_SKILLS as readonly string[]).includes(skill)) throw new UsageError(`--skill is one of ${GATE_SKILLS.join(", ")}, got '${values.skill}'`);
    const label = values.label as GateLabel | undefined;
    if (label !== undefined && !(GATE_LABELS as readonly string[]).includes(label)) throw new UsageError(`--label is one of ${GATE_LABELS.join(", ")}, got '${values.label}'`);
    const check = (env: string) => {
      if (!GATE_ENVS.includes(env)) throw new UsageError(`--env is one of ${GATE_ENVS.join(", ")} (the environments with an action label), got '${env}'`);
      if (label === "plan" && env !== "alfworld") throw new UsageError(`--label plan needs ALFWorld's game state; ${env} has the expert label`);
      if (skill === "hint" && env !== "alfworld" && env !== "webshop") throw new UsageError(`--skill hint is Stage 0's hint, which only alfworld and webshop have; env is ${env}`);
    };
    if (values.env !== undefined) check(values.env);
    const target = resolveCheckpoint(checkpoint);
    // The checkpoint acts as it was trained: its run's config, or its Stage-0/1 report's settings.
    const agent = checkpointAgentSettings(target);
    let config: SeedConfig = agent?.config ?? structuredClone(defaultConfig);
    const env = values.env ?? config.env.name;
    if (agent !== null && env !== config.env.name) throw new UsageError(`${agent.source} trained on ${config.env.name}, not ${env}`);
    check(env);
    const maxSteps = positiveInt(values["max-steps"], "max-steps");
    config = mergeConfig(config, { env: { name: env, ...(values.data !== undefined ? { data: resolve(values.data) } : {}), ...(maxSteps !== undefined ? { maxSteps } : {}) } });
    const tasks = positiveInt(values.tasks, "tasks");
    const groupSize = positiveInt(values["group-size"], "group-size");
    const resamples = positiveInt(values.resamples, "resamples");
    const seed = numberOption(values.seed, "seed", 0);
    const policy = await openPolicyDir(target.policyDir);
    const report = await actionGateAnalysis(policy, config, {
      skill, seed, split: values.split ?? defaultEvalSplit(env, config.env.data), ...(label !== undefined ? { label } : {}),
      ...(tasks !== undefined ? { tasks } : {}), ...(groupSize !== undefined ? { groupSize } : {}), ...(resamples !== undefined ? { resamples } : {}),
    });
    if (values.json) printJson({ checkpoint: target.policyDir, data: config.env.data || "generated", ...report });
    else printReport(report);
    return 0;
  },
};
