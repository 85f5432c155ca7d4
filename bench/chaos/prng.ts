/**
 * A small seeded PRNG (32-bit state, xorshift-multiply mixing) so that a chaos or soak run with
 * the same seed makes the same choices: which object to mutate, which fault to fire, how long to
 * wait. Timing still varies between runs; the sequence of decisions does not.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    // Spread small seeds (1, 2, 3...) over the whole state space.
    this.state = (Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x85ebca6b) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let x = this.state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A new generator whose sequence depends on this one's seed and `salt` only. */
  fork(salt: number): Prng {
    return new Prng((this.state ^ Math.imul(salt, 0x27d4eb2f)) >>> 0);
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
