/**
 * `TinkerClient`: the operations of the Tinker training protocol over `Transport` + futures:
 * `create_model`, `forward`, `forward_backward`, `optim_step`, `save_weights_for_sampler`
 * (ephemeral or persistent), `asample`, `save_weights`, `load_weights` and the checkpoint
 * archive download. Knows nothing of policies or algorithms.
 *
 * - Every training-side request carries a per-model `seq_id` (1, 2, ...), which servers use to
 *   order requests and to answer a retried one with its first future.
 * - `forward` / `forward_backward` batches are cut into chunks of at most 1,024 datums and about
 *   5 MB (the SDK's `fwdbwd_max_chunk_len` / `fwdbwd_max_chunk_bytes_count`); chunks are posted in
 *   order (so a server accumulates gradients in a fixed order) and awaited together.
 * - Wire: `"proto"` (default) sends `forward_backward` as protobuf (forward-only passes through
 *   its `forward_only` flag), as SDK 0.25 does and SkyRL 0.4 requires; `"json"` sends JSON and
 *   uses `/api/v1/forward`, as JSON-era servers (SDK <= 0.24, verl_tinker) expect. Our own
 *   server (`seed serve --api tinker`) speaks both.
 */
import { awaitFuture } from "./futures.ts";
import { encodeForwardBackward } from "./proto.ts";
import { Session } from "./session.ts";
import { TinkerError, Transport, type TransportOptions } from "./transport.ts";
import { BATCH_HEADER, datumBytes, type AdamParams, type BatchMember, type Datum, type ForwardBackwardOutput, type FutureResponse, type SampleResult, type SamplingParams } from "./wire.ts";

/** Options of {@link TinkerClient.connect}. */
export type TinkerClientOptions = TransportOptions & {
  /** How `forward`/`forward_backward` bodies travel. @default "proto" */
  readonly wire?: "proto" | "json";
  /** Most datums per request. @default 1024 */
  readonly maxChunkDatums?: number;
  /** Most (estimated) bytes per request. @default 5_000_000 */
  readonly maxChunkBytes?: number;
  /** Heartbeat period in milliseconds. @default 10000 */
  readonly heartbeatMs?: number;
  /** Longest wait for one future, in milliseconds. @default 1800000 */
  readonly futureDeadlineMs?: number;
};

/** Where `asample` samples from: a sampling session, a saved sampler checkpoint, or the base model. */
export type SamplerRef = { readonly samplingSessionId: string } | { readonly modelPath: string } | { readonly baseModel: string };

