import { test } from "node:test";
import assert from "node:assert/strict";
import { klEstimators, klPenalty, parseKlEstimator } from "./kl.ts";
import { batchFromLengths } from "./batch.ts";
import { ConfigError } from "../core/errors.ts";

// The values the test names quote were computed independently in double precision, not by this code.
const close = (a: number, b: number, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

test("KL values at l_theta = -1.0, l_ref = -1.5: k1 0.5, k2 0.125, k3 0.106531", () => {
  close(klEstimators.k1(-1, -1.5).value, 0.5);
  close(klEstimators.k2(-1, -1.5).value, 0.125);
  close(klEstimators.k3(-1, -1.5).value, 0.106531);
  close(klEstimators.abs(-1, -1.5).value, 0.5);
});

test("KL gradients: k1 1, k2 0.5, k3 1 - e^-0.5 = 0.393469", () => {
  close(klEstimators.k1(-1, -1.5).grad, 1);
  close(klEstimators.k2(-1, -1.5).grad, 0.5);
  close(klEstimators.k3(-1, -1.5).grad, 0.393469);
  close(klEstimators.abs(-1, -1.5).grad, 1);
  close(klEstimators.abs(-1.5, -1).grad, -1);
});

test("k3 is clamped to 10 with zero gradient beyond x = 2.610869 and x = -10.999983", () => {
  // x = l_ref − l_theta; e^x − x − 1 = 10 at those two points
  for (const [x, clamped] of [[2.6108, false], [2.6109, true], [-10.9999, false], [-11.0, true], [50, true], [-50, true]] as const) {
    const { value, grad } = klEstimators.k3(0, x);
    if (clamped) {
      assert.equal(value, 10);
      assert.equal(grad, 0);
    } else {
      assert.ok(value < 10 && grad !== 0, `x = ${x}`);
    }
  }
  assert.ok(klEstimators.k3(-1, -1).value === 0 && klEstimators.k3(-1, -1).grad === 0);
});

test("the KL term aggregates with token-mean and reports the clamped share", () => {
  const batch = batchFromLengths([2, 1]);
  const out = klPenalty({ batch, policyLogprobs: [-1, -1, 0], referenceLogprobs: [-1.5, -1, 5] });
  close(out.value, (0.106531 + 0 + 10) / 3);
  close(out.dLogprobs[0]!, 0.393469 / 3);
  assert.equal(out.dLogprobs[2], 0);
  close(out.metrics["kl/clamped_frac"]!, 1 / 3);
});

test("verl aliases resolve; an unknown estimator lists the valid names", () => {
  assert.equal(parseKlEstimator("low_var_kl"), "k3");
  assert.equal(parseKlEstimator("mse"), "k2");
  assert.equal(parseKlEstimator("kl"), "k1");
  assert.throws(() => parseKlEstimator("k4"), (e: unknown) => e instanceof ConfigError && /valid: k1, abs, k2, k3/.test(e.message));
});
