/**
 * How a Tinker server reduces per-token losses, and the weights that make it back-propagate
 * exactly `sum_t w_t * logprob_t` (the `TrainablePolicy.backward` contract) either way.
 *
 * - `sum`: the Tinker contract ("per-token losses are summed", hosted Tinker, SkyRL-train, our
 *   server). `cross_entropy` is `L = sum_t -logprob_t * weight_t`, so weight = -w, one pass.
 * - `sequence-mean`: SkyRL's JAX back end divides each datum's summed loss by the sum of its
 *   `weights` (clamped to 1e-9) and the accumulated gradient by the number of datums at
 *   `optim_step`. Signed weights can sum to ~0, so `cross_entropy` cannot carry them. Instead:
 *   `importance_sampling` with all-one weights (denominator = the datum's length N), sampling
 *   log-probs = the current log-probs from a `forward` just before (ratio 1), and advantages
 *   A_t = -w_t * N * D, where D is the number of datums of the whole step (so backward calls
 *   are held until `step`, when D is known). Costs one extra forward pass per step.
 *
 * The probe (`probeReduction`) scores one known datum with `forward` and compares the loss the
 * server reports (`loss:sum`) with both readings; a server that reports no loss (SkyRL's JAX back
 * end) cannot be probed, and training refuses to start unless the reduction is named explicitly.
 */
import { RemoteError } from "../../core/errors.ts";
import type { TinkerClient } from "./client.ts";
import { datumOf, float32, type ForwardBackwardOutput } from "./wire.ts";

/** A server's loss reduction. */
export type Reduction = "sum" | "sequence-mean";

/** What the descriptor may say: a fixed reduction, or probe it at connect time. */
export type ReductionSetting = Reduction | "probe";

/** The reported total loss of a forward pass, if the server reports one. */
export function reportedLoss(out: ForwardBackwardOutput): number | undefined {
  const m = out.metrics ?? {};
  const v = m["loss:sum"] ?? m["loss"];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * Probes the reduction of `modelId` with one forward pass on ids `[a, b, c, d]` (the last id is
 * the tokenizer's largest, so a model whose vocabulary is smaller than the tokenizer's fails here
 * with the server's own message). Returns the reduction, or null when the server reports no loss.
 * @throws RemoteError when the reported loss matches neither reading, or the vocabulary does not fit
 */
export async function probeReduction(client: TinkerClient, modelId: string, baseModel: string, ids: readonly [number, number, number, number], vocabSize: number): Promise<Reduction | null> {
  const weights = [0, 1, 3];
  let out: ForwardBackwardOutput;
  try {
    out = await client.forward(modelId, [datumOf(ids, { weights: float32(weights) })]);
  } catch (e) {
    if (e instanceof RemoteError && /HTTP 4\d\d/.test(e.message)) {
      throw new RemoteError(`${e.message} (while checking that base model '${baseModel}' accepts every id of the tokenizer, ${vocabSize} tokens: a vocabulary mismatch?)`);
    }
    throw e;
  }
  const lp = out.loss_fn_outputs[0]?.["logprobs"]?.data;
  if (lp === undefined || lp.length !== 3 || lp.some((x) => !Number.isFinite(x) || x > 1e-4)) {
    throw new RemoteError(`tinker ${client.baseUrl}: forward returned no usable log-probs for a 3-token probe (got ${JSON.stringify(lp)?.slice(0, 80)})`);
  }
  const loss = reportedLoss(out);
  if (loss === undefined) return null;
  const sum = -(weights[1]! * lp[1]! + weights[2]! * lp[2]!);
  const mean = sum / (weights[0]! + weights[1]! + weights[2]!);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(b));
  if (close(loss, sum) && !close(loss, mean)) return "sum";
  if (close(loss, mean) && !close(loss, sum)) return "sequence-mean";
  throw new RemoteError(`tinker ${client.baseUrl}: cannot establish the loss reduction: the probe's loss is ${loss}, neither the sum ${sum.toFixed(6)} nor the per-sequence mean ${mean.toFixed(6)}; refusing to train (set the reduction explicitly if you know it)`);
}
