/**
 * `seed analyze gates`: does the teacher's gate prefer good actions? Rolls out seeded episodes of
 * a checkpoint on held-out ALFWorld games, scores the sampled actions with and without a skill
 * (the trainer's scoring), labels each action good when it shortens the shortest plan to the goal
 * from the true game state, and prints the within-trajectory AUC of the gate with intervals over
 * episodes, its Pearson with the label, the distribution of Δ = ℓ_skill − ℓ_student, the gate's
 * spread and tie rates (eval/gate-action.ts).
 */
import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { defaultConfig, mergeConfig, type SeedConfig } from "../../config/config.ts";
import { actionGateAnalysis, GATE_SKILLS, type ActionGateReport, type GateSkill } from "../../eval/gate-action.ts";
import { GATE_DEFAULTS } from "../../eval/gate-value.ts";
import { openPolicyDir } from "../../eval/policies.ts";
import { readRunConfig, resolveCheckpoint } from "../../run/run-dir.ts";
import { numberOption, parseOptions, printJson, requireOption } from "../args.ts";
import type { Command } from "../main.ts";

const USAGE = `usage: seed analyze gates --checkpoint <dir> [options]

  --checkpoint <dir>   a run directory (its newest checkpoint), checkpoints/update-N, or a policy dir
                       (a Stage-0 or Stage-1 base: <out>/model)
  --env alfworld       the only environment with a game state to label actions (default)
  --data <dir>         real ALFWorld data (e.g. ../shared/data/alfworld); default: the run's data
                       (generated games for the embedded defaults)
  --split <name>       valid_seen (default) or valid_unseen
  --skill <source>     self (the checkpoint's analyzer role), rule (the rule analyzer's hindsight
                       skill of the same trajectory; default), hint (Stage 0's hint: the rule
                       analyzer on a clean expert's episode of the task)
  --tasks <n>          held-out tasks (default ${GATE_DEFAULTS.tasks})
  --group-size <n>     episodes per task (default: the run's group size)
  --max-steps <n>      step limit per episode (default: the run's)
  --seed <n>           seed of rollouts and the bootstrap (default 0)
  --resamples <n>      bootstrap resamples (default ${GATE_DEFAULTS.resamples})
  --json               one JSON object on stdout`;

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
  console.log(`actions ${r.actions} (${(100 * r.goodRate).toFixed(1)}% good), ${r.mixedTrajectories} trajectories with good and bad steps, ${r.unlabelled} unlabelled, ${r.replayMismatch} replay mismatches`);
  console.log(`within-trajectory AUC ${f3(r.auc)} (per-trajectory mean ${Number.isFinite(r.aucPerTrajectoryMean) ? r.aucPerTrajectoryMean.toFixed(3) : "n/a"}); Pearson(gate, good) ${f3(r.pearson)}`);
  console.log(`mean gate good ${r.meanGate.good.toFixed(4)} / bad ${r.meanGate.bad.toFixed(4)}; spread sd ${r.gateSpread.std.toFixed(4)} (within trajectories ${r.gateSpread.withinTrajectoryStd.toFixed(4)})`);
  console.log(`gate quantiles: ${q(r.gateSpread.quantiles)}`);
  console.log(`delta per token: ${q(r.delta.token)}`);
  console.log(`delta per action: ${q(r.delta.action)}`);
  console.log(`ties: ${(100 * r.ties.pairs).toFixed(2)}% of good/bad pairs, ${(100 * r.ties.zeroDeltaTokens).toFixed(2)}% of tokens with delta 0; teacher prompts cut ${(100 * r.teacherTruncatedFrac).toFixed(1)}% (${r.seconds.toFixed(0)} s)`);
}

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
      checkpoint: { type: "string" }, env: { type: "string" }, data: { type: "string" }, split: { type: "string" }, skill: { type: "string" },
      tasks: { type: "string" }, "group-size": { type: "string" }, "max-steps": { type: "string" }, seed: { type: "string" }, resamples: { type: "string" },
      json: { type: "boolean" }, help: { type: "boolean", short: "h" },
    }, false);
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const checkpoint = requireOption(values.checkpoint, "checkpoint");
    const env = values.env ?? "alfworld";
    if (env !== "alfworld") throw new UsageError(`--env: only alfworld has a game state to label actions, got '${env}'`);
    const skill = (values.skill ?? "rule") as GateSkill;
    if (!(GATE_SKILLS as readonly string[]).includes(skill)) throw new UsageError(`--skill is one of ${GATE_SKILLS.join(", ")}, got '${values.skill}'`);
    const target = resolveCheckpoint(checkpoint);
    let config: SeedConfig = target.runDir ? readRunConfig(target.runDir) : structuredClone(defaultConfig);
    if (config.env.name !== "alfworld") throw new UsageError(`the run at ${target.runDir} trained on ${config.env.name}, not alfworld`);
    const maxSteps = positiveInt(values["max-steps"], "max-steps");
    config = mergeConfig(config, { env: { ...(values.data !== undefined ? { data: resolve(values.data) } : {}), ...(maxSteps !== undefined ? { maxSteps } : {}) } });
    const tasks = positiveInt(values.tasks, "tasks");
    const groupSize = positiveInt(values["group-size"], "group-size");
    const resamples = positiveInt(values.resamples, "resamples");
    const seed = numberOption(values.seed, "seed", 0);
    const policy = await openPolicyDir(target.policyDir);
    const report = await actionGateAnalysis(policy, config, {
      skill, seed, split: values.split ?? "valid_seen",
      ...(tasks !== undefined ? { tasks } : {}), ...(groupSize !== undefined ? { groupSize } : {}), ...(resamples !== undefined ? { resamples } : {}),
    });
    if (values.json) printJson({ checkpoint: target.policyDir, data: config.env.data || "generated", ...report });
    else printReport(report);
    return 0;
  },
};
