/**
 * AdamW (PyTorch `torch.optim.AdamW` semantics) over a parameter store, with global grad-norm
 * clipping folded into the fused update, a non-finite-gradient guard, state export/import as
 * named f32 tensors (for checkpoints), and learning-rate schedules. Weight decay skips 1-D
 * tensors (norms, biases) by default, as is usual for transformers.
 */
import { ConfigError, ShapeError } from "../core/errors.ts";
import { getEngine, type Engine } from "../engine/engine.ts";
import { isNoDecay, ParamStore } from "./params.ts";

/** Settings of one optimizer step (the fields of `OptimizerSettings` in policy.ts, resolved). */
export type AdamWSettings = {
  readonly lr: number;
  /** @default 0.9 */
  readonly beta1?: number;
  /** @default 0.999 */
  readonly beta2?: number;
  /** @default 1e-8 */
  readonly eps?: number;
  /** Decoupled weight decay, applied to matrices and embeddings only. @default 0 */
  readonly weightDecay?: number;
  /** Clip the global gradient norm to this value; 0 disables clipping. @default 1 */
  readonly maxGradNorm?: number;
};

/** What one step did. */
export type StepReport = {
  /** Global L2 norm of the gradient before clipping. */
  readonly gradNorm: number;
  /** True when the norm was not finite: no parameter or moment changed, the step count did not advance. */
  readonly skipped: boolean;
  /** Factor the gradient was multiplied by (1 when not clipped). */
  readonly clipScale: number;
};

/** Global L2 norm of a gradient store. */
export function globalGradNorm(grads: ParamStore, engine: Engine = getEngine()): number {
  let s = 0;
  for (const [, g] of grads.entries()) s += engine.sumSquares(g);
  return Math.sqrt(s);
}

/** The factor that clips a gradient of norm `norm` to at most `maxNorm` (1 when within, or when maxNorm is 0). */
export function clipScale(norm: number, maxNorm: number): number {
  return maxNorm > 0 && norm > maxNorm ? maxNorm / (norm + 1e-6) : 1;
}

/** AdamW over one parameter store. Moments are allocated on the first step. */
export class AdamW {
  readonly params: ParamStore;
  readonly engine: Engine;
  /** Steps taken (the bias-correction step is `step + 1` for the next update). */
  step = 0;
  private m: ParamStore | null = null;
  private v: ParamStore | null = null;

  constructor(params: ParamStore, engine: Engine = getEngine()) {
    this.params = params;
    this.engine = engine;
  }

  /**
   * Clip `grads` to `maxGradNorm` (global norm), then update every parameter. A non-finite norm
   * skips the update entirely (reported). `grads` is left as it was (the caller zeroes it).
   */
  update(grads: ParamStore, settings: AdamWSettings): StepReport {
    const s = resolve(settings);
    const norm = globalGradNorm(grads, this.engine);
    if (!Number.isFinite(norm)) return { gradNorm: norm, skipped: true, clipScale: 0 };
    const scale = clipScale(norm, s.maxGradNorm);
    this.m ??= ParamStore.zeros(this.params.config);
    this.v ??= ParamStore.zeros(this.params.config);
    this.step += 1;
    for (const spec of this.params.specs) {
      this.engine.adamw(this.params.get(spec.name), grads.get(spec.name), this.m.get(spec.name), this.v.get(spec.name), {
        lr: s.lr, beta1: s.beta1, beta2: s.beta2, eps: s.eps, step: this.step, gradScale: scale,
        weightDecay: isNoDecay(spec) ? 0 : s.weightDecay,
      });
    }
    return { gradNorm: norm, skipped: false, clipScale: scale };
  }

