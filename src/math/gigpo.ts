/**
 * GiGPO advantages (`ZJU-REAL/SDAR:gigpo/core_gigpo.py`): a GRPO-style episode
 * advantage plus a step advantage computed among the step-samples of one task that share an
 * identical anchor observation (the raw environment text). Exact-match anchors only; the
 * reference's optional similarity merge (SequenceMatcher ratio ≥ 0.95) is not implemented.
 */
import { grpoAdvantages, type AdvantageSample } from "./advantages.ts";

/** A step-sample as GiGPO sees it. */
export type GigpoSample = AdvantageSample & {
  /** The raw environment observation the step acted on; equal anchors within a task form a step group. */
  readonly anchor: string;
  /** Discounted return G_t of this step (γ = 0.95) minus the step's invalid-action penalty. */
  readonly stepReturn: number;
};

/** Options of `gigpoAdvantages`. */
export type GigpoOptions = {
  /** Weight w of the step advantage. @default 1 */
  readonly stepWeight: number;
  /** Episode advantage: centred only (`mean_norm`) or also divided by σ + ε (`mean_std_norm`). @default "mean_norm" */
  readonly episode: "mean_norm" | "mean_std_norm";
  /** @default 1e-6 */
  readonly eps: number;
};

/** The reference defaults. */
export const defaultGigpo: GigpoOptions = { stepWeight: 1, episode: "mean_norm", eps: 1e-6 };

/**
 * A(i) = A_ep(i) + w·A_step(i). The episode part uses `steps` scope, Bessel σ and the `raw`
 * singleton rule (μ = 0) as in the reference; A_step(i) = G_i − mean of G over i's anchor group,
 * 0 for a singleton anchor group. Returns `[S]` arrays in input order.
 */
export function gigpoAdvantages(samples: readonly GigpoSample[], options: Partial<GigpoOptions> = {}) {
  const opt: GigpoOptions = { ...defaultGigpo, ...options };
  const episode = grpoAdvantages(samples, {
    scope: "steps",
    std: "bessel",
    singleton: "raw",
    eps: opt.eps,
    normalize: opt.episode === "mean_std_norm",
  });
  const anchorGroups = new Map<string, number[]>();
  samples.forEach((x, i) => {
    const key = JSON.stringify([x.groupId, x.anchor]);
    const g = anchorGroups.get(key);
    if (g === undefined) anchorGroups.set(key, [i]);
    else g.push(i);
  });
  const step = new Float64Array(samples.length);
  let singletonAnchors = 0;
  for (const members of anchorGroups.values()) {
    if (members.length === 1) {
      singletonAnchors++;
      continue;
    }
    const mean = members.reduce((a, i) => a + samples[i]!.stepReturn, 0) / members.length;
    for (const i of members) step[i] = samples[i]!.stepReturn - mean;
  }
  const advantages = episode.advantages.map((a, i) => a + opt.stepWeight * step[i]!);
  return {
    advantages,
    episodeAdvantages: episode.advantages,
    stepAdvantages: step,
    metrics: {
      ...episode.metrics,
      "gigpo/anchor_groups": anchorGroups.size,
      "gigpo/anchor_singleton_frac": anchorGroups.size === 0 ? 0 : singletonAnchors / anchorGroups.size,
    },
  };
}
