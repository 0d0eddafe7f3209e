/**
 * "GRPO" outcome advantages (Eq. (RL-Adv); verl's `compute_grpo_outcome_advantage`): one scalar per
 * step-sample, normalised within
 * its group (the N trajectories of one task). No value model. Every choice that changes numbers
 * is an option, defaulting to the paper; the public reference scripts use `bessel`, `steps`,
 * `raw`. Departures, on purpose:
 * - In `trajectories` scope μ and σ come from R(τ) (one value per trajectory, no penalty); each
 *   step-sample is then normalised with its own penalised score (the reference takes the first
 *   step-sample it meets, so one step's penalty can leak into the statistics).
 * - A tied group (all statistics values equal, σ = 0) gets advantage exactly 0 on every
 *   step-sample, including steps whose score carries an invalid-action penalty: dividing that
 *   penalty by ε = 1e-6 would produce advantages of 1e5. It is counted in `group/frac_zero_std`.
 * - Batches are never padded with duplicated samples before the statistics.
 */
import { ShapeError } from "../core/errors.ts";
import type { Trajectory } from "../core/trajectory.ts";

/** Options of the group normalisation. */
export type GrpoOptions = {
  /**
   * Standard-deviation convention. The SEED paper writes the population std (divide by n);
   * verl's `torch.std` is Bessel-corrected (n − 1), which shrinks every advantage by
   * sqrt((n − 1)/n), 0.935 for n = 8. Pick one per experiment and record it.
   * @default "population"
   */
  readonly std: "population" | "bessel";
  /**
   * Which values enter μ and σ. `trajectories`: one R(τ) per trajectory (paper).
   * `steps`: every step-sample's penalised score (verl-agent's cross-steps statistics), so long
   * trajectories weigh more.
   * @default "trajectories"
   */
  readonly scope: "trajectories" | "steps";
  /** Added to σ outside the square root. @default 1e-6 */
  readonly eps: number;
  /**
   * A group with one statistics value: `raw` passes score/(1 + ε) through (reference; 10 in
   * ALFWorld), `zero` gives 0. Happens only with N = 1 or filtered groups.
   * @default "zero"
   */
  readonly singleton: "raw" | "zero";
  /** Divide by σ + ε (GRPO) or only centre (Dr. GRPO, GiGPO `mean_norm`). @default true */
  readonly normalize: boolean;
};

/** The paper's conventions. */
export const defaultGrpoOptions: GrpoOptions = { std: "population", scope: "trajectories", eps: 1e-6, singleton: "zero", normalize: true };

/** The public reference scripts' conventions (`ZJU-REAL/SDAR`, `zhangdw156/SEED`). */
export const referenceGrpoOptions: GrpoOptions = { std: "bessel", scope: "steps", eps: 1e-6, singleton: "raw", normalize: true };

/** What the advantage needs to know of one step-sample. */
export type AdvantageSample = {
  /** The task (group) this step-sample belongs to. */
  readonly groupId: string | number;
  /** Its trajectory; unique across the batch, shared by the trajectory's step-samples. */
  readonly trajId: string | number;
  /** Penalised score of this step: R(τ) − c_inv·(1 − valid) (see `stepScore`). */
  readonly score: number;
  /** R(τ), the episode return, equal on every step-sample of a trajectory. */
  readonly episodeReturn: number;
};

/** Advantages of a batch, in the order of the input, with group diagnostics. */
export type GroupAdvantages = {
  /** `[S]` one advantage per step-sample (broadcast to tokens with `broadcastToTokens`). */
  readonly advantages: Float64Array;
  /** `[S]` 1 where the step-sample's group was tied (σ = 0 over at least two values). */
  readonly tied: Uint8Array;
  readonly groups: number;
  readonly tiedGroups: number;
  readonly singletonGroups: number;
  /** `group/count`, `group/frac_zero_std` (tied among groups with ≥ 2 values), `group/singleton_frac`, `adv/*`. */
  readonly metrics: Record<string, number>;
};

/**
 * Score of one step-sample: the episode return minus the invalid-action penalty of that step
 * (verl-agent's `apply_invalid_action_penalty`; c_inv = 0.1 for ALFWorld and WebShop, 0.01 for
 * Search in SEED's launchers). Success metrics
 * never see the penalty.
 */
export function stepScore(episodeReturn: number, valid: boolean, penalty: number): number {
  return valid ? episodeReturn : episodeReturn - penalty;
}

/**
 * The step-samples of a batch of trajectories, one per turn in trajectory order (in `full`
 * history mode each action segment is a turn, so both modes give the same samples): group =
 * `groupIndex`, trajectory = `groupIndex/memberIndex`, score = R(τ) − c_inv·(1 − valid).
 * @param invalidPenalty c_inv: 0.1 for ALFWorld and WebShop, 0.01 for Search (SEED's launchers)
 */
export function stepSamplesOf(trajectories: readonly Trajectory[], invalidPenalty: number): AdvantageSample[] {
  return trajectories.flatMap((traj) =>
    traj.turns.map((turn) => ({
      groupId: traj.groupIndex,
      trajId: `${traj.groupIndex}/${traj.memberIndex}`,
      score: stepScore(traj.return, turn.valid, invalidPenalty),
      episodeReturn: traj.return,
    })),
  );
}

