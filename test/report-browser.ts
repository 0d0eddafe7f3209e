/**
 * A headless Chromium driven over the DevTools protocol on pipes (`--remote-debugging-pipe`:
 * file descriptors 3 and 4, JSON messages ending in NUL), so report tests load a page in a real
 * browser without any npm dependency: console messages and uncaught exceptions are collected,
 * an expression is evaluated in the page, and a full-page PNG screenshot is written.
 * Test support only (not part of the library).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Readable, Writable } from "node:stream";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags of a quiet, offline, throwaway browser. */
export const CHROMIUM_FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
];

/** What loading a page produced. */
export type PageVisit<T> = {
  /** Console messages of level error or warning, and uncaught exceptions, as text. */
  readonly errors: string[];
  /** Every console message, as `level: text`. */
  readonly console: string[];
  /** The value of the probe expression (JSON-serialisable). */
  readonly probe: T;
};

type Pending = { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void };

class Cdp {
  private readonly out: Writable;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = "";
  readonly events: { method: string; params: Record<string, unknown>; sessionId?: string }[] = [];
  private readonly waiters: { method: string; resolve: () => void }[] = [];

  constructor(input: Readable, out: Writable) {
    this.out = out;
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf("\0")) >= 0) {
        const text = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        this.dispatch(JSON.parse(text) as Record<string, unknown>);
      }
    });
  }

  private dispatch(msg: Record<string, unknown>): void {
    if (typeof msg["id"] === "number") {
      const p = this.pending.get(msg["id"]);
      if (p === undefined) return;
      this.pending.delete(msg["id"]);
      if (msg["error"]) p.reject(new Error(`CDP error: ${JSON.stringify(msg["error"])}`));
      else p.resolve((msg["result"] ?? {}) as Record<string, unknown>);
      return;
    }
    const method = String(msg["method"]);
    this.events.push({ method, params: (msg["params"] ?? {}) as Record<string, unknown>, ...(typeof msg["sessionId"] === "string" ? { sessionId: msg["sessionId"] } : {}) });
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i]!.method === method) this.waiters.splice(i, 1)[0]!.resolve();
    }
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.out.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + "\0");
    });
  }

  once(method: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    p.then((v) => (clearTimeout(t), resolve(v)), (e: unknown) => (clearTimeout(t), reject(e as Error)));
  });
}

/**
 * Open `htmlPath` in headless Chromium, wait for the load event, evaluate `probe` (an expression
 * whose value is returned), save a full-page screenshot to `screenshot`, and close the browser.
 */
export async function visitPage<T>(htmlPath: string, probe: string, screenshot: string, timeoutMs = 60_000): Promise<PageVisit<T>> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (scripts/setup.sh installs chromium)`);
  const profile = mkdtempSync(join(tmpdir(), "seed-chromium-"));
  const child: ChildProcess = spawn(CHROMIUM, [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank"], {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const cdp = new Cdp(child.stdio[4] as Readable, child.stdio[3] as Writable);
  child.on("exit", (code) => cdp.failAll(new Error(`chromium exited (${code}): ${stderr.slice(-2000)}`)));
  try {
    return await withTimeout((async () => {
      const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true }) as { sessionId: string };
      for (const domain of ["Page", "Runtime", "Log"]) await cdp.send(`${domain}.enable`, {}, sessionId);
      await cdp.send("Emulation.setDeviceMetricsOverride", { width: 1320, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
      const loaded = cdp.once("Page.loadEventFired");
      await cdp.send("Page.navigate", { url: pathToFileURL(htmlPath).href }, sessionId);
      await loaded;
      const evaluated = await cdp.send("Runtime.evaluate", { expression: probe, returnByValue: true }, sessionId) as { result: { value: T }; exceptionDetails?: unknown };
      if (evaluated.exceptionDetails) throw new Error(`the probe threw: ${JSON.stringify(evaluated.exceptionDetails)}`);
      const metrics = await cdp.send("Page.getLayoutMetrics", {}, sessionId) as { cssContentSize?: { width: number; height: number } };
      const size = metrics.cssContentSize ?? { width: 1320, height: 900 };
      const shot = await cdp.send("Page.captureScreenshot", {
        format: "png", captureBeyondViewport: true,
        clip: { x: 0, y: 0, width: Math.ceil(size.width), height: Math.min(16000, Math.ceil(size.height)), scale: 1 },
      }, sessionId) as { data: string };
      writeFileSync(screenshot, Buffer.from(shot.data, "base64"));
      const consoleLines: string[] = [], errors: string[] = [];
      for (const e of cdp.events) {
        if (e.method === "Runtime.consoleAPICalled") {
          const text = ((e.params["args"] as { value?: unknown; description?: string }[]) ?? []).map((a) => String(a.value ?? a.description ?? "")).join(" ");
          consoleLines.push(`${String(e.params["type"])}: ${text}`);
          if (e.params["type"] === "error" || e.params["type"] === "warning" || e.params["type"] === "assert") errors.push(text);
        } else if (e.method === "Runtime.exceptionThrown") {
          errors.push(`exception: ${JSON.stringify(e.params["exceptionDetails"])}`);
        } else if (e.method === "Log.entryAdded") {
          const entry = e.params["entry"] as { level: string; text: string; url?: string };
          consoleLines.push(`${entry.level}: ${entry.text}`);
          if (entry.level === "error" || entry.level === "warning") errors.push(`${entry.text}${entry.url ? ` (${entry.url})` : ""}`);
        }
      }
      await cdp.send("Browser.close").catch(() => undefined);
      return { errors, console: consoleLines, probe: evaluated.result.value };
    })(), timeoutMs, `loading ${htmlPath} in chromium`);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(null)));
    // Chromium's helper processes (crashpad, zygote) can still write into the profile for a moment
    // after the browser exits; retry the removal, and never fail a page check over a temp folder.
    try { rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }); } catch { /* left in tmpdir */ }
  }
}

/**
 * The probe of a report page: every SVG plot with its point count and series counts, the
 * tables' row counts, sample trajectories with gate colours, and the page's outgoing resources.
 */
export const REPORT_PROBE = `(() => {
  const plots = [...document.querySelectorAll("svg[data-plot]")].map((s) => ({
    id: s.getAttribute("data-plot"),
    points: Number(s.getAttribute("data-points")),
    series: [...s.querySelectorAll("g[data-series]")].map((g) => Number(g.getAttribute("data-points"))),
    lines: s.querySelectorAll("polyline").length,
    width: s.getBoundingClientRect().width,
  }));
  const tables = [...document.querySelectorAll("table")].map((t) => t.rows.length);
  const trajectories = document.querySelectorAll(".traj").length;
  const gated = document.querySelectorAll(".traj .tok").length;
  const external = [...document.querySelectorAll("[src],link[href],script")].length;
  return { title: document.title, plots, tables, trajectories, gated, external, h2: [...document.querySelectorAll("h2")].map((h) => h.textContent) };
})()`;
