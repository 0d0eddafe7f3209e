/**
 * Eq. 8's assumption, measured: do SEED's gates track action value? OPD moves the policy toward
 * a gate-reweighted version of itself, which helps only if Cov_π(Q, w) > 0 (E_r[Q] − E_π[Q] =
 * Cov_π(Q, w)/Z).
 * The paper never checks this; here, on held-out tasks with known outcomes:
 *
 *   1. the checkpoint plays N episodes per held-out task (the training rollout temperature),
 *   2. the same checkpoint writes a hindsight skill per trajectory (its analyzer role, greedy;
 *      methods whose teacher reads the static library, such as SDAR, get that skill instead),
 *   3. student ℓ_θ(a | h) and teacher ℓ_T(a | H(h, s)) are scored for every sampled token with
 *      the same weights, and g = σ(β_opd · (ℓ_T − ℓ_θ)) is the gate SEED would apply,
 *   4. each action's mean gate is paired with its empirical value: the return R(τ) of the
 *      episode it was taken in (with one terminal reward and γ = 1 this is the Monte-Carlo
 *      return-to-go, a one-sample estimate of Q(s_t, a_t)), and that return minus the group's
 *      mean (the same comparison inside a task, as GRPO's advantage makes it).
 *
 * Pearson and Spearman correlations get 95% intervals from a cluster bootstrap over
 * trajectories (the actions of one episode share its return, so resampling actions would be
 * overconfident). Caveat, stated in the output: the skill is written in hindsight from the
 * outcome itself, so part of any correlation is the analyzer reading the result; the
 * within-task version and the failure-only gate split make that visible, they do not remove it.
 * Not here: the trainer's gate statistics (metrics.jsonl `opd/*`).
 */
import { deriveSeed, Rng } from "../core/rng.ts";
import type { Trajectory } from "../core/trajectory.ts";
import { UsageError } from "../core/errors.ts";
import type { Env, TaskSpec } from "../envs/env.ts";
import { ChatFormat } from "../policy/chat-format.ts";
import { collectGroups } from "../agent/rollout.ts";
import { policySequences, splitByTurn, teacherSequences } from "../agent/training-views.ts";
import { gate } from "../math/distill.ts";
import { mean, pearson, quantile, spearman } from "../math/stats.ts";
import type { Policy } from "../policy/policy.ts";
import { applySkill, skillContextEnd } from "../skills/context.ts";
import type { SeedConfig } from "../config/config.ts";
import { contextLimit } from "../config/resolve.ts";
import { trainingEnv } from "../run/training-env.ts";
import { scoreAll } from "../policy/batching.ts";
import { externalSkills, librarySkills, selfSkills, type TeacherSkills } from "../skills/sources.ts";
import { ruleAnalyzer } from "../skills/rule-analyzer.ts";
import { hindsightHint } from "../train/pretrain/demos.ts";
import { webshopHindsightHint } from "../train/pretrain/webshop-demos.ts";
import { rolloutOptions } from "../run/rollout-options.ts";
import type { Estimate } from "./breakdown.ts";
import { evalSuite } from "./benchmark.ts";

/** Options of {@link gateValueAnalysis}. */
export type GateValueOptions = {
  /** Held-out split. @default "valid_seen" */
  readonly split: string;
  /** Held-out tasks. @default 16 */
  readonly tasks: number;
  /** Episodes per task. @default the config's group size */
  readonly groupSize: number;
  /** Seed of rollouts and the bootstrap. @default 0 */
  readonly seed: number;
  /** Bootstrap resamples. @default 1000 */
  readonly resamples: number;
};

/** A correlation with its cluster-bootstrap interval. */
export type Correlation = { readonly pearson: Estimate; readonly spearman: Estimate };

