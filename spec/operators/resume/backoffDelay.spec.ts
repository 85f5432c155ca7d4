import { describe, expect, it } from '@jest/globals';
import { backoffDelay, randomTimeoutSeconds } from '../../../src/operators/resume/backoffDelay.js';

describe('backoffDelay', () => {
  it('stays in [0, min(30 s, 800 ms * 2^(n-1))) for any draw', () => {
    for (let attempt = 1; attempt <= 40; attempt++) {
      const cap = Math.min(30_000, 800 * 2 ** (attempt - 1));
      for (const draw of [0, 0.1, 0.5, 0.9, 0.999999]) {
        const delay = backoffDelay(attempt, () => draw);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(cap);
      }
    }
  });

  it('never goes below Retry-After', () => {
    expect(backoffDelay(1, () => 0.1, 2)).toBe(2000);
    expect(backoffDelay(6, () => 0.5, 2)).toBe(12_800);
  });

  it('honours Retry-After up to 10 minutes, and ignores one that is not a number of seconds', () => {
    expect(backoffDelay(1, () => 0, 86_400 * 365)).toBe(600_000);
    expect(backoffDelay(1, () => 0, Number.NaN)).toBe(0);
    expect(backoffDelay(1, () => 0, -5)).toBe(0);
  });
});

describe('randomTimeoutSeconds', () => {
  it('is a whole number of seconds in [300, 600]', () => {
    expect(randomTimeoutSeconds(() => 0)).toBe(300);
    expect(randomTimeoutSeconds(() => 0.999999)).toBe(600);
    expect(Number.isInteger(randomTimeoutSeconds(Math.random))).toBe(true);
  });
});
