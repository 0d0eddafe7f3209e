/**
 * A tiny inline-SVG line plot for reports: several series on shared axes, "nice" ticks, an
 * optional shaded band per series (an interval over seeds), a legend, and points drawn where a
 * series has few of them. No chart library. Every plot and series carries `data-*` attributes
 * (`data-plot`, `data-series`, `data-points`) so a browser test can check that it holds data.
 * Non-finite values are gaps, not zeros.
 */

/** One line of a plot. */
export type Series = {
  readonly name: string;
  /** x values (e.g. update numbers), same length as `y`. */
  readonly x: readonly number[];
  readonly y: readonly number[];
  /** Optional band (same length): lower and upper bounds. */
  readonly low?: readonly number[];
  readonly high?: readonly number[];
  /** CSS colour; default from the palette. */
  readonly color?: string;
};

/** Options of {@link linePlot}. */
export type PlotOptions = {
  readonly title: string;
  /** Identifier written to `data-plot` (and used for the clip path). */
  readonly id: string;
  readonly xLabel?: string;
  readonly yLabel?: string;
  /** Fixed y range; default from the data (with 0 included when `zeroBased`). */
  readonly yMin?: number;
  readonly yMax?: number;
  /** @default false */
  readonly zeroBased?: boolean;
  /** @default 420 */
  readonly width?: number;
  /** @default 240 */
  readonly height?: number;
};

/** Colour-blind-safe palette (Okabe-Ito). */
export const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"] as const;

/** Escape text for XML/HTML content and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Up to ~`count` round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) return [];
  if (hi === lo) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function fmt(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1000 || a < 0.01) return v.toExponential(1);
  return Number(v.toPrecision(3)).toString();
}

/** Number of finite (x, y) points of a series. */
export function finitePoints(s: Series): number {
  let n = 0;
  for (let i = 0; i < s.x.length; i++) if (Number.isFinite(s.x[i]!) && Number.isFinite(s.y[i]!)) n++;
  return n;
}

/**
 * An `<svg>` element (as a string) plotting `series`. A plot whose series hold no finite point is
 * still drawn, with "no data" in it and `data-points="0"`, so a missing metric is visible.
 */
