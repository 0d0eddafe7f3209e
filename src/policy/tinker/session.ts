/**
 * A Tinker session: `create_session`, then `session_heartbeat` every few seconds in the
 * background (the SDK beats every 10 s; SkyRL calls a session stale after 300 s without one).
 * The timer is unref'd, so it never keeps the process alive. A heartbeat the server refuses
 * with 404 means the server dropped the session (a restart, a stale sweep): the session is
 * marked lost and the next operation reports it, instead of a stack trace at some later call.
 */
import { TinkerError, type Transport } from "./transport.ts";

/** The protocol version this client speaks (protobuf `forward_backward`, as SDK 0.25). */
export const PROTOCOL_SDK_VERSION = "0.25.0";

/** A live session with its heartbeat. */
export class Session {
  readonly id: string;
  private timer: NodeJS.Timeout | null = null;
  private lostWith: string | null = null;
  private readonly t: Transport;
  private constructor(t: Transport, id: string) {
    this.t = t;
    this.id = id;
  }

  /** Opens a session and starts its heartbeat (every `heartbeatMs`, default 10 s). */
  static async open(t: Transport, options: { heartbeatMs?: number; tags?: readonly string[] } = {}): Promise<Session> {
    const reply = await t.post("create_session", { json: { tags: [...(options.tags ?? ["seed"])], user_metadata: {}, sdk_version: PROTOCOL_SDK_VERSION, type: "create_session" } });
    const id = "json" in reply ? (reply.json as { session_id?: unknown } | null)?.session_id : undefined;
    if (typeof id !== "string") throw new TinkerError(`POST ${t.baseUrl}/api/v1/create_session`, 200, "the answer has no session_id");
    const s = new Session(t, id);
    s.timer = setInterval(() => void s.beat(), options.heartbeatMs ?? 10_000);
    s.timer.unref();
    return s;
  }

  /** One heartbeat; a 404 marks the session lost. Network trouble is left to the next operation. */
  async beat(): Promise<void> {
    try {
      await this.t.post("session_heartbeat", { json: { session_id: this.id, type: "session_heartbeat" } }, { retryable: () => false });
    } catch (e) {
      if (e instanceof TinkerError && (e.status === 404 || e.status === 410)) this.lostWith = e.detail;
    }
  }

  /** @throws TinkerError when the server has dropped this session */
  check(): void {
    if (this.lostWith !== null) throw new TinkerError(`${this.t.baseUrl}`, 404, `the server dropped session ${this.id} (${this.lostWith}); run the same command again to resume from the last checkpoint`);
  }

  /** Stops the heartbeat. */
  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
