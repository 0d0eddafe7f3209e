// AdamW over a parameter store: clipping, decay filter, the non-finite guard, state round trip,
// and the learning-rate schedules at hand-computed points.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../core/rng.ts";
import { ConfigError } from "../core/errors.ts";
import { presetConfig } from "./config.ts";
import { ParamStore } from "./params.ts";
import { AdamW, clipScale, globalGradNorm, lrAt } from "./adamw.ts";

const cfg = presetConfig("tiny", { nLayers: 1 });

function gradsOf(seed: number, scale: number): ParamStore {
  const g = ParamStore.zeros(cfg), rng = Rng.from(seed);
  for (const [, t] of g.entries()) for (let i = 0; i < t.length; i++) t[i] = rng.normal() * scale;
  return g;
}

test("a step clips to maxGradNorm and matches the hand-computed update on one element", () => {
  const params = ParamStore.init(cfg, Rng.from(1));
  const before = params.clone();
  const g = gradsOf(2, 1);
  const norm = globalGradNorm(g);
  const opt = new AdamW(params);
  const r = opt.update(g, { lr: 0.01, weightDecay: 0.1, maxGradNorm: 1 });
  assert.ok(Math.abs(r.gradNorm - norm) < 1e-9 && !r.skipped);
  assert.ok(Math.abs(r.clipScale - 1 / (norm + 1e-6)) < 1e-12);
  // first Adam step: m̂/sqrt(v̂) = sign(g), so p <- p(1 − lr·wd) − lr·sign(g) (eps negligible)
  const name = "model.layers.0.mlp.up_proj.weight";
  const p0 = before.get(name)[3]!, gi = g.get(name)[3]!;
  assert.ok(Math.abs(params.get(name)[3]! - (p0 * (1 - 0.001) - 0.01 * Math.sign(gi))) < 1e-6);
  // norms get no decay: p <- p − lr·sign(g)
  const nn = "model.norm.weight";
  assert.ok(Math.abs(params.get(nn)[0]! - (1 - 0.01 * Math.sign(g.get(nn)[0]!))) < 1e-6);
  assert.equal(opt.step, 1);
});

test("a non-finite gradient skips the step and changes nothing", () => {
  const params = ParamStore.init(cfg, Rng.from(3)), before = params.clone();
  const g = gradsOf(4, 1);
  g.get("model.norm.weight")[0] = NaN;
  const opt = new AdamW(params);
  const r = opt.update(g, { lr: 0.1 });
  assert.ok(r.skipped && Number.isNaN(r.gradNorm));
  assert.equal(opt.step, 0);
  for (const [n, t] of params.entries()) assert.deepEqual(t, before.get(n));
});

test("exported state restores bit-identical continued training", () => {
  const run = (split: boolean) => {
    const params = ParamStore.init(cfg, Rng.from(5));
    let opt = new AdamW(params);
    for (let s = 0; s < 4; s++) {
      if (split && s === 2) {
        const state = new Map([...opt.exportState()].map(([k, v]) => [k, v.slice()]));
        opt = new AdamW(params);
        opt.importState(state);
      }
      opt.update(gradsOf(10 + s, 0.3), { lr: 0.01, weightDecay: 0.01 });
    }
    return params;
  };
  const a = run(false), b = run(true);
  for (const [n, t] of a.entries()) assert.deepEqual(t, b.get(n));
  assert.throws(() => new AdamW(ParamStore.zeros(cfg)).importState(new Map([["adamw.step", new Float32Array([1])]])), /adamw\.m\./);
});

test("bad settings are a ConfigError; clipScale is 1 within the bound", () => {
  const opt = new AdamW(ParamStore.zeros(cfg));
  assert.throws(() => opt.update(ParamStore.zeros(cfg), { lr: -1 }), ConfigError);
  assert.throws(() => opt.update(ParamStore.zeros(cfg), { lr: 1, beta2: 1 }), ConfigError);
  assert.equal(clipScale(0.5, 1), 1);
  assert.equal(clipScale(5, 0), 1);
});

test("learning-rate schedules: warmup, constant, linear and cosine at hand-computed points", () => {
  assert.equal(lrAt({ kind: "constant", lr: 1, warmupSteps: 4 }, 0), 0.25);
  assert.equal(lrAt({ kind: "constant", lr: 1, warmupSteps: 4 }, 3), 1);
  assert.equal(lrAt({ kind: "constant", lr: 1 }, 100), 1);
  assert.equal(lrAt({ kind: "linear", lr: 1, totalSteps: 10 }, 5), 0.5);
  assert.ok(Math.abs(lrAt({ kind: "linear", lr: 1, warmupSteps: 2, totalSteps: 12, finalFraction: 0.1 }, 12) - 0.1) < 1e-12);
  assert.ok(Math.abs(lrAt({ kind: "cosine", lr: 2, totalSteps: 100 }, 50) - 1) < 1e-12);
  assert.equal(lrAt({ kind: "cosine", lr: 2, totalSteps: 100 }, 0), 2);
  assert.ok(Math.abs(lrAt({ kind: "cosine", lr: 2, totalSteps: 100 }, 100)) < 1e-12);
  assert.ok(Math.abs(lrAt({ kind: "cosine", lr: 2, totalSteps: 100 }, 500)) < 1e-12);
});
