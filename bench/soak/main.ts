// The soak (issue 8), from the repository root:
//   npm run soak -- --minutes 10 [--seed 1] [--namespaces 10] [--fault-every 15000]
//     [--minute-ms 60000]   (a shorter "minute" only to try it out: --minutes 3 --minute-ms 20000)
// 5 resumed watches per namespace (50 by default) through churn and faults; RSS, heap and handle
// counts every minute. Exit code 0 only when memory is flat (the last minute within 10 % of the
// second), the stores match the server at the end and no socket is left open.
import { parseArgs } from 'node:util';
import { numberOption as number } from '../chaos/harness.js';
import { formatSoak, runSoak } from './soak.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    minutes: { type: 'string', default: '10' },
    namespaces: { type: 'string', default: '10' },
    'fault-every': { type: 'string', default: '15000' },
    'minute-ms': { type: 'string', default: '60000' },
  },
  strict: true,
});

const options = {
  seed: number('seed', values.seed!, 0, 2 ** 32 - 1),
  // Memory is judged flat by comparing the last period with the second: 3 periods at least.
  minutes: number('minutes', values.minutes!, 3, 24 * 60),
  namespaces: number('namespaces', values.namespaces!, 1, 100),
  faultEveryMs: number('fault-every', values['fault-every']!, 500, 3_600_000),
  minuteMs: number('minute-ms', values['minute-ms']!, 1000, 3_600_000),
  log: (line: string) => console.log(line),
};
if (!(globalThis as { gc?: unknown }).gc)
  console.log('note: run with --expose-gc for steadier figures');
console.log(
  `soak: seed ${options.seed}, ${options.minutes} periods of ${options.minuteMs} ms, ` +
    `${options.namespaces * 5} watches, a fault every ~${options.faultEveryMs} ms`,
);
const report = await runSoak(options);
for (const line of formatSoak(report)) console.log(line);
process.exitCode = report.failures.length === 0 ? 0 : 1;
