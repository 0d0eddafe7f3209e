/**
 * Seeded random numbers. Every random draw in the library comes from an `Rng` passed in
 * explicitly; `Math.random` is banned in `src/` (a test checks). The generator is xoshiro128**
 * on 32-bit integers, seeded through splitmix32, so streams are identical on every platform and
 * the whole state fits in four numbers (saved in checkpoints for exact resume).
 */

/** The serializable state of an `Rng`: four unsigned 32-bit words. */
export type RngState = readonly [number, number, number, number];

function splitmix32(x: number): [number, number] {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [x, (z ^ (z >>> 16)) >>> 0];
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A seed derived from a base seed and a path of labels, so that independent streams
 * (rollout of update 12, group 3, member 5) never share draws and never depend on call order.
 * @example Rng.from(deriveSeed(cfg.seed, "rollout", update, group, member))
 */
export function deriveSeed(base: number, ...parts: readonly (string | number)[]): number {
  let h = fmix32((base >>> 0) ^ 0x5eed5eed);
  for (const part of parts) {
    const s = typeof part === "number" ? `#${part}` : `$${part}`;
    for (let i = 0; i < s.length; i++) h = fmix32((h ^ s.charCodeAt(i)) + 0x27d4eb2d);
    h = fmix32(h ^ 0xa5a5a5a5);
  }
  return h >>> 0;
}

/** xoshiro128** generator. Not cryptographic. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  private constructor(s: RngState) {
    [this.s0, this.s1, this.s2, this.s3] = s;
  }

  /** A generator seeded from one integer (any 32-bit value; larger values are reduced). */
  static from(seed: number): Rng {
    let x = Math.floor(seed) >>> 0;
    const s: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [nx, out] = splitmix32(x);
      x = nx;
      s.push(out);
    }
    if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;
    return new Rng(s as unknown as RngState);
  }

  /** A generator resumed from a saved state. */
  static fromState(state: RngState): Rng {
    if (state.length !== 4 || state.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffffffff)) {
      throw new RangeError("an Rng state is four unsigned 32-bit integers");
    }
    return new Rng(state);
  }

  /** The current state; `Rng.fromState(r.state())` continues the same stream. */
  state(): RngState {
    return [this.s0 >>> 0, this.s1 >>> 0, this.s2 >>> 0, this.s3 >>> 0];
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform float in [0, 1) with 53 bits of resolution. */
  float(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n > 0) || !Number.isInteger(n)) throw new RangeError(`Rng.int needs a positive integer, got ${n}`);
    return Math.floor(this.float() * n);
  }

  /** Standard normal draw (Box-Muller; one of the pair is discarded so the state stays 4 words). */
  normal(): number {
    let u = this.float();
    while (u === 0) u = this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** True with probability p. */
  bernoulli(p: number): boolean {
    return this.float() < p;
  }

  /** One element chosen uniformly. */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.choice on an empty list");
    return items[this.int(items.length)]!;
  }

  /** Fisher-Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