/** What the analysis reports (`analysis/gate-value.json`). */
export type GateValueReport = {
  readonly split: string;
  readonly tasks: number;
  readonly trajectories: number;
  readonly successRate: number;
  /** Actions (turns) with a valid skill, the unit of the correlations. */
  readonly actions: number;
  readonly tokens: number;
  readonly skillValidRate: number;
  readonly beta: number;
  /** Mean action gate vs the episode's return R(τ). */
  readonly gateVsReturn: Correlation;
  /** Mean action gate vs R(τ) minus the task group's mean return (within-task). */
  readonly gateVsAdvantage: Correlation;
  /** Where the teacher's skill came from (`self`: the checkpoint's analyzer role; `library`). */
  readonly skillSource: string;
  /** Mean token gate in successful and in failed episodes. */
  readonly meanGate: { readonly success: number; readonly failure: number; readonly all: number };
  /** Groups with mixed outcomes (the only ones with a within-task signal). */
  readonly mixedGroups: number;
  /** Up to 400 (gate, return, advantage) points for a scatter plot. */
  readonly points: readonly (readonly [number, number, number])[];
  readonly caveat: string;
  readonly seconds: number;
};

export const GATE_DEFAULTS = { split: "valid_seen", tasks: 16, seed: 0, resamples: 1000 };

/** One action: its trajectory (the bootstrap cluster), mean gate, episode return and within-group return. */
export type ActionPoint = { readonly traj: number; readonly gate: number; readonly ret: number; readonly adv: number };

/**
 * Pearson and Spearman correlations of the action gates with `value`, each with a percentile
 * interval from resampling whole trajectories (clusters); NaN with no interval when either side
 * is constant (e.g. every episode failed).
 */
export function clusteredCorrelation(points: readonly ActionPoint[], value: (p: ActionPoint) => number, trajCount: number, seed: number, resamples = 1000): Correlation {
  const byTraj: ActionPoint[][] = Array.from({ length: trajCount }, () => []);
  for (const p of points) byTraj[p.traj]!.push(p);
  const clusters = byTraj.filter((c) => c.length > 0);
  const corr = (ps: readonly ActionPoint[], f: typeof pearson) => f(ps.map((p) => p.gate), ps.map(value));
  const est = (f: typeof pearson, tag: string): Estimate => {
    const v = corr(points, f);
    const rng = Rng.from(deriveSeed(seed, "gate-value-bootstrap", tag));
    const stats: number[] = [];
    for (let r = 0; r < resamples; r++) {
      const sample: ActionPoint[] = [];
      for (let i = 0; i < clusters.length; i++) sample.push(...clusters[rng.int(clusters.length)]!);
      const c = corr(sample, f);
      if (Number.isFinite(c)) stats.push(c);
    }
    const ok = stats.length >= resamples / 2;
    return { value: v, low: ok ? quantile(stats, 0.025) : Number.NaN, high: ok ? quantile(stats, 0.975) : Number.NaN, n: points.length, interval: ok ? "bootstrap" : "none" };
  };
  return { pearson: est(pearson, "pearson"), spearman: est(spearman, "spearman") };
}

/** One scored action: its trajectory and turn, and the teacher-minus-student log-prob of each sampled token. */
export type ScoredAction = { readonly traj: number; readonly turn: number; readonly delta: Float64Array };

/** Where the teacher's skill comes from in a probe: the method's source, or a fixed one. */
export type ProbeSkill = "method" | "self" | "rule" | "hint" | "foreign";

/** What {@link probeGates} returns: the episodes, their skills and every scored action. */
export type GateProbe = {
  readonly tasks: readonly TaskSpec[];
  readonly trajectories: readonly Trajectory[];
  readonly skills: TeacherSkills;
  readonly actions: readonly ScoredAction[];
  /** Trajectories with a valid skill whose teacher prompt the context limit cut (SEED's `left` truncation). */
  readonly truncated: number;
  /** Fresh environments of the episodes (the same as the rollout's), for replays. */
  readonly makeEnv: () => Env;
  /** The rollout's step limit. */
  readonly maxSteps: number;
};

