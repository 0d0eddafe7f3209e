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
  /** Milliseconds now (tests pass a fake clock). @default performance.now */
  clock?: () => number;
  /**
   * Expected seconds per unit before any unit has been timed (e.g. units weighted in reference
   * seconds: 1). Without it the ETA is unknown until the first timed unit. @default none
   */
  priorSecondsPerUnit?: number;
  /** Print `done/total` after the percentage (off when units are cost weights, not items). @default true */
  showCount?: boolean;
};

/** `m:ss` or `h:mm:ss` (`--:--` for an unknown or negative time), as the bars print it. */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return "--:--";
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60);
  const mm = String(m).padStart(2, "0"), ss = String(sec).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * A progress bar with elapsed time, ETA and a free-form status (e.g. `loss 1.234`).
 *
 * The ETA is (units left) × (seconds per unit), the rate measured over the units actually worked
 * (`tick`), minus the time already spent on the unit in progress. Units that cost nothing
 * (a cached stage) are `skip`ped: they fill the bar but neither their count nor their time enters
 * the rate. Units need not be equal: weight them by expected cost (the demo counts reference
 * seconds), so a long first stage does not make every later one look as long.
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
  private readonly clock: () => number;
  private readonly prior: number;
  private readonly showCount: boolean;
  private readonly start: number;
  private current = 0;
  private status = "";
  private lastDraw = 0;
  /** Units worked (ticked) and the milliseconds they took. */
  private worked = 0;
  private workedMs = 0;
  /** When the last tick or skip happened (the unit in progress started then). */
  private lastEvent: number;

  constructor(label: string, total: number, options: ProgressOptions = {}) {
    this.label = label;
    this.total = Math.max(0, total);
    this.stream = options.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
    this.logEvery = options.logEvery ?? 10;
    this.silent = options.silent ?? false;
    this.clock = options.clock ?? (() => performance.now());
    this.prior = options.priorSecondsPerUnit ?? Number.NaN;
    this.showCount = options.showCount ?? true;
    this.start = this.clock();
    this.lastEvent = this.start;
  }

  /** Advance by `n` worked units (their time enters the rate) and optionally replace the status text. */
  tick(n = 1, status?: string): void {
    const now = this.clock();
    this.worked += n;
    this.workedMs += now - this.lastEvent;
    this.lastEvent = now;
    this.current = Math.min(this.total, this.current + n);
    if (status !== undefined) this.status = status;
    this.draw(false);
  }

  /** Advance by `n` units that cost nothing (cached, resumed): the bar moves, the rate does not. */
  skip(n = 1, status?: string): void {
    this.lastEvent = this.clock();
    this.current = Math.min(this.total, this.current + n);
    if (status !== undefined) this.status = status;
    this.draw(false);
  }

  /** Seconds left: NaN while nothing has been timed and there is no prior rate. */
  eta(): number {
    const rate = this.worked > 0 ? this.workedMs / 1000 / this.worked : this.prior;
    const left = (this.total - this.current) * rate - (this.clock() - this.lastEvent) / 1000;
    return Number.isFinite(left) ? Math.max(0, left) : Number.NaN;
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
    return (this.clock() - this.start) / 1000;
  }

  private line(): string {
    const elapsed = this.elapsed();
    const frac = this.total > 0 ? this.current / this.total : 1;
    const eta = this.eta();
    const width = 24;
    const filled = Math.round(frac * width);
    const bar = "#".repeat(filled) + "-".repeat(width - filled);
    const pct = `${(frac * 100).toFixed(0).padStart(3)}%`;
    const count = this.showCount ? ` ${this.current}/${this.total}` : "";
    return `${this.label} [${bar}] ${pct}${count} ${formatSeconds(elapsed)} eta ${formatSeconds(eta)}${this.status ? "  " + this.status : ""}`;
  }

  private draw(final: boolean): void {
    if (this.silent) return;
    const now = this.clock();
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
