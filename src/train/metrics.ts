/**
 * Per-update metrics: slash-namespaced diagnostics (as TRL and verl name theirs) plus the flat keys
 * the issue's
 * checks read (`update`, `success_rate`, `tie_rate`, `gate_mean`, `skill_valid_rate`, `seconds`).
 * Rollout statistics come from the trajectories; loss, gate and clip statistics from the terms.
 */
import type { Trajectory } from "../core/trajectory.ts";
import type { StageSeconds } from "./timer.ts";

/** Reward, success, length, validity and ending statistics of a batch of trajectories. */
export function rolloutMetrics(trajectories: readonly Trajectory[]): Record<string, number> {
  const n = trajectories.length;
  if (n === 0) return { "episode/count": 0 };
  let ret = 0, success = 0, score = 0, turns = 0, valid = 0, sampled = 0, contextLimit = 0, truncated = 0;
  for (const t of trajectories) {
    ret += t.return;
    success += t.success ? 1 : 0;
    score += t.score;
    turns += t.turns.length;
    for (const turn of t.turns) {
      valid += turn.valid ? 1 : 0;
      sampled += turn.sampledTokens.length;
    }
    if (t.endedBy === "context-limit") contextLimit++;
    if (t.endedBy === "truncated") truncated++;
  }
  return {
    "episode/count": n,
    "reward/mean": ret / n,
    "episode/success_rate": success / n,
    "episode/score_mean": score / n,
    "episode/turns_mean": turns / n,
    "episode/valid_frac": turns === 0 ? 0 : valid / turns,
    "episode/response_tokens_mean": turns === 0 ? 0 : sampled / turns,
    "episode/context_limit_frac": contextLimit / n,
    "episode/truncated_frac": truncated / n,
  };
}

/**
 * The one JSON object of `metrics.jsonl` for an update: the flat keys first, then every metric.
 * `gate_mean` and `skill_valid_rate` appear when the update computed them (teacher-scored presets).
 */
export function metricsLine(update: number, metrics: Readonly<Record<string, number>>, seconds: StageSeconds, wallSeconds: number): Record<string, unknown> {
  const flat: Record<string, unknown> = {
    update,
    success_rate: metrics["episode/success_rate"] ?? 0,
    tie_rate: metrics["group/frac_zero_std"] ?? 0,
  };
  if (metrics["opd/gate_mean"] !== undefined) flat["gate_mean"] = metrics["opd/gate_mean"];
  if (metrics["skills/valid_frac"] !== undefined) flat["skill_valid_rate"] = metrics["skills/valid_frac"];
  // `total` is the update's wall clock; stages may nest (`teacher_live` runs inside `update`).
  flat["seconds"] = { ...roundAll(seconds), total: round(wallSeconds) };
  const timeKeys: Record<string, number> = {};
  for (const [k, v] of Object.entries(seconds)) timeKeys[`time/${k}_s`] = round(v);
  return { ...flat, ...metrics, ...timeKeys };
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function roundAll(s: StageSeconds): StageSeconds {
  const out: StageSeconds = {};
  for (const [k, v] of Object.entries(s)) out[k] = round(v);
  return out;
}
