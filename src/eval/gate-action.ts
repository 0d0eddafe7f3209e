/**
 * Eq. 8's premise at the action level (`seed analyze gates`): with the hindsight skill in
 * context, does the teacher prefer a trajectory's good actions over its bad ones? The paper
 * correlates gates with episode return only (gate-value.ts does that too); here each action gets
 * a value label from the true environment state, by replaying the trajectory's actions on a fresh
 * environment of the same task:
 *
 * - `plan` (ALFWorld's default): good ⇔ d(s_{t+1}) < d(s_t), d = the length of the shortest plan
 *   to the goal (`envs/alfworld/plan-distance.ts`: exact on the real games' walkthroughs);
 * - `expert` (every other environment with a clean expert: WebShop, Search-QA): good ⇔ the clean
 *   expert's outcome (score, steps) from s_{t+1} beats the one from s_t lexicographically
 *   (expert-value.ts has the exact rule).
 *
 * The gate of an action is the mean over its sampled tokens of g = σ(β·Δ), Δ = ℓ_T − ℓ_θ,
 * scored exactly as the trainer scores them (`probeGates`). Reported:
 *
 * - within-trajectory AUC: over every (good, bad) pair of actions of the same trajectory,
 *   P(gate_good > gate_bad) + ½·P(tie), pooled over trajectories (a trajectory weighs by its
 *   pairs); 95% interval from resampling episodes (cluster bootstrap, seeded);
 * - same-state AUC: the same over pairs of actions that different episodes of one task took from
 *   the same state (turn and observation), which no position effect can drive (a gate that is
 *   low on every first action but ranks first actions right is 0.5+ here, not below);
 * - Pearson of the action gate with the good/bad label (point-biserial), same interval;
 * - the distribution of Δ (per token, and per action as the token mean), the gate's spread
 *   (quantiles, standard deviation overall and within trajectories), tie rates.
 *
 * Actions without a label (a game the planner does not cover, none of the shipped goals; an
 * expert replay that left the trajectory) are left out and counted.
 */
import { UsageError } from "../core/errors.ts";
import { deriveSeed, Rng } from "../core/rng.ts";
import type { Trajectory } from "../core/trajectory.ts";
import type { TaskSpec } from "../envs/env.ts";
import { AlfworldEngine, gameOfTask, planDistance } from "../envs/alfworld/index.ts";
import { envEntry } from "../envs/registry.ts";
import { gate } from "../math/distill.ts";
import { mean, pearson, quantile, std } from "../math/stats.ts";
import type { Policy } from "../policy/policy.ts";
import type { SeedConfig } from "../config/config.ts";
import type { Estimate } from "./breakdown.ts";
import { EXPERT_LABEL_RULE, expertValues, improves, type ExpertOutcome, type ExpertWorld } from "./expert-value.ts";
import { GATE_DEFAULTS, probeGates, type GateValueOptions } from "./gate-value.ts";

/** Skill sources of the action-gate analysis (see `probeGates`). */
export const GATE_SKILLS = ["self", "rule", "hint", "foreign"] as const;
/** One of {@link GATE_SKILLS}. */
export type GateSkill = (typeof GATE_SKILLS)[number];

/** Options of {@link actionGateAnalysis}. */
export type ActionGateOptions = GateValueOptions & {
  readonly skill: GateSkill;
  /** How actions are labelled. @default defaultGateLabel(env.name) */
  readonly label: GateLabel;
};

/** One labelled action. */
export type LabelledAction = {
  readonly traj: number;
  readonly gate: number;
  /** Mean Δ = ℓ_T − ℓ_θ over its tokens. */
  readonly delta: number;
  readonly good: boolean;
  /**
   * The label's value before and after the action: the plan distance (Infinity when no plan
   * within the planner's limit), or the clean expert's outcome (expert-value.ts).
   */
  readonly before: number | ExpertOutcome;
  readonly after: number | ExpertOutcome;
};

