// The chaos run (issue 8), from the repository root:
//   npm run chaos -- --seed 42 --minutes 5 [--fault-every 1500] [--backoff-scale 1]
//     [--namespaces 4] [--initial-state list|watch-list] [--verbose] [--controller]
// --controller runs a controller() under the same workload and faults instead (controllerChaos.ts).
// It runs TypeScript through bench/register.mjs (no build). Exit code 0 only when the store
// equals the server, nothing was lost or duplicated and no socket is left open.
import { parseArgs } from 'node:util';
import { formatReport, missingFaultKinds, runChaos } from './chaos.js';
import { formatControllerReport, runControllerChaos } from './controllerChaos.js';
import { numberOption as number } from './harness.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    minutes: { type: 'string', default: '1' },
    'fault-every': { type: 'string', default: '1500' },
    'backoff-scale': { type: 'string', default: '1' },
    namespaces: { type: 'string', default: '4' },
    'initial-state': { type: 'string', default: 'list' },
    verbose: { type: 'boolean', default: false },
    controller: { type: 'boolean', default: false },
  },
  strict: true,
});

const seed = number('seed', values.seed!, 0, 2 ** 32 - 1);
const minutes = number('minutes', values.minutes!, 0.05, 24 * 60);
const faultEveryMs = number('fault-every', values['fault-every']!, 100, 600_000);
const backoffScale = number('backoff-scale', values['backoff-scale']!, 0.01, 1);
const namespaces = number('namespaces', values.namespaces!, 1, 50);
const initialState = values['initial-state'];
if (initialState !== 'list' && initialState !== 'watch-list') {
  console.error(`--initial-state must be list or watch-list, not ${JSON.stringify(initialState)}`);
  process.exit(2);
}

if (values.controller) {
  // A controller under the workload (issue 26): a reconciler that fails at random.
  console.log(`controller chaos: seed ${seed}, ${minutes} min, a fault every ~${faultEveryMs} ms`);
  const report = await runControllerChaos({
    seed,
    durationMs: Math.round(minutes * 60_000),
    faultEveryMs,
    backoffScale,
    namespaces,
    log: (line) => values.verbose && console.log(`  ${line}`),
  });
  for (const line of formatControllerReport(report)) console.log(line);
  process.exit(report.failures.length === 0 ? 0 : 1);
}

console.log(
  `chaos: seed ${seed}, ${minutes} min, a fault every ~${faultEveryMs} ms, ` +
    `backoff scale ${backoffScale}, ${namespaces} namespaces, initial state ${initialState}`,
);
const report = await runChaos({
  seed,
  durationMs: Math.round(minutes * 60_000),
  faultEveryMs,
  backoffScale,
  namespaces,
  initialState,
  log: (line) => {
    if (values.verbose || !line.startsWith('fault ')) console.log(`  ${line}`);
  },
});
for (const line of formatReport(report)) console.log(line);
const missing = missingFaultKinds(report);
if (missing.length > 0)
  console.log(`note           faults that never fired: ${missing.join(', ')}`);
process.exitCode = report.failures.length === 0 ? 0 : 1;
