/**
 * The paper's identities (SEED, Appendix A) on one context with a finite candidate set, for
 * tests and diagnostics: the gate normaliser Z, the skill-reweighted policy r (Prop. 1), the
 * closed-form logit gradient and its inverse-policy norm (Prop. 2), the value-alignment identity
 * (Eq. 8) and the gate's Lipschitz constant (Prop. 3). Here π is a distribution over candidate
 * tokens and w(v) ∈ [0, 1] the expected gate of each; nothing is sampled.
 */
import { ShapeError } from "../core/errors.ts";
import { gate } from "./distill.ts";

function checkDistribution(pi: ArrayLike<number>, name = "pi"): void {
  let sum = 0;
  for (let i = 0; i < pi.length; i++) {
    if (!(pi[i]! >= 0)) throw new ShapeError(`${name}[${i}] = ${pi[i]}; probabilities are non-negative`);
    sum += pi[i]!;
  }
  if (pi.length === 0 || Math.abs(sum - 1) > 1e-9) throw new ShapeError(`${name} sums to ${sum}; a distribution sums to 1`);
}

function checkSameLength(a: ArrayLike<number>, b: ArrayLike<number>, names: string): void {
  if (a.length !== b.length) throw new ShapeError(`${names}: lengths ${a.length} and ${b.length} differ`);
}

/** Z = Σ_v π(v)·w(v), the expected gate under the policy. */
export function gateNormaliser(pi: ArrayLike<number>, w: ArrayLike<number>): number {
  checkDistribution(pi);
  checkSameLength(pi, w, "pi, w");
  let z = 0;
  for (let i = 0; i < pi.length; i++) z += pi[i]! * w[i]!;
  return z;
}

/** r(v) = π(v)·w(v)/Z: the distribution OPD distils toward (Prop. 1). r/π is increasing in w. */
export function reweightedPolicy(pi: ArrayLike<number>, w: ArrayLike<number>): Float64Array {
  const z = gateNormaliser(pi, w);
  if (z === 0) throw new ShapeError("every gate is 0 where the policy has mass: r is undefined");
  return Float64Array.from({ length: pi.length }, (_, i) => (pi[i]! * w[i]!) / z);
}

/** KL(p ‖ q) in nats; terms with p = 0 contribute 0. */
export function klDivergence(p: ArrayLike<number>, q: ArrayLike<number>): number {
  checkSameLength(p, q, "p, q");
  let kl = 0;
  for (let i = 0; i < p.length; i++) if (p[i]! > 0) kl += p[i]! * Math.log(p[i]! / q[i]!);
  return kl;
}

/**
 * The OPD loss as a function of the logits z on one context, L(z) = −Σ_v π(v)·w(v)·log softmax(z)(v),
 * with π and w held fixed (the occupancy and the gates are stop-gradient). Used to check
 * `opdLogitGradient` by finite differences.
 */
export function opdLogitLoss(z: ArrayLike<number>, pi: ArrayLike<number>, w: ArrayLike<number>): number {
  checkSameLength(z, pi, "z, pi");
  let max = -Infinity;
  for (let i = 0; i < z.length; i++) max = Math.max(max, z[i]!);
  let s = 0;
  for (let i = 0; i < z.length; i++) s += Math.exp(z[i]! - max);
  const logZ = max + Math.log(s);
  let loss = 0;
  for (let i = 0; i < z.length; i++) loss -= pi[i]! * w[i]! * (z[i]! - logZ);
  return loss;
}

/**
 * dL/dz(v) = π(v)·(Z − w(v)) at z = log π (paper Eq. 10): tokens whose gate exceeds the mean
 * gate Z are pushed up, the others down, although every gate is non-negative.
 */
export function opdLogitGradient(pi: ArrayLike<number>, w: ArrayLike<number>): Float64Array {
  const z = gateNormaliser(pi, w);
  return Float64Array.from({ length: pi.length }, (_, i) => pi[i]! * (z - w[i]!));
}

/** Var_π[w] = Σ π·(w − Z)²: the OPD signal on a tied group is non-zero iff the gate discriminates (Eq. 11). */
export function gateVariance(pi: ArrayLike<number>, w: ArrayLike<number>): number {
  const z = gateNormaliser(pi, w);
  let v = 0;
  for (let i = 0; i < pi.length; i++) v += pi[i]! * (w[i]! - z) ** 2;
  return v;
}

/** ‖∇_z L‖²_{π⁻¹} = Σ_v (π(v)(Z − w(v)))²/π(v); equals `gateVariance` (Eq. 11). */
export function inversePolicyGradNormSq(pi: ArrayLike<number>, w: ArrayLike<number>): number {
  const g = opdLogitGradient(pi, w);
  let s = 0;
  for (let i = 0; i < pi.length; i++) if (pi[i]! > 0) s += (g[i]! * g[i]!) / pi[i]!;
  return s;
}

/** Both sides of Eq. 8, E_r[Q] − E_π[Q] = Cov_π(Q, w)/Z, and their parts. */
export type ValueAlignment = {
  readonly expectedUnderR: number;
  readonly expectedUnderPi: number;
  readonly covariance: number;
  readonly z: number;
  /** E_r[Q] − E_π[Q] */
  readonly lhs: number;
  /** Cov_π(Q, w)/Z */
  readonly rhs: number;
};

/**
 * Eq. 8: OPD moves the policy toward higher action value exactly when gates co-vary with Q.
 * @example valueAlignment([0.1, 0.35, 0.4, 0.15], [0.2, 0.35, 0.85, 0.7], [0.1, 0.3, 0.9, 0.6]).lhs // 0.129043
 */
export function valueAlignment(pi: ArrayLike<number>, w: ArrayLike<number>, q: ArrayLike<number>): ValueAlignment {
  checkSameLength(pi, q, "pi, q");
  const r = reweightedPolicy(pi, w);
  const z = gateNormaliser(pi, w);
  let eR = 0, eP = 0, eW = 0, eQW = 0;
  for (let i = 0; i < pi.length; i++) {
    eR += r[i]! * q[i]!;
    eP += pi[i]! * q[i]!;
    eW += pi[i]! * w[i]!;
    eQW += pi[i]! * q[i]! * w[i]!;
  }
  const covariance = eQW - eP * eW;
  return { expectedUnderR: eR, expectedUnderPi: eP, covariance, z, lhs: eR - eP, rhs: covariance / z };
}

/** The gate's Lipschitz constant in Δ: sup |d σ(βΔ)/dΔ| = β/4 (Prop. 3, Eq. 14). */
export function gateLipschitz(beta: number): number {
  return Math.abs(beta) / 4;
}

/** |σ(β·a) − σ(β·b)| and its Lipschitz bound (β/4)·|a − b|, for staleness diagnostics. */
export function gateDifference(a: number, b: number, beta: number): { difference: number; bound: number } {
  return { difference: Math.abs(gate(a, beta) - gate(b, beta)), bound: gateLipschitz(beta) * Math.abs(a - b) };
}