/** What the analysis reports (stable keys, `--json`). */
export type ActionGateReport = {
  readonly env: string;
  readonly split: string;
  readonly skill: GateSkill;
  /** The value label (`plan`: ALFWorld's plan distance; `expert`: the clean expert's outcome). */
  readonly label: GateLabel;
  /** The label's rule in words (PLAN_LABEL_RULE or EXPERT_LABEL_RULE). */
  readonly labelRule: string;
  readonly tasks: number;
  readonly trajectories: number;
  readonly successRate: number;
  readonly skillValidRate: number;
  readonly beta: number;
  readonly actions: number;
  readonly tokens: number;
  readonly goodRate: number;
  /** Trajectories with at least one good and one bad action (the AUC's units). */
  readonly mixedTrajectories: number;
  /**
   * Actions without a label (plan: goal shape not covered; expert: their trajectory's replay
   * mismatched) and trajectories whose replay differed (plan: the outcome; expert: an
   * observation or the end).
   */
  readonly unlabelled: number;
  readonly replayMismatch: number;
  /**
   * Expert label only: the clean expert from each trajectory's first state (mean score, share
   * that finished within the budget, mean steps of those), the label's sanity check.
   */
  readonly expertStart?: { readonly score: number; readonly finished: number; readonly steps: number };
  /** Within-trajectory AUC of the gate, good vs bad, pooled over pairs; interval over episodes. */
  readonly auc: Estimate;
  /** Mean of the per-trajectory AUCs (each mixed trajectory weighs the same). */
  readonly aucPerTrajectoryMean: number;
  /**
   * Same-state AUC: the pairs are a good and a bad action taken from the same state by different
   * episodes of one task (same turn, same observation text; e.g. every episode's first action),
   * so the gates compare actions, not positions in an episode; interval over those states.
   */
  readonly sameStateAuc: Estimate;
  /** States with at least one good and one bad action (the same-state AUC's units). */
  readonly mixedStates: number;
  /** Pearson of the action gate with the good (1) / bad (0) label; interval over episodes. */
  readonly pearson: Estimate;
  readonly meanGate: { readonly good: number; readonly bad: number; readonly all: number };
  readonly gateSpread: { readonly std: number; readonly withinTrajectoryStd: number; readonly quantiles: Readonly<Record<string, number>> };
  /** Quantiles of Δ per token and per action (token mean). */
  readonly delta: { readonly token: Readonly<Record<string, number>>; readonly action: Readonly<Record<string, number>> };
  /** Share of (good, bad) pairs with equal gates; share of tokens with Δ = 0 exactly (gate ½). */
  readonly ties: { readonly pairs: number; readonly zeroDeltaTokens: number };
  /** Trajectories whose teacher prompt the context limit cut (task line and skill kept). */
  readonly teacherTruncatedFrac: number;
  readonly seconds: number;
};

const QUANTILES = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];

function quantiles(xs: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of QUANTILES) out[`p${Math.round(p * 100)}`] = xs.length === 0 ? Number.NaN : quantile(xs, p);
  return out;
}

/**
 * Plan distance before and after every turn of an ALFWorld trajectory, replaying its actions on a
 * fresh engine of the task's game; undefined when the planner does not cover the goal.
 * `won` is the replay's outcome (it must equal the trajectory's).
 */
export function replayDistances(task: TaskSpec, traj: Trajectory): { before: number[]; after: number[]; won: boolean } | undefined {
  const engine = new AlfworldEngine(gameOfTask(task));
  const first = planDistance(engine);
  if (first === undefined) return undefined;
  const before: number[] = [], after: number[] = [];
  let d = first.steps;
  for (const turn of traj.turns) {
    before.push(d);
    engine.step(turn.actionText);
    d = planDistance(engine)!.steps;
    after.push(d);
    if (engine.won()) break;
  }
  return { before, after, won: engine.won() };
}

/**
 * The groups of actions that share a key (the same-state AUC's states) and hold both a good and
 * a bad action, in first-seen order.
 */
export function mixedGroups(items: readonly { readonly key: string; readonly action: LabelledAction }[]): LabelledAction[][] {
  const groups = new Map<string, LabelledAction[]>();
  for (const { key, action } of items) {
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [action]);
    else g.push(action);
  }
  return [...groups.values()].filter((c) => c.some((x) => x.good) && c.some((x) => !x.good));
}

/** Pairs statistics of one trajectory's labelled actions: concordant (ties half), pairs, ties. */
function pairCounts(actions: readonly LabelledAction[]): { conc: number; pairs: number; ties: number } {
  const good = actions.filter((a) => a.good), bad = actions.filter((a) => !a.good);
  let conc = 0, ties = 0;
  for (const g of good) for (const b of bad) {
    if (g.gate > b.gate) conc++;
    else if (g.gate === b.gate) { conc += 0.5; ties++; }
  }
  return { conc, pairs: good.length * bad.length, ties };
}

/**
 * Within-trajectory AUC and the gate-label Pearson with percentile intervals from resampling
 * whole trajectories (`clusters`), seeded. NaN with no interval when there is nothing to compare.
 */
