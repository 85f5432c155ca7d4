import { expect, it } from '@jest/globals';
import { microTime } from '../../src/objects/microTime.js';

it('writes a metav1.MicroTime: UTC, six fractional digits, what kube-apiserver accepts', () => {
  expect(microTime(Date.UTC(2026, 11, 2, 12, 0, 0, 250))).toBe('2026-12-02T12:00:00.250000Z');
  // A fraction of a millisecond (performance clocks) is cut, never rounded into the next one.
  expect(microTime(Date.UTC(2026, 0, 1) + 999.9)).toBe('2026-01-01T00:00:00.999000Z');
});
