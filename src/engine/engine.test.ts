// The engine facade: bad input becomes a ShapeError naming the kernel and argument (for both
// implementations, before any native code runs), and engine selection records why it fell back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ShapeError } from "../core/errors.ts";
import { createEngine, referenceEngine, type Engine } from "./engine.ts";
import { loadNative, missingCpuFeatures, nativeAddonPath } from "./native.ts";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";

const engines: [string, Engine][] = [["reference", referenceEngine()]];
const native = loadNative();
if (native.ok) engines.push(["native", createEngine({ kind: "native" })]);

for (const [name, e] of engines) {
  test(`${name}: shape, dtype, index and NaN errors are ShapeErrors`, () => {
    const f = (n: number) => new Float32Array(n);
    assert.throws(() => e.matmul(f(4), f(4), f(3), 2, 2, 2), /matmul: b has 3 elements, needs 4/);
    assert.throws(() => e.matmul(f(4), new Float64Array(4) as unknown as Float32Array, f(4), 2, 2, 2), /a must be a Float32Array, got Float64Array/);
    assert.throws(() => e.matmul(f(4), f(4), f(4), 2, 2, 0), /k must be an integer in \[1, 2147483647\], got 0/);
    assert.throws(() => e.matmul(f(4), f(4), f(4), 2 ** 31, 1, 1), /m must be an integer in/);
    assert.throws(() => e.matmul(f(4), f(4), f(4), 2, 2, 2, false, false, false, "f16" as "f32"), /dtype/);
    assert.throws(() => e.rope(f(8), new Int32Array([0]), 2, 1, 4, 10000), /positions has 1 elements/);
    assert.throws(() => e.rope(f(6), new Int32Array([0]), 1, 1, 3, 10000), /even/);
    assert.throws(() => e.attentionForward(f(8), null, f(8), f(8), f(8), new Int32Array([0, 3, 0, 0]), 1, 1, 4), /reads query rows up to 3/);
    assert.throws(() => e.attentionForward(f(8), null, f(8), f(8), f(8), new Int32Array([0, 1, 0, 0]), 3, 2, 4), /must divide/);
    // Query rows belong to one sequence; a forward may share key rows (a cached prefix), a backward may not.
    assert.throws(() => e.attentionForward(f(16), null, f(16), f(16), f(16), new Int32Array([0, 2, 0, 0, 1, 2, 2, 0]), 1, 1, 4), /sequences 0 and 1 share query rows/);
    assert.doesNotThrow(() => e.attentionForward(f(16), null, f(16), f(16), f(16), new Int32Array([0, 1, 0, 1, 1, 1, 0, 1]), 1, 1, 4));
    assert.throws(() => e.attentionBackward(f(16), f(16), f(16), f(16), f(16), f(16), f(16), f(16), f(4), new Int32Array([0, 1, 0, 1, 1, 1, 0, 1]), 1, 1, 4),
      /sequences 0 and 1 share key rows/);
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
  type Raw = (...a: unknown[]) => void;
  const raw = createEngine({ kind: "native" }) as unknown as { k: { matmul: Raw; attentionForward: Raw; lmHeadForward: Raw; rope: Raw } };
  assert.throws(() => raw.k.matmul(new Float32Array(1), new Float32Array(1), new Float32Array(1), 4, 4, 4, false, false, false, "f32"), /too short/);
  assert.throws(() => raw.k.attentionForward(new Float32Array(8), null, new Float32Array(8), new Float32Array(8), new Float32Array(8), new Int32Array([0, 9, 0, 0]), 1, 1, 4), /out of range/);
  const f = (n: number) => new Float32Array(n);
  // Each of these used to reach a kernel: a zero vocabulary divided by zero (SIGFPE), a negative
  // position read before the RoPE table, two negative dimensions multiplied to a small size.
  assert.throws(() => raw.k.lmHeadForward(f(4), f(4), f(4), f(4), new Int32Array(4), 0, 4, 0, null, "f32"), /rows: must be an integer in \[1, 2\^31\)/);
  assert.throws(() => raw.k.rope(f(8), new Int32Array([-3]), 1, 1, 8, 10000, false), /position out of range/);
  assert.throws(() => raw.k.matmul(f(4), f(4), f(4), -1, -1, 1, false, false, false, "f32"), /m: must be an integer/);
  assert.throws(() => raw.k.matmul(f(4), f(4), f(4), 2.5, 1, 1, false, false, false, "f32"), /m: must be an integer/);
  assert.throws(() => raw.k.attentionForward(f(16), null, f(16), f(16), f(16), new Int32Array([0, 2, 0, 0, 1, 2, 2, 0]), 1, 1, 4), /share query rows/);
  assert.throws(() => raw.k.attentionForward(f(16), null, f(16), f(16), f(16), new Int32Array([0, 1, 0, 0, 1]), 1, 1, 4), /quadruples/);
});

test("the native addon refuses absurd thread counts; a build for CPU features this CPU lacks is refused before it loads", () => {
  assert.throws(() => loadNative(0), /threads must be an integer in \[1, 1024\]/);
  assert.throws(() => loadNative(1e6), /threads must be an integer/);
  const dir = mkdtempSync(join(tmpdir(), "seed-cpu-"));
  try {
    const file = join(dir, "addon.cpu.json");
    writeFileSync(file, JSON.stringify({ march: "native", requires: ["avx2", "avx512f", "fma"] }));
    assert.deepEqual(missingCpuFeatures(file, new Set(["avx", "avx2", "fma"])), ["avx512f"]);
    assert.deepEqual(missingCpuFeatures(file, new Set(["avx2", "avx512f", "fma", "sse4_2"])), []);
    assert.deepEqual(missingCpuFeatures(file, null), [], "no /proc/cpuinfo: no check");
    assert.deepEqual(missingCpuFeatures(join(dir, "absent.json"), new Set()), [], "an older build without the file loads as before");
    if (native.ok) {
      // The loader itself, in a fresh process: a copy of the addon whose record names a feature no
      // CPU has is never loaded, and "auto" falls back to the reference engine saying why.
      copyFileSync(nativeAddonPath(), join(dir, "copy.node"));
      writeFileSync(join(dir, "copy.cpu.json"), JSON.stringify({ march: "native", requires: ["avx2", "no_such_feature"] }));
      const engineTs = fileURLToPath(new URL("./engine.ts", import.meta.url));
      const r = spawnSync(process.execPath, ["--import", "tsx", "-e", `import(${JSON.stringify(engineTs)}).then((m) => console.log(m.createEngine().info.fallbackReason))`], {
        env: { ...process.env, SEED_NATIVE_ADDON: join(dir, "copy.node") }, encoding: "utf8",
      });
      assert.match(r.stdout, /compiled \(-march=native\) on a CPU with features this one lacks \(no_such_feature\).*npm run build:native/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
