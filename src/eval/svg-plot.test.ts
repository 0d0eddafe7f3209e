import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeXml, finitePoints, linePlot, niceTicks } from "./svg-plot.ts";

test("nice ticks are round and cover the range", () => {
  assert.deepEqual(niceTicks(0, 1, 4), [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(niceTicks(1, 12, 5), [2.5, 5, 7.5, 10]);
  assert.deepEqual(niceTicks(0, 150, 5), [0, 50, 100, 150]);
  assert.deepEqual(niceTicks(3, 3), [3]);
  assert.deepEqual(niceTicks(Number.NaN, 1), []);
});

test("a plot records its points; non-finite values become gaps, not zeros", () => {
  const svg = linePlot([
    { name: "seed", x: [1, 2, 3, 4, 5], y: [0.1, 0.2, Number.NaN, 0.4, 0.5] },
    { name: "grpo", x: [1, 2, 3], y: [0.3, 0.3, 0.3], low: [0.2, 0.2, 0.2], high: [0.4, 0.4, 0.4] },
  ], { id: "success", title: "Success", xLabel: "update", yMin: 0, yMax: 1 });
  assert.match(svg, /^<svg [^>]*data-plot="success" data-points="7"/);
  assert.match(svg, /data-series="seed" data-points="4"/);
  assert.match(svg, /data-series="grpo" data-points="3"/);
  // The NaN splits the seed line in two polylines; grpo is one line plus its band.
  assert.equal((svg.match(/<polyline/g) ?? []).length, 3);
  assert.equal((svg.match(/<polygon/g) ?? []).length, 1);
  assert.equal((svg.match(/<circle/g) ?? []).length, 7);
  assert.doesNotMatch(svg, /NaN|Infinity|undefined/);
  // Integer x values get integer ticks only.
  assert.doesNotMatch(svg, />1\.5</);
});

test("an empty plot says so and has zero points; text is escaped", () => {
  const svg = linePlot([{ name: "<b>&", x: [1], y: [Number.NaN] }], { id: "x", title: "a<b" });
  assert.match(svg, /data-points="0"/);
  assert.match(svg, /no data/);
  assert.match(svg, /a&lt;b/);
  assert.doesNotMatch(svg, /<b>&/);
  assert.equal(escapeXml(`"'<>&`), "&quot;&#39;&lt;&gt;&amp;");
  assert.equal(finitePoints({ name: "s", x: [1, 2, Number.NaN], y: [1, Number.POSITIVE_INFINITY, 3] }), 1);
});