/**
 * The shared half of the gate analyses: the checkpoint plays `groupSize` episodes per held-out
 * task (the training rollout options, no student skill), a teacher skill is written per
 * trajectory, and the student view and the teacher view H(h, s) are scored with the same
 * functions the trainer uses (agent/training-views.ts, policy/batching.ts), so
 * Δ = ℓ_T − ℓ_θ per sampled token is the training gate's argument exactly.
 * Skills: `method` follows the config (`library` or the analyzer role), `self` is the analyzer
 * role, `rule` the rule-based hindsight analyzer on the same trajectory (Stage 1's labeller),
 * `hint` Stage 0's hint (the rule analyzer on a clean expert's episode of the same task;
 * ALFWorld and WebShop, the two environments with a Stage 0), `foreign` a control: the rule
 * skill of the same member's episode of the next task (a valid skill about another game), so a
 * gate that only reads that *some* skill is present scores there as high as with `rule`.
 */
export async function probeGates(policy: Policy, config: SeedConfig, options: GateValueOptions & { readonly skill: ProbeSkill }): Promise<GateProbe> {
  const o = options;
  const chat = new ChatFormat(policy.tokenizer);
  const env = trainingEnv(config);
  const suite = evalSuite(config, o.split, { count: o.tasks });
  const tasks = suite.tasks;
  const opts = rolloutOptions({ config: { ...config, skills: { ...config.skills, student: "none" } }, chat, env, tasks }, 0);
  const trajectories: Trajectory[] = await collectGroups(policy, () => suite.makeEnv(), tasks, {
    ...opts, seed: deriveSeed(o.seed, "gate-value"), groupSize: o.groupSize,
  });
  const maxContext = contextLimit(config, policy.maxContext);
  const source = o.skill === "method" ? (config.skills.teacher === "library" ? "library" : "self") : o.skill;
  let skills: TeacherSkills;
  if (source === "library") skills = librarySkills(env.name, trajectories);
  else if (source === "self") skills = await selfSkills(policy, chat, trajectories, { maxSkillTokens: config.skills.maxSkillTokens, maxContext, attempts: config.skills.analyzerAttempts, seed: deriveSeed(o.seed, "gate-value-analyze") });
  else if (source === "rule") skills = await externalSkills(ruleAnalyzer(), trajectories);
  else if (source === "foreign") skills = foreignSkills(await externalSkills(ruleAnalyzer(), trajectories), trajectories, tasks.length);
  else {
    if (env.name !== "alfworld" && env.name !== "webshop") throw new UsageError(`the 'hint' skill is Stage 0's hint (alfworld, webshop); env.name is '${env.name}'`);
    const world = { makeEnv: () => suite.makeEnv(), maxSteps: env.maxSteps, ...(env.alfworldGen ? { gen: env.alfworldGen } : {}) };
    const hintOf = env.name === "webshop" ? webshopHindsightHint : hindsightHint;
    const hints = await Promise.all(tasks.map((t) => hintOf(world, t, o.seed).then((h) => h.hint)));
    const list = trajectories.map((t) => hints[t.groupIndex]!);
    skills = { skills: list, valid: list.map((h) => (h === "" ? 0 : 1)), metrics: {} };
  }
  const actions: ScoredAction[] = [];
  let truncated = 0;
  for (let i = 0; i < trajectories.length; i++) {
    const traj = trajectories[i]!;
    if (skills.valid[i] !== 1 || traj.turns.length === 0) continue;
    let teacher;
    const skill = skills.skills[i]!, mode = config.skills.context;
    try {
      teacher = teacherSequences(traj, (text) => applySkill(text, skill, mode), chat, { maxContext, keepChars: (text) => skillContextEnd(text, skill, mode) });
    } catch {
      continue; // a teacher view that cannot fit: SEED masks this trajectory too
    }
    if (teacher.some((v) => (v.promptCut ?? 0) > 0)) truncated++;
    const student = policySequences(traj);
    const ls = splitByTurn(student, await scoreAll(policy, student.map((s) => s.request)));
    const lt = splitByTurn(teacher, await scoreAll(policy, teacher.map((s) => s.request)));
    traj.turns.forEach((_, k) => {
      const a = ls.get(k), b = lt.get(k);
      if (a === undefined || b === undefined || a.length === 0) return;
      actions.push({ traj: i, turn: k, delta: Float64Array.from(a, (x, j) => b[j]! - x) });
    });
  }
  return { tasks, trajectories, skills, actions, truncated, makeEnv: () => suite.makeEnv(), maxSteps: opts.maxSteps ?? env.maxSteps };
}

