/**
 * The parameter store: every weight as a named, contiguous f32 array, under the Hugging Face
 * Qwen2 / Qwen3 / Llama tensor names and layouts (Linear weights are [out, in] row-major, as PyTorch stores
 * them), so a real Qwen2 checkpoint maps onto it tensor by tensor. The shape table is derived
 * from the config alone. Seeded initialisation follows Hugging Face Qwen2 (normal with std 0.02
 * for matrices and embeddings, ones for norms, zeros for biases). This file holds no file I/O.
 */
import { Rng } from "../core/rng.ts";
import { ShapeError } from "../core/errors.ts";
import { hasQkNorm, headDim, qDim, type ModelConfig } from "./config.ts";

/** Name and shape of one parameter tensor. */
export type TensorSpec = { readonly name: string; readonly shape: readonly number[] };

/** Names of the tensors of layer `i` (Hugging Face Qwen2 naming; `qNorm`/`kNorm` are Qwen3's). */
export function layerNames(i: number) {
  const p = `model.layers.${i}.`;
  return {
    inputNorm: `${p}input_layernorm.weight`,
    q: `${p}self_attn.q_proj.weight`,
    k: `${p}self_attn.k_proj.weight`,
    v: `${p}self_attn.v_proj.weight`,
    qBias: `${p}self_attn.q_proj.bias`,
    kBias: `${p}self_attn.k_proj.bias`,
    vBias: `${p}self_attn.v_proj.bias`,
    qNorm: `${p}self_attn.q_norm.weight`,
    kNorm: `${p}self_attn.k_norm.weight`,
    o: `${p}self_attn.o_proj.weight`,
    postNorm: `${p}post_attention_layernorm.weight`,
    gate: `${p}mlp.gate_proj.weight`,
    up: `${p}mlp.up_proj.weight`,
    down: `${p}mlp.down_proj.weight`,
  } as const;
}

/** Tensor names outside the layers. */
export const GLOBAL_NAMES = {
  embed: "model.embed_tokens.weight",
  finalNorm: "model.norm.weight",
  lmHead: "lm_head.weight",
} as const;

/** Every parameter of a config, in a fixed order (embedding, layers, final norm, head). */
export function paramSpecs(c: ModelConfig): TensorSpec[] {
  const D = c.dModel, F = c.ffnSize, hd = headDim(c), Q = qDim(c), KV = c.nKvHeads * hd;
  const specs: TensorSpec[] = [{ name: GLOBAL_NAMES.embed, shape: [c.vocabSize, D] }];
  for (let i = 0; i < c.nLayers; i++) {
    const n = layerNames(i);
    specs.push({ name: n.inputNorm, shape: [D] });
    specs.push({ name: n.q, shape: [Q, D] });
    if (c.qkvBias) specs.push({ name: n.qBias, shape: [Q] });
    specs.push({ name: n.k, shape: [KV, D] });
    if (c.qkvBias) specs.push({ name: n.kBias, shape: [KV] });
    specs.push({ name: n.v, shape: [KV, D] });
    if (c.qkvBias) specs.push({ name: n.vBias, shape: [KV] });
    if (hasQkNorm(c)) {
      specs.push({ name: n.qNorm, shape: [hd] });
      specs.push({ name: n.kNorm, shape: [hd] });
    }
    specs.push({ name: n.o, shape: [D, Q] });
    specs.push({ name: n.postNorm, shape: [D] });
    specs.push({ name: n.gate, shape: [F, D] });
    specs.push({ name: n.up, shape: [F, D] });
    specs.push({ name: n.down, shape: [D, F] });
  }
  specs.push({ name: GLOBAL_NAMES.finalNorm, shape: [D] });
  if (!c.tiedEmbeddings) specs.push({ name: GLOBAL_NAMES.lmHead, shape: [c.vocabSize, D] });
  return specs;
}

/** Number of elements of a shape. */
export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** True for tensors that get no weight decay by default: norms and biases (1-D tensors). */
export function isNoDecay(spec: TensorSpec): boolean {
  return spec.shape.length < 2;
}

/**
 * Named f32 tensors with the shapes of `paramSpecs(config)`. Also used for gradients and the
 * optimizer moments, which share the layout. Iteration order is the spec order.
 */
