/**
 * Building blocks of the HTML report: the self-contained page (inline CSS, no script, no
 * external resource), HTML tables of estimates, and sample trajectories with the skill written
 * about them and each sampled token's gate shown as a colour over the response text. Pure string
 * functions; `report.ts` decides what goes on the page.
 */
import type { Tokenizer } from "../policy/policy.ts";
import type { Estimate } from "./breakdown.ts";
import type { SampleTrajectory } from "../run/run-dir.ts";
import { escapeXml } from "./svg-plot.ts";
import { formatEstimate } from "./tables.ts";

/** Escape text for HTML. */
export const esc = escapeXml;

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1280px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}.meta{color:#555}.note{color:#555;font-size:12.5px;margin:4px 0 10px}
table{border-collapse:collapse;margin:6px 0;background:#fff;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}th{background:#f0f0f0}
td:first-child,th:first-child{text-align:left}td.text{text-align:left;white-space:normal}
.plots{display:flex;flex-wrap:wrap;gap:12px}.plot{background:#fff;border:1px solid #ddd}
.plot-title{font-size:13px;font-weight:600}.tick{font-size:10.5px;fill:#444}.axis-label{font-size:11px;fill:#333}
.legend{font-size:11px}.grid{stroke:#eee}.axis{stroke:#888}.plot-frame{fill:none;stroke:#bbb}.no-data{fill:#b00;font-size:13px}
.verdict{background:#fff;border-left:4px solid #0072B2;padding:8px 12px;margin:10px 0;white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:13px}
.traj{background:#fff;border:1px solid #ddd;margin:10px 0;padding:8px 12px}
.traj .hdr{font-weight:600}.skill{background:#f3f7ff;border:1px dashed #9ab;padding:4px 8px;margin:6px 0;white-space:pre-wrap}
.turn{margin:4px 0;font-family:ui-monospace,monospace;font-size:12.5px}.obs{color:#555;white-space:pre-wrap}
.resp{white-space:pre-wrap;word-break:break-word}.tok{border-radius:2px}.bad{color:#b00}.ok{color:#070}
.scale span{display:inline-block;padding:0 6px;font-family:ui-monospace,monospace;font-size:12px}
details>summary{cursor:pointer;color:#0072B2}
`;

/** A whole HTML page around `body` (already HTML). */
export function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>\n`;
}

/** An HTML table of text cells (first column left-aligned). */
export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[], cls = ""): string {
  const head = `<tr>${header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("");
  return `<table${cls ? ` class="${cls}"` : ""}>${head}${body}</table>`;
}

/** An estimate as table text (percentages). */
export function cell(e: Estimate | undefined): string {
  return formatEstimate(e);
}

/** Background colour of a gate: red below 0.5 (the teacher disagrees), blue above, white at 0.5. */
export function gateColor(g: number): string {
  if (!Number.isFinite(g)) return "transparent";
  const t = Math.max(-1, Math.min(1, (g - 0.5) * 2));
  const [r, gg, b] = t < 0 ? [255, Math.round(255 + 120 * t), Math.round(255 + 120 * t)] : [Math.round(255 - 140 * t), Math.round(255 - 80 * t), 255];
  return `rgb(${r},${gg},${b})`;
}

/** The colour scale legend for gates. */
export function gateScale(): string {
  return `<div class="scale">gate: ${[0, 0.25, 0.5, 0.75, 1].map((g) => `<span style="background:${gateColor(g)}">${g.toFixed(2)}</span>`).join("")}</div>`;
}

/**
 * Pieces of `text` aligned with `gates` (one per sampled token): exact when the tokenizer
 * re-encodes the response to as many ids as there are gates (or one fewer: the stop token the
 * response text omits), otherwise proportional character spans, flagged as approximate.
 */
export function gatePieces(text: string, gates: readonly number[], tokenizer: Tokenizer | null): { pieces: { text: string; gate: number }[]; exact: boolean } {
  if (gates.length === 0) return { pieces: [{ text, gate: Number.NaN }], exact: true };
  if (tokenizer !== null) {
    const ids = tokenizer.encode(text);
    if (ids.length === gates.length || ids.length + 1 === gates.length) {
      const pieces = ids.map((id, i) => ({ text: tokenizer.decode([id]), gate: gates[i]! }));
      if (pieces.map((p) => p.text).join("") === text) {
        if (ids.length + 1 === gates.length) pieces.push({ text: "⏎", gate: gates[ids.length]! });
        return { pieces, exact: true };
      }
    }
  }
  const pieces: { text: string; gate: number }[] = [];
  const n = gates.length;
  for (let i = 0; i < n; i++) {
    const a = Math.floor((i * text.length) / n), b = Math.floor(((i + 1) * text.length) / n);
    if (b > a) pieces.push({ text: text.slice(a, b), gate: gates[i]! });
  }
  return { pieces, exact: false };
}

/** The response of one turn with each token's gate as its background colour. */
export function gatedResponse(text: string, gates: readonly number[], tokenizer: Tokenizer | null): { html: string; exact: boolean } {
  const { pieces, exact } = gatePieces(text, gates, tokenizer);
  const html = pieces
    .map((p) => (Number.isFinite(p.gate) ? `<span class="tok" style="background:${gateColor(p.gate)}" title="gate ${p.gate.toFixed(3)}">${esc(p.text)}</span>` : esc(p.text)))
    .join("");
  return { html, exact };
}

/** One sample trajectory: task, outcome, the teacher's skill, and every turn with gated response text. */
export function trajectoryHtml(s: SampleTrajectory, tokenizer: Tokenizer | null, maxTurns = 12): string {
  const outcome = s.success ? `<span class="ok">success</span>` : `<span class="bad">failure</span>`;
  // Gates of a trajectory without a valid skill were never applied (v_τ = 0 masks them).
  const gates = s.skillValid === 1 ? s.gates : [];
  const gateCount = gates.reduce((n, g) => n + g.length, 0);
  const skill = s.skill.trim() === ""
    ? `<div class="note">no skill for this trajectory (its teacher saw the plain context, or the method has no teacher)</div>`
    : `<div class="skill"><b>skill${s.skillValid ? "" : " (invalid: this trajectory's distillation term was masked)"}:</b> ${esc(s.skill)}</div>`;
  let approx = false;
  const turns = s.turns.slice(0, maxTurns).map((t, i) => {
    const g = gatedResponse(t.responseText, gates[i] ?? [], tokenizer);
    approx ||= !g.exact;
    const obs = t.observation.length > 240 ? `${t.observation.slice(0, 240)}…` : t.observation;
    return `<div class="turn"><div class="obs">${i + 1}. ${esc(obs)}</div><div class="resp">${g.html}${t.valid ? "" : ` <span class="bad">(invalid)</span>`}</div></div>`;
  }).join("");
  const more = s.turns.length > maxTurns ? `<div class="note">… ${s.turns.length - maxTurns} more turn(s)</div>` : "";
  return `<div class="traj" data-gates="${gateCount}"><div class="hdr">update ${s.update} · group ${s.groupIndex} member ${s.memberIndex} · ${esc(s.task)} · ${outcome} · ${s.turns.length} turns</div>${skill}` +
    `${turns}${more}${approx ? `<div class="note">token boundaries approximate (the response did not re-encode to the sampled length)</div>` : ""}</div>`;
}
