/**
 * mulberry32: a small, fast 32-bit PRNG. The same seed gives the same sequence of numbers in
 * [0, 1), so a failing random run names the seed that replays its choices.
 *
 * @example
 * const random = mulberry32(42);
 * random(); // always the same first number for seed 42
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a random spec: `KUBE_RX_SEED` when set, else the clock. */
export function seedFromEnv(): number {
  const fromEnv = process.env.KUBE_RX_SEED;
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const seed = Number(fromEnv);
    if (!Number.isInteger(seed)) throw new Error(`KUBE_RX_SEED must be an integer: ${fromEnv}`);
    return seed >>> 0;
  }
  return Date.now() >>> 0;
}

/** Helpers over one PRNG. */
export class Dice {
  constructor(readonly random: () => number) {}

  /** A whole number in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  chance(p: number): boolean {
    return this.random() < p;
  }
}
