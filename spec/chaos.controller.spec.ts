import { describe, expect, it } from '@jest/globals';
import { formatControllerReport, runControllerChaos } from '../bench/chaos/controllerChaos.js';

// A short, seeded controller chaos run (issue 26); `npm run chaos -- --controller` is the long one.
const SEED = 26;

describe('controller chaos (seeded, about 15 s)', () => {
  it('reconciles every live object at its last version and every deletion once, one run per key at a time', async () => {
    const report = await runControllerChaos({
      seed: SEED,
      durationMs: 10_000,
      faultEveryMs: 700,
      backoffScale: 0.1,
    });
    const summary = [`controller chaos seed ${SEED}`, ...formatControllerReport(report)].join('\n');
    if (report.failures.length > 0) throw new Error(summary);
    expect(report.maxConcurrentPerKey).toBe(1);
    expect(report.convergedMs).toBeDefined();
    // It really was chaotic: faults fired, reconciles failed and were retried, keys were deleted.
    expect(report.faults).toBeGreaterThan(5);
    expect(report.retries).toBeGreaterThan(10);
    expect(report.deletedKeys).toBeGreaterThan(0);
  }, 60_000);
});