export class ParamStore {
  readonly config: ModelConfig;
  readonly specs: readonly TensorSpec[];
  private readonly map: Map<string, Float32Array>;

  private constructor(config: ModelConfig, map: Map<string, Float32Array>) {
    this.config = config;
    this.specs = paramSpecs(config);
    this.map = map;
  }

  /** All-zero tensors (gradients, optimizer moments). */
  static zeros(config: ModelConfig): ParamStore {
    const map = new Map<string, Float32Array>();
    for (const s of paramSpecs(config)) map.set(s.name, new Float32Array(numel(s.shape)));
    return new ParamStore(config, map);
  }

  /**
   * Seeded initialisation (Hugging Face Qwen2: normal(0, 0.02) for matrices and the embedding,
   * ones for norms, zeros for biases). Same config and seed give the same weights everywhere.
   */
  static init(config: ModelConfig, rng: Rng, std = 0.02): ParamStore {
    const store = ParamStore.zeros(config);
    for (const s of store.specs) {
      const t = store.get(s.name);
      if (s.name.endsWith("norm.weight")) t.fill(1);
      else if (s.name.endsWith(".bias")) t.fill(0);
      else for (let i = 0; i < t.length; i++) t[i] = rng.normal() * std;
    }
    return store;
  }

  /**
   * A store over given tensors (e.g. loaded from safetensors). Every expected tensor must be
   * present with the right length; unknown names are rejected. Arrays are used as given (no copy).
   * With tied embeddings a present `lm_head.weight` is ignored (some tied checkpoints carry a copy).
   */
  static fromTensors(config: ModelConfig, tensors: ReadonlyMap<string, Float32Array>): ParamStore {
    const specs = paramSpecs(config);
    const problems: string[] = [];
    const map = new Map<string, Float32Array>();
    for (const s of specs) {
      const t = tensors.get(s.name);
      if (t === undefined) problems.push(`missing tensor ${s.name}`);
      else if (!(t instanceof Float32Array)) problems.push(`${s.name} must be a Float32Array`);
      else if (t.length !== numel(s.shape)) problems.push(`${s.name} has ${t.length} elements, expected [${s.shape.join(", ")}] = ${numel(s.shape)}`);
      else map.set(s.name, t);
    }
    const known = new Set(specs.map((s) => s.name));
    for (const name of tensors.keys()) {
      if (!known.has(name) && !(config.tiedEmbeddings && name === GLOBAL_NAMES.lmHead)) problems.push(`unexpected tensor ${name}`);
    }
    if (problems.length > 0) throw new ShapeError(`parameters do not match the config: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ""}`);
    return new ParamStore(config, map);
  }

  /** The tensor of a name; a `ShapeError` for an unknown name. */
  get(name: string): Float32Array {
    const t = this.map.get(name);
    if (t === undefined) throw new ShapeError(`no parameter named ${name}`);
    return t;
  }

  /** True when the store holds a tensor of that name. */
  has(name: string): boolean {
    return this.map.has(name);
  }

  /** [name, tensor] pairs in spec order. */
  *entries(): IterableIterator<[string, Float32Array]> {
    for (const s of this.specs) yield [s.name, this.map.get(s.name)!];
  }

  /** The tensors as a map (shared, not copied): what safetensors writers take. */
  tensors(): ReadonlyMap<string, Float32Array> {
    return this.map;
  }

  /** A deep copy (snapshots for a frozen reference policy). */
  clone(): ParamStore {
    const map = new Map<string, Float32Array>();
    for (const [n, t] of this.map) map.set(n, t.slice());
    return new ParamStore(this.config, map);
  }

  /** Copy every tensor of `other` (same config shape) into this store in place. */
  copyFrom(other: ParamStore): void {
    for (const s of this.specs) this.get(s.name).set(other.get(s.name));
  }

  /** Set every tensor to zero. */
  zero(): void {
    for (const t of this.map.values()) t.fill(0);
  }

  /** Total number of elements. */
  size(): number {
    let n = 0;
    for (const t of this.map.values()) n += t.length;
    return n;
  }
}