/**
 * Each trajectory gets the skill of the trajectory with the same member index in the next task's
 * group (wrapping around): valid skills, about another game. With one task there is no other game,
 * so nothing is valid.
 */
export function foreignSkills(own: TeacherSkills, trajectories: readonly Trajectory[], taskCount: number): TeacherSkills {
  const index = new Map<string, number>();
  trajectories.forEach((t, i) => index.set(`${t.groupIndex}/${t.memberIndex}`, i));
  const skills: string[] = [], valid: number[] = [];
  trajectories.forEach((t) => {
    const j = taskCount > 1 ? index.get(`${(t.groupIndex + 1) % taskCount}/${t.memberIndex}`) : undefined;
    skills.push(j === undefined ? "" : own.skills[j]!);
    valid.push(j === undefined ? 0 : own.valid[j]!);
  });
  return { skills, valid, metrics: {} };
}

/**
 * Run the analysis for a checkpoint trained with `config` (its β_opd, history mode, analyzer
 * budget and skill-context mode are the config's).
 */
export async function gateValueAnalysis(policy: Policy, config: SeedConfig, options: Partial<GateValueOptions> = {}): Promise<GateValueReport> {
  const t0 = performance.now();
  const o = { ...GATE_DEFAULTS, groupSize: config.rollout.groupSize, ...options };
  const { tasks, trajectories, skills, actions } = await probeGates(policy, config, { ...o, skill: "method" });
  // Group mean returns (members of a group are contiguous, group-major).
  const groupMean = new Map<number, number>();
  for (let g = 0; g < tasks.length; g++) groupMean.set(g, mean(trajectories.filter((t) => t.groupIndex === g).map((t) => t.return)));
  const mixedGroups = [...groupMean.keys()].filter((g) => new Set(trajectories.filter((t) => t.groupIndex === g).map((t) => t.success)).size > 1).length;
  const points: ActionPoint[] = [];
  const tokenGates = { success: [] as number[], failure: [] as number[] };
  for (const a of actions) {
    const traj = trajectories[a.traj]!;
    const gates = Array.from(a.delta, (d) => gate(d, config.opd.beta));
    (traj.success ? tokenGates.success : tokenGates.failure).push(...gates);
    points.push({ traj: a.traj, gate: mean(gates), ret: traj.return, adv: traj.return - groupMean.get(traj.groupIndex)! });
  }
  const stride = Math.max(1, Math.ceil(points.length / 400));
  return {
    split: o.split, tasks: tasks.length, trajectories: trajectories.length,
    successRate: mean(trajectories.map((t) => (t.success ? 1 : 0))),
    actions: points.length, tokens: tokenGates.success.length + tokenGates.failure.length,
    skillValidRate: mean(skills.valid), beta: config.opd.beta, skillSource: config.skills.teacher,
    gateVsReturn: clusteredCorrelation(points, (p) => p.ret, trajectories.length, o.seed, o.resamples),
    gateVsAdvantage: clusteredCorrelation(points, (p) => p.adv, trajectories.length, o.seed + 1, o.resamples),
    meanGate: { success: mean(tokenGates.success), failure: mean(tokenGates.failure), all: mean([...tokenGates.success, ...tokenGates.failure]) },
    mixedGroups,
    points: points.filter((_, i) => i % stride === 0).map((p) => [round(p.gate), round(p.ret), round(p.adv)] as const),
    caveat: "Skills are written in hindsight from each episode's outcome, so part of a positive correlation is the analyzer reading the result; Q is a one-sample Monte-Carlo return-to-go.",
    seconds: (performance.now() - t0) / 1000,
  };
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
