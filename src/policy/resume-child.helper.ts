/**
 * Test helper for the resume-equivalence test of `embedded.test.ts`: a fixed, seeded SFT-style
 * training schedule, and (when run as a script) the child process that loads a checkpoint,
 * trains the remaining steps and saves the result:
 *   node --import tsx src/policy/resume-child.helper.ts <checkpoint-in> <steps> <checkpoint-out>
 * Not part of the library: nothing in src/ imports it.
 */
import { pathToFileURL } from "node:url";
import { Rng } from "../core/rng.ts";
import { EmbeddedPolicy } from "./embedded.ts";

/**
 * Trains `count` steps. Each step's batch is drawn from `rng` (whose state the checkpoint carries),
 * so an interrupted run continues with exactly the draws the uninterrupted one made.
 */
export async function trainSteps(policy: EmbeddedPolicy, rng: Rng, count: number): Promise<void> {
  const vocab = policy.tokenizer.vocabSize;
  for (let s = 0; s < count; s++) {
    const reqs = Array.from({ length: 3 }, () => ({ tokens: Array.from({ length: 12 + rng.int(8) }, () => rng.int(vocab)), start: 1 }));
    const n = reqs.reduce((a, r) => a + r.tokens.length - 1, 0);
    await policy.backward(reqs, reqs.map((r) => new Float32Array(r.tokens.length - 1).fill(-1 / n)));
    await policy.step({ lr: 1e-2, weightDecay: 0.1, maxGradNorm: 1 });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [input, steps, output] = process.argv.slice(2);
  const policy = await EmbeddedPolicy.load(input!);
  const rng = Rng.fromState(policy.checkpointState!.rng["data"]!);
  await trainSteps(policy, rng, Number(steps));
  await policy.save(output!, { rng: { data: rng.state() }, extra: policy.checkpointState!.extra });
}
