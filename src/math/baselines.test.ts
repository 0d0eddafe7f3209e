// Skill-SD, RLSD and SFT. The values the test names quote were computed independently in double
// precision, not by this code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { skillSdLoss } from "./skill-sd.ts";
import { rlsdLambda, rlsdTokenAdvantages } from "./rlsd.ts";
import { nllLoss } from "./sft.ts";
import { clippedPolicyLoss } from "./policy-loss.ts";
import { batchFromLengths } from "./batch.ts";

const close = (a: number, b: number, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

test("Skill-SD k3 with rho = 1 on d = [-0.5, 1, 0]: [0.148721, 0.367879, 0], token-mean 0.172200, gradient d/3", () => {
  const d = [-0.5, 1, 0];
  const policy = [-1, -1, -1];
  const teacher = policy.map((p, i) => p - d[i]!); // d = student − teacher
  const out = skillSdLoss({ batch: batchFromLengths([3]), policyLogprobs: policy, oldLogprobs: policy, teacherLogprobs: teacher });
  close(out.value, 0.1722);
  d.forEach((di, i) => close(out.dLogprobs[i]!, di / 3));
  close(out.metrics["skill_sd/k3_mean"]!, (0.148721 + 0.367879) / 3);
  assert.equal(out.metrics["skill_sd/rho_mean"], 1);
});

test("RLSD token advantages, lambda 0.5, eps_w 0.2, Δ = [0.5, -1, 0]: A = +1.2 -> [1.32, 1.08, 1.2]; A = -1.2 -> [-1.08, -1.32, -1.2]", () => {
  // Δ = l_T − l_old from the gate case: teacher [-0.5, -2, -1], old [-1, -1, -1]
  const teacher = [-0.5, -2, -1, -0.5, -2, -1];
  const old = [-1, -1, -1, -1, -1, -1];
  const adv = rlsdTokenAdvantages({ batch: batchFromLengths([3, 3]), advantages: [1.2, -1.2], teacherLogprobs: teacher, oldLogprobs: old, lambda: 0.5 });
  [1.32, 1.08, 1.2, -1.08, -1.32, -1.2].forEach((e, i) => close(adv[i]!, e, 1e-12));
});

test("RLSD advantages keep the sign of A and A = 0 stays 0", () => {
  const adv = rlsdTokenAdvantages({ batch: batchFromLengths([2]), advantages: [0], teacherLogprobs: [0, -9], oldLogprobs: [-3, 0], lambda: 0.5 });
  assert.deepEqual(Array.from(adv), [0, 0]);
});

test("RLSD schedule lambda0 = 0.5, K = 100: 0.495 (k = 1), 0.25 (k = 50), 0 (k >= 100)", () => {
  close(rlsdLambda(1), 0.495, 1e-12);
  close(rlsdLambda(50), 0.25, 1e-12);
  assert.equal(rlsdLambda(100), 0);
  assert.equal(rlsdLambda(150), 0);
  assert.throws(() => rlsdLambda(1, { warmDown: 0 }), RangeError);
});

test("RLSD advantages feed the clipped loss: at r = 1 the gradient is -Â per token (token-mean)", () => {
  const batch = batchFromLengths([3]);
  const old = [-1, -1, -1];
  const adv = rlsdTokenAdvantages({ batch, advantages: [1.2], teacherLogprobs: [-0.5, -2, -1], oldLogprobs: old, lambda: 0.5 });
  const out = clippedPolicyLoss({ batch, policyLogprobs: old, oldLogprobs: old, advantages: adv });
  [1.32, 1.08, 1.2].forEach((a, i) => close(out.dLogprobs[i]!, -a / 3, 1e-12));
});

test("SFT NLL: weight -m/Σm per token with token-mean, value the mean NLL", () => {
  const batch = { segments: [{ start: 0, length: 4 }], lossMask: [0, 1, 1, 1] };
  const out = nllLoss({ batch, policyLogprobs: [-9, -1, -2, -3] });
  close(out.value, 2, 1e-12);
  assert.deepEqual(Array.from(out.dLogprobs), [0, -1 / 3, -1 / 3, -1 / 3]);
  assert.equal(out.metrics["sft/tokens"], 3);
});