/** Splits `data` into consecutive chunks within the datum and byte limits (a datum is never split). */
export function chunkData(data: readonly Datum[], maxDatums: number, maxBytes: number): Datum[][] {
  const out: Datum[][] = [];
  let cur: Datum[] = [], bytes = 0;
  for (const d of data) {
    const b = datumBytes(d);
    if (cur.length > 0 && (cur.length >= maxDatums || bytes + b > maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(d);
    bytes += b;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** A connected client (one session). */
export class TinkerClient {
  readonly transport: Transport;
  readonly session: Session;
  readonly wire: "proto" | "json";
  private readonly maxChunkDatums: number;
  private readonly maxChunkBytes: number;
  private readonly deadlineMs: number;
  private readonly seqs = new Map<string, number>();
  private samplingSeq = 0;
  private readonly samplerSeqs = new Map<string, number>();

  private constructor(t: Transport, s: Session, o: TinkerClientOptions) {
    this.transport = t;
    this.session = s;
    this.wire = o.wire ?? "proto";
    this.maxChunkDatums = o.maxChunkDatums ?? 1024;
    this.maxChunkBytes = o.maxChunkBytes ?? 5_000_000;
    this.deadlineMs = o.futureDeadlineMs ?? 30 * 60_000;
  }

  /** Opens a session on the server at `options.baseUrl`. */
  static async connect(options: TinkerClientOptions): Promise<TinkerClient> {
    const t = new Transport(options);
    const s = await Session.open(t, options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs });
    return new TinkerClient(t, s, options);
  }

  /** The server root URL. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** Stops the heartbeat (the server forgets the session on its own). */
  close(): void {
    this.session.close();
  }

  private nextSeq(modelId: string): number {
    const n = (this.seqs.get(modelId) ?? 0) + 1;
    this.seqs.set(modelId, n);
    return n;
  }

  private endpoint(op: string): string {
    return `POST ${this.baseUrl}/api/v1/${op}`;
  }

  private async queue(op: string, body: Record<string, unknown>, headers?: Readonly<Record<string, string>>): Promise<string> {
    this.session.check();
    const reply = await this.transport.post(op, { json: body }, headers === undefined ? {} : { headers });
    return this.requestIdOf(op, reply);
  }

  private requestIdOf(op: string, reply: { json: unknown } | { proto: Uint8Array }): string {
    const id = "json" in reply ? (reply.json as FutureResponse | null)?.request_id : undefined;
    if (id === undefined || id === null) throw new TinkerError(this.endpoint(op), 200, "the answer has no request_id");
    return String(id);
  }

  private wait<K extends "json" | "forward" | "sample">(op: string, id: string, kind: K) {
    return awaitFuture(this.transport, this.endpoint(op), id, kind, { deadlineMs: this.deadlineMs, proto: this.wire === "proto" });
  }

  /** Names of the base models the server offers (`get_server_capabilities`). */
  async supportedModels(): Promise<string[]> {
    const j = (await this.transport.getJson("get_server_capabilities")) as { supported_models?: { model_name?: string }[] } | null;
    return (j?.supported_models ?? []).flatMap((m) => (typeof m.model_name === "string" ? [m.model_name] : []));
  }

  /** Creates a trainable model: LoRA of `rank` (0: full fine-tuning, where the server allows it). Returns its id. */
  async createModel(baseModel: string, rank: number, seed?: number): Promise<string> {
    this.session.check();
    const reply = await this.transport.post("create_model", { json: { session_id: this.session.id, base_model: baseModel, lora_config: { rank, ...(seed !== undefined ? { seed } : {}) }, model_role: "policy", type: "create_model" } });
    const j = ("json" in reply ? reply.json : null) as { model_id?: unknown; request_id?: unknown } | null;
    if (typeof j?.model_id !== "string") throw new TinkerError(this.endpoint("create_model"), 200, "the answer has no model_id");
    if (j.request_id !== undefined && j.request_id !== null) await this.wait("create_model", String(j.request_id), "json");
    return j.model_id;
  }

  /** Forward pass only: per-datum log-probs (and loss outputs) on the training weights. */
  async forward(modelId: string, data: readonly Datum[], lossFn = "cross_entropy"): Promise<ForwardBackwardOutput> {
    return this.modelPass(modelId, data, lossFn, undefined, true);
  }

  /** Forward and backward: gradients accumulate on the server until `optimStep`. */
  async forwardBackward(modelId: string, data: readonly Datum[], lossFn: string, lossFnConfig?: Readonly<Record<string, number>>): Promise<ForwardBackwardOutput> {
    return this.modelPass(modelId, data, lossFn, lossFnConfig, false);
  }

  private async modelPass(modelId: string, data: readonly Datum[], lossFn: string, lossFnConfig: Readonly<Record<string, number>> | undefined, forwardOnly: boolean): Promise<ForwardBackwardOutput> {
    this.session.check();
    const op = forwardOnly && this.wire === "json" ? "forward" : "forward_backward";
    const ids: string[] = [];
    for (const chunk of chunkData(data, this.maxChunkDatums, this.maxChunkBytes)) {
      const seqId = this.nextSeq(modelId);
      let reply;
      if (this.wire === "proto") {
        reply = await this.transport.post(op, { proto: encodeForwardBackward({ modelId, seqId, data: chunk, lossFn, ...(lossFnConfig ? { lossFnConfig } : {}), forwardOnly }) });
      } else {
        const input = { data: chunk, loss_fn: lossFn, ...(lossFnConfig ? { loss_fn_config: lossFnConfig } : {}) };
        reply = await this.transport.post(op, { json: { model_id: modelId, seq_id: seqId, [forwardOnly ? "forward_input" : "forward_backward_input"]: input } });
      }
      ids.push(this.requestIdOf(op, reply));
    }
    const label = forwardOnly ? "forward" : "forward_backward";
    const parts = await Promise.all(ids.map((id) => this.wait(label, id, "forward")));
    const out: ForwardBackwardOutput = { loss_fn_output_type: parts[0]?.loss_fn_output_type ?? "", loss_fn_outputs: [], metrics: {} };
    for (const p of parts) {
      out.loss_fn_outputs.push(...p.loss_fn_outputs);
      // Sums add up across chunks; other metrics keep the last chunk's value.
      for (const [k, v] of Object.entries(p.metrics ?? {})) out.metrics[k] = k.endsWith(":sum") ? (out.metrics[k] ?? 0) + v : v;
    }
    if (out.loss_fn_outputs.length !== data.length) throw new TinkerError(this.endpoint(op), 200, `returned ${out.loss_fn_outputs.length} outputs for ${data.length} datums`);
    return out;
  }

  /** One AdamW step on the accumulated gradients; the server's metrics (grad norm where reported). */
  async optimStep(modelId: string, adam: AdamParams): Promise<Record<string, number>> {
    const id = await this.queue("optim_step", { model_id: modelId, seq_id: this.nextSeq(modelId), adam_params: adam, type: "optim_step" });
    const r = (await this.wait("optim_step", id, "json")) as { metrics?: Record<string, number> } | null;
    return r?.metrics ?? {};
  }

  /**
   * Publishes the current weights to the sampler. Ephemeral (no `path`): a new sampling session
   * for `asample`; persistent (`path`): a `tinker://` sampler checkpoint that outlives the session.
   */
  async saveWeightsForSampler(modelId: string, path?: string): Promise<{ samplingSessionId?: string; path?: string }> {
    const body: Record<string, unknown> = { model_id: modelId, type: "save_weights_for_sampler" };
    if (path !== undefined) body["path"] = path;
    else {
      body["sampling_session_seq_id"] = ++this.samplingSeq;
      body["seq_id"] = this.nextSeq(modelId);
    }
    const id = await this.queue("save_weights_for_sampler", body);
    const r = (await this.wait("save_weights_for_sampler", id, "json")) as { path?: string; sampling_session_id?: string } | null;
    const out: { samplingSessionId?: string; path?: string } = {};
    if (typeof r?.sampling_session_id === "string") out.samplingSessionId = r.sampling_session_id;
    if (typeof r?.path === "string") out.path = r.path;
    if (path === undefined && out.samplingSessionId === undefined) throw new TinkerError(this.endpoint("save_weights_for_sampler"), 200, "the answer has no sampling_session_id");
    if (path !== undefined && out.path === undefined) throw new TinkerError(this.endpoint("save_weights_for_sampler"), 200, "the answer has no path");
    return out;
  }

  /**
   * Samples `numSamples` continuations of `prompt` (seeded); `promptLogprobs` also scores the
   * prompt. `batch` marks the request as member `index` of `size` requests sent together
   * (header `X-Seed-Batch`, see `BATCH_HEADER`): our server runs such a group as one batch in
   * index order; other servers ignore the header.
   */
  async asample(from: SamplerRef, prompt: readonly number[], params: SamplingParams, options: { numSamples?: number; promptLogprobs?: boolean; batch?: BatchMember } = {}): Promise<SampleResult> {
    const body: Record<string, unknown> = { prompt: { chunks: [{ type: "encoded_text", tokens: [...prompt] }] }, sampling_params: params, num_samples: options.numSamples ?? 1, type: "sample" };
    if ("samplingSessionId" in from) {
      const n = (this.samplerSeqs.get(from.samplingSessionId) ?? 0) + 1;
      this.samplerSeqs.set(from.samplingSessionId, n);
      body["sampling_session_id"] = from.samplingSessionId;
      body["seq_id"] = n;
    } else if ("modelPath" in from) body["model_path"] = from.modelPath;
    else body["base_model"] = from.baseModel;
    if (options.promptLogprobs) body["prompt_logprobs"] = true;
    const b = options.batch;
    const id = await this.queue("asample", body, b === undefined ? undefined : { [BATCH_HEADER]: `${b.id} ${b.index} ${b.size}` });
    const r = (await this.wait("asample", id, "sample")) as SampleResult | null;
    if (r === null || !Array.isArray(r.sequences)) throw new TinkerError(this.endpoint("asample"), 200, "the answer has no sequences");
    return r;
  }

  /** Saves weights and optimizer state as checkpoint `name`; returns its `tinker://` path. */
  async saveWeights(modelId: string, name: string): Promise<string> {
    const id = await this.queue("save_weights", { model_id: modelId, path: name, type: "save_weights" });
    const r = (await this.wait("save_weights", id, "json")) as { path?: string } | null;
    return typeof r?.path === "string" ? r.path : `tinker://${modelId}/weights/${name}`;
  }

  /** Loads a `save_weights` checkpoint into a fresh model (its first request), optimizer state included. */
  async loadWeights(modelId: string, path: string, optimizer = true): Promise<void> {
    const id = await this.queue("load_weights", { model_id: modelId, path, optimizer, seq_id: this.nextSeq(modelId), type: "load_weights" });
    await this.wait("load_weights", id, "json");
  }

  /** The archive (`.tar.gz`) of sampler checkpoint `tinker://<model>/sampler_weights/<name>`. */
  async downloadSamplerArchive(path: string): Promise<Uint8Array> {
    const m = /^tinker:\/\/([^/]+)\/(?:sampler_weights\/)?([^/]+)$/.exec(path);
    if (m === null) throw new TinkerError(this.baseUrl, 0, `not a sampler checkpoint path: ${path}`);
    return this.transport.getBytes(`training_runs/${m[1]}/checkpoints/${m[2]}/archive`);
  }
}
