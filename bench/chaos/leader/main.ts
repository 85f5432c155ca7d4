// The two-replica leader election chaos, from the repository root:
//   npm run chaos:leader -- --seed 7 --minutes 3 [--lease 2000 --renew 1400 --retry 200]
//     [--act path/to/acting.ts] [--verbose]
// Exit code 0 only when no two replicas ever acted at once and every takeover after a SIGKILL
// came within lease + retry (+ slack for request latency and scheduling).
import { parseArgs } from 'node:util';
import { numberOption as number } from '../harness.js';
import { formatLeaderReport, runLeaderChaos } from './leaderChaos.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    minutes: { type: 'string', default: '1' },
    lease: { type: 'string', default: '2000' },
    renew: { type: 'string', default: '1400' },
    retry: { type: 'string', default: '200' },
    slack: { type: 'string', default: '600' },
    act: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
  strict: true,
});
const seed = number('seed', values.seed!, 0, 2 ** 32 - 1);
const minutes = number('minutes', values.minutes!, 0.1, 24 * 60);
const leaseMs = number('lease', values.lease!, 1000, 600_000);
const renewMs = number('renew', values.renew!, 100, leaseMs - 1);
const retryMs = number('retry', values.retry!, 10, renewMs - 1);
const slackMs = number('slack', values.slack!, 0, 60_000);
console.log(
  `leader chaos: seed ${seed}, ${minutes} min, lease ${leaseMs} ms, renew deadline ${renewMs} ms, retry ${retryMs} ms`,
);
const report = await runLeaderChaos({
  seed,
  durationMs: Math.round(minutes * 60_000),
  leaseMs,
  renewMs,
  retryMs,
  slackMs,
  actModule: values.act,
  log: (line) => {
    if (values.verbose) console.log(`  ${line}`);
  },
});
for (const line of formatLeaderReport(report)) console.log(line);
process.exitCode = report.failures.length === 0 ? 0 : 1;
