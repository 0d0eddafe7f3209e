import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregate } from "./aggregate.ts";
import type { Breakdown } from "./breakdown.ts";
import { armDifferences, experimentMarkdown, experimentSummary, type ArmResults, type ExperimentData } from "./experiment-results.ts";
import type { EvalRecord, RunData } from "./run-data.ts";
import { compareArms } from "./demo.ts";

const TYPES = ["Pick", "Look"];

/** One evaluation of 2 x 20 games: `wins[type]` of each type's games won, the first ones. */
function record(wins: Record<string, number>, withOutcomes: boolean): EvalRecord {
  const groups = TYPES.flatMap((t) => Array(20).fill(t) as string[]);
  const outcomes = TYPES.flatMap((t) => Array.from({ length: 20 }, (_, i) => (i < wins[t]! ? 1 : 0)));
  const e = (v: number) => ({ value: v, low: v, high: v, n: 20, interval: "wilson" as const });
  const rate = (t: string) => wins[t]! / 20;
  const b: Breakdown = { env: "alfworld", split: "valid_seen", episodes: 40, columns: [...TYPES, "All"], headline: "All", counts: { Pick: 20, Look: 20 },
    metrics: { Pick: e(rate("Pick")), Look: e(rate("Look")), All: e((rate("Pick") + rate("Look")) / 2) } };
  return { ...b, update: 5, success_rate: 0, mean_length: 0, valid_action_rate: 1, seconds: 1,
    ...(withOutcomes ? { outcomes, task_groups: groups, task_ids: groups.map((g, i) => `${g}/${i}`) } : {}) };
}

function arm(name: string, preset: string, perSeed: Record<string, number>[], withOutcomes = true): ArmResults {
  const runs = perSeed.map((w, i) => ({ dir: `/x/${name}/s${i + 1}`, name, config: { run: { seed: i + 1 } }, metrics: [], samples: [], evals: { valid_seen: record(w, withOutcomes) }, tokenizerPath: null }) as unknown as RunData);
  const recs = runs.map((r) => r.evals["valid_seen"]!);
  return { name, slug: name, preset, runs, seeds: runs.map((_, i) => i + 1), skipped: [], gateValue: [], secondsPerUpdate: {},
    tieRate: { value: Number.NaN, low: Number.NaN, high: Number.NaN, n: 0, interval: "none" },
    evals: { valid_seen: aggregate(recs, withOutcomes ? recs.map((r) => ({ outcomes: r["outcomes"] as number[], groups: r["task_groups"] as string[] })) : undefined) } };
}

function experiment(arms: ArmResults[]): ExperimentData {
  return { dir: "/x", name: "fixture", summary: "", question: "", table: "results", splits: ["valid_seen"], arms, manifest: null };
}

test("SEED − each arm: paired over seeds, widened by the seed-and-game bootstrap, with what the design resolves", () => {
  // SEED wins 12 + 12 of 20 in every seed, GRPO 6 + 6, Vanilla 11/12/13 per type: three seeds agreeing exactly.
  const seed = arm("SEED", "seed", [{ Pick: 12, Look: 12 }, { Pick: 12, Look: 12 }, { Pick: 12, Look: 12 }]);
  const grpo = arm("GRPO", "grpo", [{ Pick: 6, Look: 6 }, { Pick: 6, Look: 6 }, { Pick: 6, Look: 6 }]);
  const vanilla = arm("Vanilla", "vanilla", [{ Pick: 11, Look: 11 }, { Pick: 12, Look: 12 }, { Pick: 13, Look: 13 }]);
  const data = experiment([seed, grpo, vanilla]);
  const rows = armDifferences(data);
  assert.deepEqual(rows.map((r) => r.against), ["GRPO", "Vanilla"]);
  const g = rows[0]!.difference, v = rows[1]!.difference;
  assert.ok(Math.abs(g.value - 0.3) < 1e-12);
  // The per-seed differences are identical (t-interval of zero width); the games still vary.
  assert.equal(g.interval, "t+bootstrap");
  assert.ok(g.low > 0 && g.low < 0.3 && g.high > 0.3, `[${g.low}, ${g.high}]`);
  assert.ok(g.power.resolvable > 0.05, "agreeing seeds do not make a design that resolves everything");
  assert.ok(Math.abs(v.value) < 1e-12 && v.low < 0 && v.high > 0);
  assert.ok(v.power.detectable80 > v.power.resolvable);
  const md = experimentMarkdown(data);
  assert.match(md, /## SEED − each arm/);
  assert.match(md, /\| GRPO \| \+30\.0 \[\+[0-9.]+, \+[0-9.]+\] \| 3 \| SEED better \|/);
  assert.match(md, /\| Vanilla \| [+−]0\.0 \[−[0-9.]+, \+[0-9.]+\] \| 3 \| not resolved \|/);
  assert.match(md, /bootstrap over seeds and the games within each task type/);
  const json = experimentSummary(data)["differences"] as { against: string; resolvable: number }[];
  assert.deepEqual(json.map((d) => d.against), ["GRPO", "Vanilla"]);
  assert.ok(json.every((d) => d.resolvable > 0));
});

test("records without per-game outcomes keep the t-interval over seeds; one seed gives no difference row", () => {
  const seed = arm("SEED", "seed", [{ Pick: 12, Look: 12 }, { Pick: 10, Look: 14 }, { Pick: 12, Look: 10 }], false);
  const grpo = arm("GRPO", "grpo", [{ Pick: 6, Look: 6 }, { Pick: 8, Look: 6 }, { Pick: 6, Look: 8 }], false);
  const rows = armDifferences(experiment([seed, grpo]));
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.difference.interval, "t");
  assert.equal(armDifferences(experiment([arm("SEED", "seed", [{ Pick: 1, Look: 1 }]), arm("GRPO", "grpo", [{ Pick: 1, Look: 1 }])])).length, 0);
  assert.equal(armDifferences(experiment([grpo])).length, 0, "no SEED arm, no differences");
});

test("the demo's verdict over 3 seeds uses the same widened interval", () => {
  const seed = arm("SEED", "seed", [{ Pick: 12, Look: 12 }, { Pick: 12, Look: 12 }, { Pick: 12, Look: 12 }]);
  const grpo = arm("GRPO", "grpo", [{ Pick: 6, Look: 6 }, { Pick: 6, Look: 6 }, { Pick: 6, Look: 6 }]);
  const c = compareArms(seed, grpo, "valid_seen")!;
  const d = armDifferences(experiment([seed, grpo]))[0]!.difference;
  assert.deepEqual([c.difference.value, c.difference.low, c.difference.high], [d.value, d.low, d.high]);
  assert.ok(c.difference.high > c.difference.low, "three agreeing seeds no longer give a zero-width interval");
  assert.match(c.intervalOver, /Student-t over 3 training seeds .*widened to a paired bootstrap over seeds and games/);
});
