// The engine facade: bad input becomes a ShapeError naming the kernel and argument (for both
// implementations, before any native code runs), and engine selection records why it fell back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ShapeError } from "../core/errors.ts";
import { createEngine, referenceEngine, type Engine } from "./engine.ts";
import { loadNative } from "./native.ts";

const engines: [string, Engine][] = [["reference", referenceEngine()]];
const native = loadNative();
if (native.ok) engines.push(["native", createEngine({ kind: "native" })]);

for (const [name, e] of engines) {
  test(`${name}: shape, dtype, index and NaN errors are ShapeErrors`, () => {
    const f = (n: number) => new Float32Array(n);
    assert.throws(() => e.matmul(f(4), f(4), f(3), 2, 2, 2), /matmul: b has 3 elements, needs 4/);
    assert.throws(() => e.matmul(f(4), new Float64Array(4) as unknown as Float32Array, f(4), 2, 2, 2), /a must be a Float32Array, got Float64Array/);
    assert.throws(() => e.matmul(f(4), f(4), f(4), 2, 2, 0), /k must be a positive integer/);
    assert.throws(() => e.matmul(f(4), f(4), f(4), 2, 2, 2, false, false, false, "f16" as "f32"), /dtype/);
    assert.throws(() => e.rope(f(8), new Int32Array([0]), 2, 1, 4, 10000), /positions has 1 elements/);
    assert.throws(() => e.rope(f(6), new Int32Array([0]), 1, 1, 3, 10000), /even/);
    assert.throws(() => e.attentionForward(f(8), null, f(8), f(8), f(8), new Int32Array([0, 3, 0, 0]), 1, 1, 4), /reads query rows up to 3/);
    assert.throws(() => e.attentionForward(f(8), null, f(8), f(8), f(8), new Int32Array([0, 1, 0, 0]), 3, 2, 4), /must divide/);
    assert.throws(() => e.lmHeadForward(f(1), f(1), f(2), f(6), new Int32Array([3]), 1, 2, 3), /targets\[0\] = 3 is outside/);
    assert.throws(() => e.lmHeadForward(f(1), f(1), f(2), f(6), new Int32Array([1]), 1, 2, 3,
      { restricted: new Uint8Array([1]), offsets: new Int32Array([0, 1]), ids: new Int32Array([0]) }), /not in its allowed set/);
    assert.throws(() => e.adamw(f(3), f(2), f(3), f(3), { lr: 1, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, step: 1, gradScale: 1 }), /g has 2/);
    assert.throws(() => e.adamw(f(3), f(3), f(3), f(3), { lr: 1, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, step: 0, gradScale: 1 }), /step/);
    const checked = name === "native" ? createEngine({ kind: "native", checkFinite: true }) : referenceEngine({ checkFinite: true });
    const x = f(4);
    x[2] = NaN;
    assert.throws(() => checked.rmsnormForward(f(4), f(2), x, f(2), 2, 2, 1e-6), ShapeError);
    assert.doesNotThrow(() => e.rmsnormForward(f(4), f(2), x, f(2), 2, 2, 1e-6), "finiteness is checked only when asked");
  });
}

test("the native addon itself rejects out-of-range arguments with an exception, not a crash", { skip: native.ok ? false : "no addon" }, () => {
  // Bypass the facade: the addon's own second line of defence.
  const raw = createEngine({ kind: "native" }) as unknown as { k: { matmul: (...a: unknown[]) => void; attentionForward: (...a: unknown[]) => void } };
  assert.throws(() => raw.k.matmul(new Float32Array(1), new Float32Array(1), new Float32Array(1), 4, 4, 4, false, false, false, "f32"), /too short/);
  assert.throws(() => raw.k.attentionForward(new Float32Array(8), null, new Float32Array(8), new Float32Array(8), new Float32Array(8), new Int32Array([0, 9, 0, 0]), 1, 1, 4), /out of range/);
});

test("the reference engine can be forced, and reports why it is not native", () => {
  const prev = process.env["SEED_ENGINE"];
  process.env["SEED_ENGINE"] = "reference";
  try {
    const e = createEngine();
    assert.equal(e.kind, "reference");
    assert.match(e.info.fallbackReason ?? "", /SEED_ENGINE/);
  } finally {
    if (prev === undefined) delete process.env["SEED_ENGINE"];
    else process.env["SEED_ENGINE"] = prev;
  }
  assert.equal(createEngine({ kind: "reference" }).info.fallbackReason, null);
});
