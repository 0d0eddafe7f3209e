/**
 * The futures of our Tinker server and the one queue that runs their work: every operation runs
 * alone, in arrival order (so gradients accumulate in the order the client posted its chunks),
 * and consecutive `asample` jobs on one sampler are gathered into one batched `policy.sample`
 * call (a tagged group waits for all its members; an untagged burst for up to 20 ms). A request
 * is deduplicated by (model, seq_id): a retry gets the first request's future. Not here: what a
 * job does (`server-engine.ts`), HTTP (`server.ts`).
 */
import { EmbeddedBase } from "../embedded.ts";
import type { Policy, SampleRequest } from "../policy.ts";
import { ProtocolError } from "./protocol-error.ts";
import type { BatchMember, ForwardBackwardOutput, SampleResult } from "./wire.ts";

/** What a finished future holds, and how it may be encoded. */
export type FutureValue = { kind: "json"; value: unknown } | { kind: "forward"; value: ForwardBackwardOutput } | { kind: "sample"; value: SampleResult };

/** A future: pending until its job settles it; `waiters` are woken then. */
export type FutureState = { status: "pending" | "done" | "failed"; value?: FutureValue; error?: string; waiters: (() => void)[] };

/** A queued operation: `run` for a training or checkpoint job, `sample` for a sampling request (batched with its neighbours). */
export type Job = { futureId: string; run: () => Promise<FutureValue>; sample?: { policy: Policy; request: SampleRequest; promptLogprobs: boolean; n: number; group?: BatchMember } };

/** Longest wait for the rest of a tagged group (a client that died mid-burst must not stall the queue). */
const GROUP_WAIT_MS = 2_000;

/** The futures and the queue of one server. */
export class JobQueue {
  private readonly futures = new Map<string, FutureState>();
  private readonly seqIndex = new Map<string, { futureId: string; fingerprint: string }>();
  private readonly queue: Job[] = [];
  private running = false;
  private futureCounter = 0;

  /**
   * Queues `job`. `dedupe` is (model, seq_id) and `fingerprint` the request's content: a retry
   * (same both) gets the first future; the same seq_id with other content is a 409, as in SkyRL.
   */
  enqueue(job: Omit<Job, "futureId">, dedupe?: string, fingerprint = ""): string {
    if (dedupe !== undefined) {
      const seen = this.seqIndex.get(dedupe);
      if (seen !== undefined) {
        if (seen.fingerprint !== fingerprint) throw new ProtocolError(409, "Training request sequence number was reused");
        return seen.futureId;
      }
    }
    const futureId = String(++this.futureCounter);
    this.futures.set(futureId, { status: "pending", waiters: [] });
    if (dedupe !== undefined) this.seqIndex.set(dedupe, { futureId, fingerprint });
    this.queue.push({ ...job, futureId });
    void this.pump();
    return futureId;
  }

