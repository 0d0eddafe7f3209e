// The paper's Appendix-A identities on a four-token toy (pi, w, Q below), against values computed
// independently in double precision.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  gateNormaliser, gateVariance, inversePolicyGradNormSq, klDivergence, opdLogitGradient, opdLogitLoss, reweightedPolicy, valueAlignment,
} from "./identities.ts";
import { ShapeError } from "../core/errors.ts";

const close = (a: number, b: number, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

const pi = [0.1, 0.35, 0.4, 0.15];
const w = [0.2, 0.35, 0.85, 0.7];
const Q = [0.1, 0.3, 0.9, 0.6];

test("Prop. 1: Z = 0.5875 and r = [0.034043, 0.208511, 0.578723, 0.178723]", () => {
  close(gateNormaliser(pi, w), 0.5875, 1e-12);
  const r = reweightedPolicy(pi, w);
  [0.034043, 0.208511, 0.578723, 0.178723].forEach((e, i) => close(r[i]!, e));
  close(r.reduce((s, x) => s + x, 0), 1, 1e-12);
});

test("Prop. 1: the order by r/pi equals the order by w, [2, 3, 1, 0]", () => {
  const r = reweightedPolicy(pi, w);
  const byRatio = [0, 1, 2, 3].sort((a, b) => r[b]! / pi[b]! - r[a]! / pi[a]!);
  const byGate = [0, 1, 2, 3].sort((a, b) => w[b]! - w[a]!);
  assert.deepEqual(byRatio, [2, 3, 1, 0]);
  assert.deepEqual(byGate, byRatio);
});

test("Prop. 1: KL(r || pi) = 0.10039 nats", () => {
  close(klDivergence(reweightedPolicy(pi, w), pi), 0.10039, 1e-5);
});

test("Prop. 2 / Eq. 10: logit gradient pi·(Z − w) = [0.03875, 0.083125, -0.105, -0.016875], matching central differences to 1e-8", () => {
  const g = opdLogitGradient(pi, w);
  [0.03875, 0.083125, -0.105, -0.016875].forEach((e, i) => close(g[i]!, e, 1e-12));
  const z0 = pi.map(Math.log);
  const h = 1e-5;
  for (let v = 0; v < 4; v++) {
    const up = z0.slice(), dn = z0.slice();
    up[v]! += h;
    dn[v]! -= h;
    close((opdLogitLoss(up, pi, w) - opdLogitLoss(dn, pi, w)) / (2 * h), g[v]!, 1e-8);
  }
  // signed relative credit from non-negative gates: tokens with w > Z go up (negative loss gradient)
  const z = gateNormaliser(pi, w);
  w.forEach((wv, i) => assert.equal(Math.sign(g[i]!), wv > z ? -1 : 1));
});

test("Eq. 8: E_r[Q] − E_pi[Q] = Cov_pi(Q, w)/Z = 0.129043", () => {
  const va = valueAlignment(pi, w, Q);
  close(va.expectedUnderR, 0.694043);
  close(va.expectedUnderPi, 0.565, 1e-12);
  close(va.covariance, 0.0758125, 1e-12);
  close(va.lhs, 0.129043);
  close(va.rhs, va.lhs, 1e-12);
});

test("Prop. 2 / Eq. 11: Var_pi[w] = 0.06421875 = the inverse-policy-weighted squared gradient norm", () => {
  close(gateVariance(pi, w), 0.06421875, 1e-12);
  close(inversePolicyGradNormSq(pi, w), 0.06421875, 1e-12);
  // a gate that does not discriminate gives no signal
  assert.equal(gateVariance(pi, [0.5, 0.5, 0.5, 0.5]), 0);
  assert.ok(opdLogitGradient(pi, [0.5, 0.5, 0.5, 0.5]).every((x) => Math.abs(x) < 1e-15));
});

test("inputs that are not distributions or differ in length are ShapeErrors", () => {
  assert.throws(() => gateNormaliser([0.5, 0.6], [1, 1]), ShapeError);
  assert.throws(() => gateNormaliser([0.5, 0.5], [1]), ShapeError);
  assert.throws(() => reweightedPolicy([0.5, 0.5], [0, 0]), ShapeError);
});
