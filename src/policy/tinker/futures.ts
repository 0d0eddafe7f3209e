/**
 * Futures: every queued Tinker operation answers `{request_id}`, and the result comes from
 * `POST /api/v1/retrieve_future {request_id}`. The server long-polls; while the result is not
 * ready it answers `{"type": "try_again"}` (hosted Tinker) or HTTP 408 after its poll window
 * (SkyRL, 300 s); both mean "ask again", up to an overall deadline. A failed operation comes back
 * as an error status whose message is reported under the operation's own name.
 */
import { decodeForwardBackwardOutput, decodeSampleResponse } from "./proto.ts";
import { TinkerError, type Reply, type Transport } from "./transport.ts";
import type { ForwardBackwardOutput, SampleResult } from "./wire.ts";

/** How a result is decoded when it comes back as protobuf. */
export type ResultKind = "json" | "forward" | "sample";

/** The decoded result of a future. */
export type FutureResult<K extends ResultKind> = K extends "forward" ? ForwardBackwardOutput : K extends "sample" ? SampleResult : unknown;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function isTryAgain(j: unknown): boolean {
  return typeof j === "object" && j !== null && (j as { type?: unknown }).type === "try_again";
}

/**
 * Waits for future `requestId` of operation `op` and decodes its result.
 * @throws TinkerError naming `op` (not retrieve_future) with the server's message
 */
export async function awaitFuture<K extends ResultKind>(t: Transport, op: string, requestId: string, kind: K, options: { deadlineMs?: number; proto?: boolean } = {}): Promise<FutureResult<K>> {
  const deadline = Date.now() + (options.deadlineMs ?? 30 * 60_000);
  const key = t.newKey();
  let pause = 20;
  for (;;) {
    let reply: Reply;
    try {
      reply = await t.post("retrieve_future", { json: { request_id: requestId } }, { key, accept: options.proto === false ? "json" : "proto", retryable: (s) => s === 408 });
    } catch (e) {
      if (e instanceof TinkerError && e.status === 408 && Date.now() < deadline) continue;
      if (e instanceof TinkerError) throw new TinkerError(`${op} (request ${requestId})`, e.status, e.detail);
      throw e;
    }
    if ("proto" in reply) {
      if (kind === "forward") return decodeForwardBackwardOutput(reply.proto) as FutureResult<K>;
      if (kind === "sample") return decodeSampleResponse(reply.proto) as FutureResult<K>;
      throw new TinkerError(`${op} (request ${requestId})`, 200, "answered with protobuf where JSON was expected");
    }
    if (isTryAgain(reply.json)) {
      if (Date.now() > deadline) throw new TinkerError(`${op} (request ${requestId})`, 0, "the result did not come within the deadline");
      await sleep(pause);
      pause = Math.min(1000, pause * 2);
      continue;
    }
    const j = reply.json as { error?: unknown } | null;
    if (j !== null && typeof j === "object" && typeof j.error === "string" && Object.keys(j).length <= 3) throw new TinkerError(`${op} (request ${requestId})`, 200, j.error);
    return reply.json as FutureResult<K>;
  }
}