export function clusteredAuc(clusters: readonly (readonly LabelledAction[])[], seed: number, resamples = 1000): { auc: Estimate; pearson: Estimate; ties: number } {
  const counts = clusters.map(pairCounts);
  const aucOf = (idx: readonly number[]) => {
    let c = 0, p = 0;
    for (const i of idx) { c += counts[i]!.conc; p += counts[i]!.pairs; }
    return p === 0 ? Number.NaN : c / p;
  };
  const pearsonOf = (idx: readonly number[]) => {
    const acts = idx.flatMap((i) => clusters[i]!);
    return pearson(acts.map((a) => a.gate), acts.map((a) => (a.good ? 1 : 0)));
  };
  const all = clusters.map((_, i) => i);
  const estimate = (f: (idx: readonly number[]) => number, tag: string, n: number): Estimate => {
    const value = clusters.length === 0 ? Number.NaN : f(all);
    const rng = Rng.from(deriveSeed(seed, "gate-action-bootstrap", tag));
    const stats: number[] = [];
    for (let r = 0; r < resamples && clusters.length > 0; r++) {
      const idx = Array.from({ length: clusters.length }, () => rng.int(clusters.length));
      const v = f(idx);
      if (Number.isFinite(v)) stats.push(v);
    }
    const ok = Number.isFinite(value) && stats.length >= resamples / 2;
    return { value, low: ok ? quantile(stats, 0.025) : Number.NaN, high: ok ? quantile(stats, 0.975) : Number.NaN, n, interval: ok ? "bootstrap" : "none" };
  };
  const pairs = counts.reduce((s, c) => s + c.pairs, 0);
  return {
    auc: estimate(aucOf, "auc", pairs),
    pearson: estimate(pearsonOf, "pearson", clusters.reduce((s, c) => s + c.length, 0)),
    ties: pairs === 0 ? Number.NaN : counts.reduce((s, c) => s + c.ties, 0) / pairs,
  };
}

/** Value labels of actions: ALFWorld's exact plan distance, or the clean expert's outcome (expert-value.ts). */
export const GATE_LABELS = ["plan", "expert"] as const;
/** One of {@link GATE_LABELS}. */
export type GateLabel = (typeof GATE_LABELS)[number];

/** The label rule of the plan distance, as the report states it. */
export const PLAN_LABEL_RULE = "good iff the shortest plan to the goal is shorter after the action than before (ALFWorld planner on the replayed game state)";

/** The label an environment gets by default: ALFWorld's plan distance, the expert's outcome elsewhere. */
export function defaultGateLabel(envName: string): GateLabel {
  return envName === "alfworld" ? "plan" : "expert";
}

/** Labels of one trajectory's turns, or undefined when there is no label for it. */
type TurnLabels = { readonly good: readonly boolean[]; readonly before: readonly (number | ExpertOutcome)[]; readonly after: readonly (number | ExpertOutcome)[]; readonly matches: boolean };

function planLabels(task: TaskSpec, traj: Trajectory): TurnLabels | undefined {
  const r = replayDistances(task, traj);
  if (r === undefined) return undefined;
  return { good: r.before.map((b, i) => r.after[i]! < b), before: r.before, after: r.after, matches: r.won === traj.success };
}

async function expertLabels(world: ExpertWorld, task: TaskSpec, traj: Trajectory): Promise<TurnLabels> {
  const { values, matches } = await expertValues(world, task, traj);
  const before = values.slice(0, -1), after = values.slice(1);
  return { good: before.map((b, i) => improves(b, after[i]!)), before, after, matches };
}

/**
 * Run the action-level gate analysis for a checkpoint under `config`: ALFWorld's plan-distance
 * label by default there, the expert cost-to-go label (expert-value.ts) for every other
 * environment with a clean expert (WebShop, Search-QA); `label: "expert"` also on ALFWorld.
 */