  private settle(id: string, value: FutureValue | null, error?: string): void {
    const f = this.futures.get(id)!;
    if (value !== null) {
      f.status = "done";
      f.value = value;
    } else {
      f.status = "failed";
      f.error = error ?? "failed";
    }
    for (const w of f.waiters.splice(0)) w();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        await new Promise((r) => setImmediate(r));
        const head = this.queue[0]!.sample;
        if (head?.group !== undefined) {
          // A tagged group (BATCH_HEADER): wait for all of it, so it runs as one batch.
          const g = head.group, until = Date.now() + GROUP_WAIT_MS;
          while (this.queue.filter((j) => j.sample?.group?.id === g.id).length < g.size && Date.now() < until) await new Promise((r) => setTimeout(r, 1));
        } else if (head !== undefined) {
          // An untagged client sends a turn's sequences as concurrent requests: wait (up to 20
          // ms) until the burst has arrived, so it runs as one batched call.
          for (let i = 0, n = -1; i < 20 && n !== this.queue.length; i++) {
            n = this.queue.length;
            await new Promise((r) => setTimeout(r, 1));
          }
        }
        const job = this.queue.shift()!;
        if (job.sample !== undefined) {
          const batch = [job];
          while (this.queue[0]?.sample !== undefined && this.queue[0].sample.policy === job.sample.policy) batch.push(this.queue.shift()!);
          // A group in its members' order (arrival order is a race): the batch the client would run in process.
          const first = new Map<string, number>();
          batch.forEach((j, i) => first.set(j.sample!.group?.id ?? j.futureId, first.get(j.sample!.group?.id ?? j.futureId) ?? i));
          const key = (j: Job) => [first.get(j.sample!.group?.id ?? j.futureId)!, j.sample!.group?.index ?? 0] as const;
          batch.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
          await this.runSamples(batch);
          continue;
        }
        try {
          this.settle(job.futureId, await job.run());
        } catch (e) {
          this.settle(job.futureId, null, e instanceof Error ? e.message : String(e));
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async runSamples(batch: Job[]): Promise<void> {
    const policy = batch[0]!.sample!.policy;
    // Prompt log-probs with one throw-away token (how clients score on a sampler: the SDK's
    // compute_logprobs, our TinkerSnapshot) take one forward pass instead of a prefill plus a score.
    if (policy instanceof EmbeddedBase) {
      const onePass = batch.filter((j) => oneTokenScoring(j.sample!, policy.maxContext));
      if (onePass.length > 0) {
        await this.runScoreAndSampleOne(policy, onePass);
        batch = batch.filter((j) => !onePass.includes(j));
        if (batch.length === 0) return;
      }
    }
    const requests = batch.flatMap((j) => Array.from({ length: j.sample!.n }, (_, i) => ({ ...j.sample!.request, seed: (j.sample!.request.seed + i) >>> 0 })));
    try {
      const samples = await policy.sample(requests);
      const prompts = batch.filter((j) => j.sample!.promptLogprobs);
      const scored = prompts.length === 0 ? [] : await policy.score(prompts.map((j) => ({ tokens: j.sample!.request.prompt, start: 1 })));
      let at = 0, p = 0;
      for (const j of batch) {
        const mine = samples.slice(at, at + j.sample!.n);
        at += j.sample!.n;
        const result: SampleResult = {
          sequences: mine.map((s) => ({ stop_reason: s.finishReason === "stop" ? "stop" : "length", tokens: s.tokens, logprobs: s.logprobs })),
          prompt_logprobs: j.sample!.promptLogprobs ? [null, ...Array.from(scored[p++]!)] : null,
        };
        this.settle(j.futureId, { kind: "sample", value: result });
      }
    } catch (e) {
      for (const j of batch) this.settle(j.futureId, null, e instanceof Error ? e.message : String(e));
    }
  }

  private async runScoreAndSampleOne(policy: EmbeddedBase, batch: Job[]): Promise<void> {
    try {
      const { promptLogprobs, samples } = await policy.scoreAndSampleOne(batch.map((j) => ({ ...j.sample!.request, seed: j.sample!.request.seed >>> 0 })));
      batch.forEach((j, i) => {
        const s = samples[i]!;
        this.settle(j.futureId, { kind: "sample", value: { sequences: [{ stop_reason: s.finishReason === "stop" ? "stop" : "length", tokens: s.tokens, logprobs: s.logprobs }], prompt_logprobs: [null, ...Array.from(promptLogprobs[i]!)] } });
      });
    } catch (e) {
      for (const j of batch) this.settle(j.futureId, null, e instanceof Error ? e.message : String(e));
    }
  }

  /** Waits up to `ms` for future `id`: its state, or null on timeout. */
  async waitFuture(id: string, ms: number): Promise<FutureState | null> {
    const f = this.futures.get(id);
    if (f === undefined) throw new ProtocolError(404, "Future not found");
    if (f.status !== "pending") return f;
    await new Promise<void>((done) => {
      const t = setTimeout(done, ms);
      f.waiters.push(() => {
        clearTimeout(t);
        done();
      });
    });
    return f.status === "pending" ? null : f;
  }
}

// A request that only wants the prompt scored (one sampled token, prompt log-probs, nothing that
// needs the decode loop): one forward pass answers it.
function oneTokenScoring(s: NonNullable<Job["sample"]>, maxContext: number): boolean {
  const r = s.request;
  return s.promptLogprobs && s.n === 1 && r.maxTokens === 1 && r.constraint === undefined && (r.stopStrings?.length ?? 0) === 0 && r.prompt.length < maxContext;
}
