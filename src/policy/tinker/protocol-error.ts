/**
 * The one error type of our Tinker server's protocol layer: an HTTP status and the message a
 * client quotes. The engine and its job queue throw it; `server.ts` turns it into the response.
 */
/** A protocol-level failure: HTTP status and the message the client will quote. */
export class ProtocolError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