/**
 * Group-normalised advantages, the paper's Eq. (RL-Adv): A = (R(τ) − mean_q) / (std_q + ε) per
 * group q, one value per step-sample (broadcast to tokens by the `grpo` estimator).
 * @example
 * grpoAdvantages([{ groupId: 0, trajId: "a", score: 1, episodeReturn: 1 }, { groupId: 0, trajId: "b", score: 0, episodeReturn: 0 }], { eps: 0 })
 * // advantages [1, -1]
 */
export function grpoAdvantages(samples: readonly AdvantageSample[], options: Partial<GrpoOptions> = {}): GroupAdvantages {
  const opt: GrpoOptions = { ...defaultGrpoOptions, ...options };
  const advantages = new Float64Array(samples.length);
  const tied = new Uint8Array(samples.length);
  const groups = new Map<string | number, number[]>();
  samples.forEach((x, i) => {
    const g = groups.get(x.groupId);
    if (g === undefined) groups.set(x.groupId, [i]);
    else g.push(i);
  });
  let tiedGroups = 0;
  let singletonGroups = 0;
  for (const members of groups.values()) {
    const values = statisticsValues(samples, members, opt.scope);
    if (values.length === 1) {
      singletonGroups++;
      for (const i of members) advantages[i] = opt.singleton === "raw" ? rawSingleton(samples[i]!.score, opt) : 0;
      continue;
    }
    const mu = values.reduce((a, b) => a + b, 0) / values.length;
    if (values.every((v) => v === values[0])) {
      tiedGroups++;
      for (const i of members) tied[i] = 1; // advantages stay exactly 0
      continue;
    }
    let ss = 0;
    for (const v of values) ss += (v - mu) * (v - mu);
    const sigma = Math.sqrt(ss / (values.length - (opt.std === "bessel" ? 1 : 0)));
    for (const i of members) {
      const centred = samples[i]!.score - mu;
      advantages[i] = opt.normalize ? centred / (sigma + opt.eps) : centred;
    }
  }
  const multi = groups.size - singletonGroups;
  return {
    advantages,
    tied,
    groups: groups.size,
    tiedGroups,
    singletonGroups,
    metrics: {
      "group/count": groups.size,
      "group/frac_zero_std": multi === 0 ? 0 : tiedGroups / multi,
      "group/singleton_frac": groups.size === 0 ? 0 : singletonGroups / groups.size,
      ...advantageMetrics(advantages),
    },
  };
}

function rawSingleton(score: number, opt: GrpoOptions): number {
  return opt.normalize ? score / (1 + opt.eps) : score;
}

/** The values μ and σ are taken over: every score (`steps`) or one R(τ) per trajectory. */
function statisticsValues(samples: readonly AdvantageSample[], members: readonly number[], scope: GrpoOptions["scope"]): number[] {
  if (scope === "steps") return members.map((i) => samples[i]!.score);
  const perTraj = new Map<string | number, number>();
  for (const i of members) {
    const x = samples[i]!;
    const seen = perTraj.get(x.trajId);
    if (seen === undefined) perTraj.set(x.trajId, x.episodeReturn);
    else if (seen !== x.episodeReturn) {
      throw new ShapeError(`trajectory ${String(x.trajId)} has step-samples with different episode returns (${seen} and ${x.episodeReturn})`);
    }
  }
  return [...perTraj.values()];
}

/** `adv/mean`, `adv/std`, `adv/abs_mean`, `adv/zero_frac` of a set of advantages. */
export function advantageMetrics(advantages: ArrayLike<number>): Record<string, number> {
  const n = advantages.length;
  if (n === 0) return { "adv/mean": 0, "adv/std": 0, "adv/abs_mean": 0, "adv/zero_frac": 0 };
  let sum = 0, abs = 0, zeros = 0;
  for (let i = 0; i < n; i++) {
    const a = advantages[i]!;
    sum += a;
    abs += Math.abs(a);
    if (a === 0) zeros++;
  }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (advantages[i]! - mean) ** 2;
  return { "adv/mean": mean, "adv/std": Math.sqrt(ss / n), "adv/abs_mean": abs / n, "adv/zero_frac": zeros / n };
}

/**
 * Discounted step returns G_t = Σ_{u ≥ t} γ^{u−t}·r_u of one trajectory, computed backwards
 * (GiGPO's step groups; the analyzer's serialized trajectory). γ = 0.95 in the reference.
 * @example discountedReturns([0, 0, 10], 0.95) // [9.025, 9.5, 10]
 */
export function discountedReturns(rewards: ArrayLike<number>, gamma: number): Float64Array {
  const out = new Float64Array(rewards.length);
  let g = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    g = rewards[t]! + gamma * g;
    out[t] = g;
  }
  return out;
}

/**
 * Probability that a group of n binary outcomes with success rate p is tied (all equal):
 * p^n + (1 − p)^n. Late in training it is large, and a tied group gives GRPO no gradient.
 * @example tieProbability(0.95, 8) // 0.663420
 */
export function tieProbability(p: number, n: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`a success rate lies in [0, 1], got ${p}`);
  return p ** n + (1 - p) ** n;
}
