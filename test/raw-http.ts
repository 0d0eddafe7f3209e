/**
 * A raw HTTP client for the servers' fault tests: it writes `chunks` to a TCP socket `gapMs`
 * apart (a slow client, byte by byte if asked) and returns what the server sent until it closed,
 * sent a complete answer (headers and the body they announce), or `waitMs` passed. fetch cannot
 * do this: it neither trickles a request nor shows a server that closes without answering.
 */
import { connect } from "node:net";

/** What the server on 127.0.0.1:`port` answered to `chunks` written `gapMs` apart ("" when it closed first). */
export function rawHttp(port: number, chunks: readonly (string | Buffer)[], gapMs = 0, waitMs = 5_000): Promise<string> {
  return new Promise((ok) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    socket.on("data", (d) => {
      got += d.toString();
      const m = /content-length: (\d+)\r\n[^]*?\r\n\r\n([^]*)$/i.exec(got);
      if (m && Buffer.byteLength(m[2]!) >= Number(m[1])) socket.destroy();
    });
    socket.on("error", () => {});
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on("close", () => {
      clearTimeout(timer);
      ok(got);
    });
    let i = 0;
    const next = () => {
      if (socket.destroyed || i >= chunks.length) return;
      socket.write(chunks[i++]!);
      setTimeout(next, gapMs);
    };
    socket.on("connect", next);
  });
}
