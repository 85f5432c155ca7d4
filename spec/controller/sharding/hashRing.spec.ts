import { describe, expect, it } from '@jest/globals';
import { HashRing, hash32 } from '../../../src/controller/sharding/hashRing.js';

const keys = Array.from({ length: 10_000 }, (_, i) => `app/object-${i}`);

function assignment(ring: HashRing): Map<string, string> {
  return new Map(keys.map((key) => [key, ring.owner(key)!]));
}

describe('HashRing', () => {
  it('is deterministic: the same owners whatever the order of members (every sharder agrees)', () => {
    // Fixed values: the hash is part of the contract between sharders of different versions.
    expect(hash32('shop/web')).toBe(1083882110);
    expect(hash32('')).toBe(2872998923);
    const a = assignment(new HashRing(['m1', 'm2', 'm3']));
    const b = assignment(new HashRing(['m3', 'm1', 'm2', 'm1']));
    expect(b).toEqual(a);
    expect(new HashRing([]).owner('app/x')).toBeUndefined();
  });

  it('spreads keys about evenly over the members', () => {
    const counts = new Map<string, number>();
    for (const owner of assignment(new HashRing(['m1', 'm2', 'm3', 'm4'])).values()) {
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    expect(counts.size).toBe(4);
    // 400 virtual nodes each: within 10% of a fair share.
    for (const n of counts.values()) expect(Math.abs(n - 2500)).toBeLessThan(250);
  });

  it('a joining member takes about 1/N of the keys, all from the others; nothing else moves', () => {
    const before = assignment(new HashRing(['m1', 'm2', 'm3']));
    const after = assignment(new HashRing(['m1', 'm2', 'm3', 'm4']));
    let moved = 0;
    for (const [key, owner] of after) {
      if (owner === before.get(key)) continue;
      moved++;
      expect(owner).toBe('m4');
    }
    expect(moved / keys.length).toBeGreaterThan(0.25 * 0.75);
    expect(moved / keys.length).toBeLessThan(0.25 * 1.25);
  });

  it('a leaving member moves only its own keys', () => {
    const before = assignment(new HashRing(['m1', 'm2', 'm3']));
    const after = assignment(new HashRing(['m1', 'm3']));
    for (const [key, owner] of after) {
      if (before.get(key) !== 'm2') expect(owner).toBe(before.get(key));
    }
  });
});
