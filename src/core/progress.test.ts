// The progress ETA with a fake clock: weighted units, a rate measured only on worked units
// (skipped ones are free), the unit in progress counted, and the demo's shape: a long Stage 0
// must not make every later, shorter step look as long (the old equal-step ETA said 1:04:05
// with 6.5 minutes left).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Progress } from "./progress.ts";

function fakeClock(): { now: () => number; advance: (seconds: number) => void } {
  let ms = 0;
  return { now: () => ms, advance: (s) => { ms += s * 1000; } };
}

const near = (actual: number, expected: number, tol = 1e-9) => assert.ok(Math.abs(actual - expected) <= tol, `${actual} vs ${expected}`);

test("ETA: rate from worked units, time of the unit in progress subtracted, NaN before anything is known", () => {
  const c = fakeClock();
  const bar = new Progress("x", 10, { silent: true, clock: c.now });
  assert.ok(Number.isNaN(bar.eta()), "no rate, no prior");
  c.advance(4);
  bar.tick(2); // 2 s per unit
  near(bar.eta(), 16);
  c.advance(1); // one second into the next unit
  near(bar.eta(), 15);
  c.advance(30); // far over: never negative
  assert.equal(bar.eta(), 0);
});

test("ETA: skipped (cached) units move the bar but not the rate; a prior rate answers before the first unit", () => {
  const c = fakeClock();
  const bar = new Progress("x", 100, { silent: true, clock: c.now, priorSecondsPerUnit: 1 });
  near(bar.eta(), 100);
  c.advance(0.2);
  bar.skip(50); // cached: almost instant
  near(bar.eta(), 50, 1e-9);
  c.advance(50);
  bar.tick(25); // 2 s per unit on this machine
  near(bar.eta(), 50);
});

test("ETA on the demo's shape: weighted stages give the true time left after every step", () => {
  // Reference seconds of the demo (Stage 0, Stage 1, 3 x (SEED, GRPO), report) on a machine 1.3x slower.
  const work = [312, 270, 52, 35, 52, 35, 52, 35, 5];
  const slow = 1.3;
  const c = fakeClock();
  const bar = new Progress("demo", work.reduce((a, b) => a + b, 0), { silent: true, clock: c.now, priorSecondsPerUnit: 1 });
  let left = work.reduce((a, b) => a + b, 0) * slow;
  for (const w of work) {
    c.advance(w * slow);
    bar.tick(w);
    left -= w * slow;
    near(bar.eta(), left, 1e-6);
  }
  // The old estimator (equal steps, elapsed / steps done x steps left) after Stage 1:
  // 44 minutes for the 5.8 minutes really left, the failure the issue saw.
  const elapsed = (312 + 270) * slow, oldEta = (elapsed / 2) * (work.length - 2), trueLeft = 266 * slow;
  assert.ok(oldEta > 7 * trueLeft, `the equal-step ETA overshoots: ${oldEta} s for ${trueLeft} s left`);
});