export async function actionGateAnalysis(policy: Policy, config: SeedConfig, options: Partial<ActionGateOptions> = {}): Promise<ActionGateReport> {
  const label = options.label ?? defaultGateLabel(config.env.name);
  if (label === "plan" && config.env.name !== "alfworld") throw new UsageError(`the plan-distance label needs ALFWorld's game state; env.name is '${config.env.name}' (use the expert label)`);
  const t0 = performance.now();
  const o = { ...GATE_DEFAULTS, groupSize: config.rollout.groupSize, skill: "rule" as GateSkill, ...options };
  const probe = await probeGates(policy, config, o);
  const { trajectories } = probe;
  const world: ExpertWorld = { makeEnv: probe.makeEnv, expert: envEntry(config.env.name).expert, maxSteps: probe.maxSteps };
  const labelled: LabelledAction[][] = trajectories.map(() => []);
  const labels = new Map<number, TurnLabels | undefined>();
  const stateKeys: { key: string; action: LabelledAction }[] = [];
  let unlabelled = 0, replayMismatch = 0;
  const tokenDeltas: number[] = [];
  for (const a of probe.actions) {
    const traj = trajectories[a.traj]!;
    if (!labels.has(a.traj)) {
      const task = probe.tasks[traj.groupIndex]!;
      const l = label === "plan" ? planLabels(task, traj) : await expertLabels(world, task, traj);
      if (l !== undefined && !l.matches) replayMismatch++;
      // The plan label keeps a mismatched replay's labels (counted); the expert's values of a
      // replay that left the trajectory say nothing about its states, so they are dropped.
      labels.set(a.traj, l !== undefined && !l.matches && label === "expert" ? undefined : l);
    }
    const l = labels.get(a.traj);
    for (const d of a.delta) tokenDeltas.push(d);
    if (l === undefined || a.turn >= l.good.length) { unlabelled++; continue; }
    const x: LabelledAction = { traj: a.traj, gate: mean(Array.from(a.delta, (d) => gate(d, config.opd.beta))), delta: mean(a.delta), good: l.good[a.turn]!, before: l.before[a.turn]!, after: l.after[a.turn]! };
    labelled[a.traj]!.push(x);
    stateKeys.push({ key: `${traj.groupIndex}\u0000${a.turn}\u0000${traj.turns[a.turn]!.observation}`, action: x });
  }
  const flat = labelled.flat();
  const clusters = labelled.filter((c) => c.length > 0);
  const stats = clusteredAuc(clusters, o.seed, o.resamples);
  const mixedStates = mixedGroups(stateKeys);
  const sameState = clusteredAuc(mixedStates, deriveSeed(o.seed, "same-state"), o.resamples);
  const mixed = clusters.filter((c) => c.some((x) => x.good) && c.some((x) => !x.good));
  const perTraj = mixed.map((c) => { const p = pairCounts(c); return p.conc / p.pairs; });
  const gates = flat.map((x) => x.gate);
  const within = clusters.filter((c) => c.length > 1).map((c) => std(c.map((x) => x.gate)));
  const starts = [...labels.values()].flatMap((l) => (l === undefined || l.before.length === 0 || typeof l.before[0] === "number" ? [] : [l.before[0] as ExpertOutcome]));
  return {
    env: config.env.name, split: o.split, skill: o.skill, label, labelRule: label === "plan" ? PLAN_LABEL_RULE : EXPERT_LABEL_RULE,
    tasks: probe.tasks.length, trajectories: trajectories.length,
    successRate: mean(trajectories.map((t) => (t.success ? 1 : 0))), skillValidRate: mean(probe.skills.valid), beta: config.opd.beta,
    actions: flat.length, tokens: tokenDeltas.length, goodRate: mean(flat.map((x) => (x.good ? 1 : 0))),
    mixedTrajectories: mixed.length, unlabelled, replayMismatch,
    ...(label === "expert" ? { expertStart: { score: mean(starts.map((v) => v.score)), finished: mean(starts.map((v) => (Number.isFinite(v.steps) ? 1 : 0))), steps: mean(starts.filter((v) => Number.isFinite(v.steps)).map((v) => v.steps)) } } : {}),
    auc: stats.auc, aucPerTrajectoryMean: perTraj.length === 0 ? Number.NaN : mean(perTraj), sameStateAuc: sameState.auc, mixedStates: mixedStates.length, pearson: stats.pearson,
    meanGate: { good: mean(flat.filter((x) => x.good).map((x) => x.gate)), bad: mean(flat.filter((x) => !x.good).map((x) => x.gate)), all: mean(gates) },
    gateSpread: { std: gates.length > 1 ? std(gates) : Number.NaN, withinTrajectoryStd: within.length === 0 ? Number.NaN : mean(within), quantiles: quantiles(gates) },
    delta: { token: quantiles(tokenDeltas), action: quantiles(flat.map((x) => x.delta)) },
    ties: { pairs: stats.ties, zeroDeltaTokens: tokenDeltas.length === 0 ? Number.NaN : tokenDeltas.filter((d) => d === 0).length / tokenDeltas.length },
    teacherTruncatedFrac: probe.skills.valid.reduce((s, v) => s + v, 0) === 0 ? 0 : probe.truncated / probe.skills.valid.reduce((s, v) => s + v, 0),
    seconds: (performance.now() - t0) / 1000,
  };
}