  /**
   * The state as named tensors: `adamw.m.<param>`, `adamw.v.<param>` and `adamw.step` (a
   * one-element f32 array; exact for steps below 2^24). Empty moments are exported as zeros.
   */
  exportState(): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const m = this.m ?? ParamStore.zeros(this.params.config), v = this.v ?? ParamStore.zeros(this.params.config);
    for (const spec of this.params.specs) {
      out.set(`adamw.m.${spec.name}`, m.get(spec.name));
      out.set(`adamw.v.${spec.name}`, v.get(spec.name));
    }
    out.set("adamw.step", new Float32Array([this.step]));
    return out;
  }

  /** Restore a state written by `exportState` (copied). Throws `ShapeError` naming a missing or mis-sized tensor. */
  importState(state: ReadonlyMap<string, Float32Array>): void {
    const step = state.get("adamw.step");
    if (step === undefined || step.length !== 1 || !Number.isInteger(step[0]) || step[0]! < 0) throw new ShapeError("optimizer state: adamw.step is missing or invalid");
    const m = ParamStore.zeros(this.params.config), v = ParamStore.zeros(this.params.config);
    for (const spec of this.params.specs) {
      for (const [kind, store] of [["m", m], ["v", v]] as const) {
        const t = state.get(`adamw.${kind}.${spec.name}`);
        const dst = store.get(spec.name);
        if (t === undefined || t.length !== dst.length) throw new ShapeError(`optimizer state: adamw.${kind}.${spec.name} is missing or has the wrong size`);
        dst.set(t);
      }
    }
    this.m = m;
    this.v = v;
    this.step = step[0]!;
  }
}

function resolve(s: AdamWSettings): Required<AdamWSettings> {
  const r = { lr: s.lr, beta1: s.beta1 ?? 0.9, beta2: s.beta2 ?? 0.999, eps: s.eps ?? 1e-8, weightDecay: s.weightDecay ?? 0, maxGradNorm: s.maxGradNorm ?? 1 };
  const issues = [];
  if (!(r.lr >= 0) || !Number.isFinite(r.lr)) issues.push({ path: "optimizer.lr", message: `must be a finite number >= 0, got ${r.lr}` });
  for (const k of ["beta1", "beta2"] as const) if (!(r[k] >= 0 && r[k] < 1)) issues.push({ path: `optimizer.${k}`, message: `must be in [0, 1), got ${r[k]}` });
  if (!(r.eps > 0)) issues.push({ path: "optimizer.eps", message: `must be > 0, got ${r.eps}` });
  if (!(r.weightDecay >= 0)) issues.push({ path: "optimizer.weightDecay", message: `must be >= 0, got ${r.weightDecay}` });
  if (!(r.maxGradNorm >= 0)) issues.push({ path: "optimizer.maxGradNorm", message: `must be >= 0, got ${r.maxGradNorm}` });
  if (issues.length > 0) throw new ConfigError(issues);
  return r;
}

/** A learning-rate schedule: the rate of optimizer step `step` (0-based). */
export type LrSchedule =
  | { readonly kind: "constant"; readonly lr: number; readonly warmupSteps?: number }
  | { readonly kind: "linear"; readonly lr: number; readonly warmupSteps?: number; readonly totalSteps: number; readonly finalFraction?: number }
  | { readonly kind: "cosine"; readonly lr: number; readonly warmupSteps?: number; readonly totalSteps: number; readonly finalFraction?: number };

/**
 * The learning rate at 0-based step `step`: linear warmup from lr/warmup to lr over
 * `warmupSteps` (default 0), then constant, linear decay or cosine decay down to
 * `finalFraction · lr` (default 0) at `totalSteps`, and flat after it.
 * @example lrAt({ kind: "cosine", lr: 3e-4, warmupSteps: 10, totalSteps: 100 }, 55)
 */
export function lrAt(s: LrSchedule, step: number): number {
  const warm = s.warmupSteps ?? 0;
  if (step < warm) return (s.lr * (step + 1)) / warm;
  if (s.kind === "constant") return s.lr;
  const final = s.lr * (s.finalFraction ?? 0);
  const span = Math.max(1, s.totalSteps - warm);
  const t = Math.min(1, (step - warm) / span);
  if (s.kind === "linear") return s.lr + (final - s.lr) * t;
  return final + 0.5 * (s.lr - final) * (1 + Math.cos(Math.PI * t));
}