export function linePlot(series: readonly Series[], options: PlotOptions): string {
  const W = options.width ?? 420, H = options.height ?? 240;
  const m = { left: 52, right: 12, top: 26, bottom: 38 + 16 * Math.ceil(series.length / 3) };
  const pw = W - m.left - m.right, ph = H - m.top - m.bottom;
  const xs: number[] = [], ys: number[] = [];
  for (const s of series) {
    for (let i = 0; i < s.x.length; i++) {
      if (!Number.isFinite(s.x[i]!) || !Number.isFinite(s.y[i]!)) continue;
      xs.push(s.x[i]!);
      ys.push(s.y[i]!);
      for (const b of [s.low?.[i], s.high?.[i]]) if (b !== undefined && Number.isFinite(b)) ys.push(b);
    }
  }
  const total = series.reduce((n, s) => n + finitePoints(s), 0);
  let x0 = Math.min(...xs), x1 = Math.max(...xs);
  let y0 = options.yMin ?? Math.min(...ys), y1 = options.yMax ?? Math.max(...ys);
  if (options.zeroBased && options.yMin === undefined) y0 = Math.min(0, y0);
  if (!Number.isFinite(x0)) (x0 = 0), (x1 = 1);
  if (!Number.isFinite(y0) || !Number.isFinite(y1)) (y0 = 0), (y1 = 1);
  if (x1 === x0) (x0 -= 0.5), (x1 += 0.5);
  if (y1 === y0) {
    const pad = Math.abs(y0) > 0 ? Math.abs(y0) * 0.1 : 0.5;
    y0 -= pad;
    y1 += pad;
  }
  const sx = (x: number) => m.left + ((x - x0) / (x1 - x0)) * pw;
  const sy = (y: number) => m.top + ph - ((y - y0) / (y1 - y0)) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="plot" data-plot="${escapeXml(options.id)}" data-points="${total}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeXml(options.title)}">`);
  out.push(`<title>${escapeXml(options.title)}</title>`);
  out.push(`<text x="${W / 2}" y="16" text-anchor="middle" class="plot-title">${escapeXml(options.title)}</text>`);
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" class="plot-frame"/>`);
  for (const t of niceTicks(y0, y1, 4)) {
    const y = sy(t).toFixed(1);
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${y}" y2="${y}" class="grid"/><text x="${m.left - 5}" y="${y}" dy="0.32em" text-anchor="end" class="tick">${fmt(t)}</text>`);
  }
  const integerX = xs.every((x) => Number.isInteger(x));
  for (const t of niceTicks(x0, x1, 5).filter((v) => !integerX || Number.isInteger(v))) {
    const x = sx(t).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${m.top + ph}" y2="${m.top + ph + 4}" class="axis"/><text x="${x}" y="${m.top + ph + 15}" text-anchor="middle" class="tick">${fmt(t)}</text>`);
  }
  if (options.xLabel) out.push(`<text x="${m.left + pw / 2}" y="${m.top + ph + 29}" text-anchor="middle" class="axis-label">${escapeXml(options.xLabel)}</text>`);
  if (options.yLabel) out.push(`<text transform="translate(12 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" class="axis-label">${escapeXml(options.yLabel)}</text>`);
  if (total === 0) out.push(`<text x="${m.left + pw / 2}" y="${m.top + ph / 2}" text-anchor="middle" class="no-data">no data</text>`);
  series.forEach((s, k) => {
    const color = s.color ?? PALETTE[k % PALETTE.length]!;
    const n = finitePoints(s);
    out.push(`<g class="series" data-series="${escapeXml(s.name)}" data-points="${n}">`);
    if (s.low !== undefined && s.high !== undefined) {
      const idx = s.x.map((_, i) => i).filter((i) => Number.isFinite(s.x[i]!) && Number.isFinite(s.low![i]!) && Number.isFinite(s.high![i]!));
      if (idx.length > 1) {
        const up = idx.map((i) => `${sx(s.x[i]!).toFixed(1)},${sy(s.high![i]!).toFixed(1)}`);
        const dn = idx.reverse().map((i) => `${sx(s.x[i]!).toFixed(1)},${sy(s.low![i]!).toFixed(1)}`);
        out.push(`<polygon points="${[...up, ...dn].join(" ")}" fill="${color}" fill-opacity="0.15" stroke="none"/>`);
      }
    }
    // Gaps at non-finite values: one polyline per finite run.
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1) out.push(`<polyline points="${run.join(" ")}" fill="none" stroke="${color}" stroke-width="1.8"/>`);
      run = [];
    };
    for (let i = 0; i < s.x.length; i++) {
      if (Number.isFinite(s.x[i]!) && Number.isFinite(s.y[i]!)) run.push(`${sx(s.x[i]!).toFixed(1)},${sy(s.y[i]!).toFixed(1)}`);
      else flush();
    }
    flush();
    if (n <= 40) {
      for (let i = 0; i < s.x.length; i++) {
        if (Number.isFinite(s.x[i]!) && Number.isFinite(s.y[i]!)) out.push(`<circle cx="${sx(s.x[i]!).toFixed(1)}" cy="${sy(s.y[i]!).toFixed(1)}" r="2.4" fill="${color}"><title>${escapeXml(`${s.name}: x=${fmt(s.x[i]!)}, y=${fmt(s.y[i]!)}`)}</title></circle>`);
      }
    }
    out.push("</g>");
    const lx = m.left + (k % 3) * (pw / 3), ly = H - 8 - 16 * (Math.ceil(series.length / 3) - 1 - Math.floor(k / 3));
    out.push(`<rect x="${lx}" y="${ly - 8}" width="10" height="10" fill="${color}"/><text x="${lx + 14}" y="${ly}" class="legend">${escapeXml(s.name)}</text>`);
  });
  out.push("</svg>");
  return out.join("");
}
