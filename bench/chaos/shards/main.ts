// The sharding chaos, from the repository root:
//   npm run chaos:shards -- --seed 7 [--objects 200 --phase 5000 --lease 2000 --renew 1400
//     --retry 200 --fail 0.1] [--verbose]
// Exit code 0 only when no key ran on two members at once, every live object was reconciled
// at its last version, and every object ended assigned to a live member, none draining.
import { parseArgs } from 'node:util';
import { numberOption as number } from '../harness.js';
import { formatShardReport, runShardChaos } from './shardChaos.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    objects: { type: 'string', default: '200' },
    phase: { type: 'string', default: '5000' },
    lease: { type: 'string', default: '2000' },
    renew: { type: 'string', default: '1400' },
    retry: { type: 'string', default: '200' },
    fail: { type: 'string', default: '0.1' },
    verbose: { type: 'boolean', default: false },
  },
  strict: true,
});
const leaseMs = number('lease', values.lease!, 1000, 600_000);
const renewMs = number('renew', values.renew!, 100, leaseMs - 1);
const options = {
  seed: number('seed', values.seed!, 0, 2 ** 32 - 1),
  objects: number('objects', values.objects!, 1, 100_000),
  phaseMs: number('phase', values.phase!, 0, 600_000),
  leaseMs,
  renewMs,
  retryMs: number('retry', values.retry!, 10, renewMs - 1),
  failRate: number('fail', values.fail!, 0, 0.9),
};
console.log(
  `shard chaos: seed ${options.seed}, ${options.objects} objects, 3 -> 5 -> 2 members, lease ${leaseMs} ms`,
);
const report = await runShardChaos({
  ...options,
  log: (line) => {
    if (values.verbose) console.log(`  ${line}`);
  },
});
for (const line of formatShardReport(report)) console.log(line);
process.exitCode = report.failures.length === 0 ? 0 : 1;
