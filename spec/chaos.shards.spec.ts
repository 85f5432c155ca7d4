import { describe, expect, it } from '@jest/globals';
import { formatShardReport, runShardChaos } from '../bench/chaos/shards/shardChaos.js';

// A short, seeded sharding chaos run (issue 37): members as processes, 3 -> 5 -> 2 (two killed,
// one stopped) under changes, creations and deletions; `npm run chaos:shards` is the long one.
const SEED = 37;

describe('sharding chaos (seeded, members as processes)', () => {
  it('never runs a key on two members at once, reconciles every live object at its last version, leaves nothing unassigned', async () => {
    const report = await runShardChaos({
      seed: SEED,
      objects: 40,
      phaseMs: 1500,
      leaseMs: 1000,
      renewMs: 700,
      retryMs: 100,
    });
    const summary = [`shard chaos seed ${SEED}`, ...formatShardReport(report)].join('\n');
    if (report.failures.length > 0) throw new Error(summary);
    expect(report.overlaps).toEqual([]);
    // It really moved keys: both rebalances happened, under a workload.
    expect(report.joinRebalanceMs).toBeDefined();
    expect(report.leaveRebalanceMs).toBeDefined();
    expect(report.changes).toBeGreaterThan(100);
  }, 240_000);
});
