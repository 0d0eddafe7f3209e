/**
 * The JSON shapes of the Tinker protocol (`/api/v1/*`), as the SDK's `tinker.types` and SkyRL's
 * `skyrl/tinker/api.py` spell them. Field names are the protocol's (snake_case) on purpose.
 */

/** A flat tensor (`TensorData`); every tensor this project sends is one-dimensional. */
export type TensorData = { data: number[]; dtype: "int64" | "float32"; shape?: number[] };

/** A run of token ids (`EncodedTextChunk`). */
export type EncodedTextChunk = { type: "encoded_text"; tokens: number[] };

/** One training or scoring example: position i of `model_input` predicts `target_tokens[i]`. */
export type Datum = {
  model_input: { chunks: EncodedTextChunk[] };
  loss_fn_inputs: Record<string, TensorData>;
};

/** Result of `forward` / `forward_backward`: per-datum `logprobs` and `elementwise_loss`, plus metrics (`loss:sum`). */
export type ForwardBackwardOutput = {
  loss_fn_output_type: string;
  loss_fn_outputs: Record<string, TensorData>[];
  metrics: Record<string, number>;
};

/** One sampled sequence (`SampledSequence`). */
export type SampledSequence = { stop_reason: "stop" | "length"; tokens: number[]; logprobs: number[] };

/** Result of `asample` (`SampleResponse`); `prompt_logprobs[0]` is null (nothing predicts the first token). */
export type SampleResult = { sequences: SampledSequence[]; prompt_logprobs: (number | null)[] | null };

/** `sampling_params` of `asample`. `top_k` -1 disables it; `stop` is all token ids or all strings. */
export type SamplingParams = {
  max_tokens: number;
  temperature: number;
  top_p: number;
  top_k: number;
  seed: number;
  stop?: number[] | string[];
};

/** `adam_params` of `optim_step` (the protocol's defaults differ from ours: we always send every field). */
export type AdamParams = {
  learning_rate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  grad_clip_norm: number;
};

/** The reply of every queued operation: a future to poll with `retrieve_future`. */
export type FutureResponse = { request_id: string; future_id?: string; status?: string };

/** What `retrieve_future` answers while the result is not ready. */
export type TryAgain = { type: "try_again"; queue_state?: string };

/** Content type of the binary (protobuf) bodies. */
export const PROTO_CONTENT_TYPE = "application/x-protobuf";

/** A 1-D int64 tensor. */
export function int64(data: readonly number[]): TensorData {
  return { data: [...data], dtype: "int64", shape: [data.length] };
}

/** A 1-D float32 tensor. */
export function float32(data: ArrayLike<number>): TensorData {
  return { data: Array.from(data), dtype: "float32", shape: [data.length] };
}

/**
 * The datum that scores (or trains) `tokens`: input `tokens[:-1]`, targets `tokens[1:]`, so
 * output position i is log p(tokens[i+1] | tokens[..i]). `weights` (length tokens.length - 1)
 * are the per-target weights; extra inputs (`logprobs`, `advantages`) likewise.
 */
export function datumOf(tokens: readonly number[], inputs: Record<string, TensorData>): Datum {
  return {
    model_input: { chunks: [{ type: "encoded_text", tokens: tokens.slice(0, -1) }] },
    loss_fn_inputs: { target_tokens: int64(tokens.slice(1)), ...inputs },
  };
}

/** The input ids of a datum (its chunks joined). */
export function datumInput(d: Datum): number[] {
  return d.model_input.chunks.flatMap((c) => c.tokens);
}

/** Bytes a datum takes on the wire, roughly (the SDK's chunking estimate: 4 bytes a token, 4 or 8 a tensor entry, plus framing). */
export function datumBytes(d: Datum): number {
  let n = 64 + 4 * datumInput(d).length;
  for (const t of Object.values(d.loss_fn_inputs)) n += 16 + (t.dtype === "int64" ? 8 : 4) * t.data.length;
  return n;
}

/**
 * Our extension header on `asample`: `<batch id> <index> <size>`. A client that sends a batch of
 * sequences as `size` concurrent requests (one per sequence, as the protocol asks) tags each with
 * its place in the batch; our server waits for the whole group and runs it as one batched call in
 * index order, which is exactly the batch the in-process trainer samples, so the two paths give
 * the same numbers and a group is never split between two decode loops by arrival timing.
 * Servers that do not know the header ignore it.
 */
export const BATCH_HEADER = "X-Seed-Batch";

/** A request's place in a group sent together (see `BATCH_HEADER`). */
export type BatchMember = { readonly id: string; readonly index: number; readonly size: number };
