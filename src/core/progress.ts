/**
 * Progress bars for long work (training, evaluation, data checks), drawn on stderr so that
 * `--json` output on stdout stays clean. On a terminal the bar redraws in place at most ~10 times
 * a second; elsewhere (CI logs, pipes) it prints a plain line every `logEvery` seconds.
 */

/** Options of a progress bar. */
export type ProgressOptions = {
  /** Stream to draw on. @default process.stderr */
  stream?: NodeJS.WriteStream;
  /** Seconds between plain-text lines when the stream is not a TTY. @default 10 */
  logEvery?: number;
  /** Draw nothing (for `--quiet` and tests). @default false */
  silent?: boolean;
};

function formatSeconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return "--:--";
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60);
  const mm = String(m).padStart(2, "0"), ss = String(sec).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * A progress bar with elapsed time, ETA and a free-form status (e.g. `loss 1.234`).
 * @example
 * const bar = new Progress("stage0", steps);
 * for (let i = 0; i < steps; i++) { ...; bar.tick(1, `loss ${loss.toFixed(3)}`); }
 * bar.done();
 */
export class Progress {
  private readonly label: string;
  private readonly total: number;
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly logEvery: number;
  private readonly silent: boolean;
  private readonly start = performance.now();
  private current = 0;
  private status = "";
  private lastDraw = 0;

  constructor(label: string, total: number, options: ProgressOptions = {}) {
    this.label = label;
    this.total = Math.max(0, total);
    this.stream = options.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
    this.logEvery = options.logEvery ?? 10;
    this.silent = options.silent ?? false;
  }

  /** Advance by `n` and optionally replace the status text. */
  tick(n = 1, status?: string): void {
    this.current = Math.min(this.total, this.current + n);
    if (status !== undefined) this.status = status;
    this.draw(false);
  }

  /** Replace the status text without advancing. */
  note(status: string): void {
    this.status = status;
    this.draw(false);
  }

  /** Finish the bar (prints a final line). */
  done(status?: string): void {
    if (status !== undefined) this.status = status;
    this.draw(true);
  }

  /** Seconds since the bar was created. */
  elapsed(): number {
    return (performance.now() - this.start) / 1000;
  }

  private line(): string {
    const elapsed = this.elapsed();
    const frac = this.total > 0 ? this.current / this.total : 1;
    const eta = this.current > 0 ? (elapsed / this.current) * (this.total - this.current) : NaN;
    const width = 24;
    const filled = Math.round(frac * width);
    const bar = "#".repeat(filled) + "-".repeat(width - filled);
    const pct = `${(frac * 100).toFixed(0).padStart(3)}%`;
    return `${this.label} [${bar}] ${pct} ${this.current}/${this.total} ${formatSeconds(elapsed)} eta ${formatSeconds(eta)}${this.status ? "  " + this.status : ""}`;
  }

  private draw(final: boolean): void {
    if (this.silent) return;
    const now = performance.now();
    if (this.tty) {
      if (!final && now - this.lastDraw < 100) return;
      this.lastDraw = now;
      const cols = this.stream.columns ?? 120;
      this.stream.write("\r" + this.line().slice(0, cols - 1).padEnd(cols - 1) + (final ? "\n" : ""));
    } else if (final || now - this.lastDraw >= this.logEvery * 1000) {
      this.lastDraw = now;
      this.stream.write(this.line() + "\n");
    }
  }
}
