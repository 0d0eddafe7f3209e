/**
 * Central finite-difference check of a loss's per-token gradient: the one generic
 * test that protects the whole loss catalogue. Losses with stop-gradients (the gate, clamps, the
 * teacher) need one care: the probe must hold the detached quantities fixed, exactly as the
 * analytic gradient does. Compute them once from the unperturbed log-probs and close over them
 * in `loss`, so that only the differentiated path moves.
 */
import type { TokenLoss } from "../math/batch.ts";

/** What `gradCheck` found. */
export type GradCheckReport = {
  /** Largest |numeric − analytic| / max(1, |numeric|) over trained tokens. */
  readonly maxError: number;
  /** Token where it occurred (-1 when no token is trained). */
  readonly worstIndex: number;
  readonly analytic: number;
  readonly numeric: number;
  /** Tokens with mask 0 whose analytic gradient is not exactly 0 (must be empty). */
  readonly maskViolations: readonly number[];
  /** Trained tokens probed. */
  readonly probed: number;
};

/**
 * Compares `loss(lp).dLogprobs` with (value(lp + h·e_t) − value(lp − h·e_t)) / 2h on every token
 * with mask ≠ 0, and checks the gradient is exactly 0 where the mask is 0.
 * @example
 * const gates = distillationGates(batch, lp, teacher, 5);          // detached, from unperturbed lp
 * const r = gradCheck((x) => gatedDistillation({ batch, policyLogprobs: x, teacherLogprobs: teacher, detached: { gates } }), lp, batch.lossMask);
 * assert.ok(r.maxError < 1e-6 && r.maskViolations.length === 0);
 */
export function gradCheck(loss: (lp: Float64Array) => TokenLoss, lp: ArrayLike<number>, mask: ArrayLike<number>, h = 1e-6): GradCheckReport {
  const base = Float64Array.from(lp);
  const analytic = loss(base).dLogprobs;
  let maxError = 0, worstIndex = -1, worstAnalytic = 0, worstNumeric = 0, probed = 0;
  const maskViolations: number[] = [];
  for (let i = 0; i < base.length; i++) {
    if (!mask[i]) {
      if (analytic[i] !== 0) maskViolations.push(i);
      continue;
    }
    const up = base.slice();
    up[i] = base[i]! + h;
    const dn = base.slice();
    dn[i] = base[i]! - h;
    const numeric = (loss(up).value - loss(dn).value) / (2 * h);
    const error = Math.abs(numeric - analytic[i]!) / Math.max(1, Math.abs(numeric));
    probed++;
    if (error > maxError || worstIndex === -1) {
      maxError = Math.max(maxError, error);
      worstIndex = i;
      worstAnalytic = analytic[i]!;
      worstNumeric = numeric;
    }
  }
  return { maxError, worstIndex, analytic: worstAnalytic, numeric: worstNumeric, maskViolations, probed };
}
