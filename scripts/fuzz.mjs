// The long run of the property suites (spec/properties/): `npm run fuzz -- --runs N [--seed S]`.
// The same properties as `npm test`, with N runs each (a server-driven property takes its share
// of N, see spec/properties/settings.ts) and a random seed unless one is given, so that every
// long run explores new inputs and any failure can be replayed with its seed. Prints each
// property's runs and outcome, the totals and the wall time; exits 1 when a property failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}

const runs = Number(option('runs', '10000'));
const seed = Number(option('seed', String(Math.floor(Math.random() * 2 ** 31))));
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- --runs N [--seed S]');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'kube-rx-fuzz-'));
const report = join(dir, 'report.jsonl');
const started = Date.now();
console.log(`fuzz: ${runs} runs per property, seed ${seed}`);
const jest = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    'spec/properties',
    '--maxWorkers=1',
    '--testTimeout=0',
  ],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      KUBE_RX_FUZZ_RUNS: String(runs),
      KUBE_RX_FUZZ_SEED: String(seed),
      KUBE_RX_FUZZ_REPORT: report,
    },
  },
);

let lines = [];
try {
  lines = readFileSync(report, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} catch {
  // No property reported: jest failed before running them (its output says why).
}
rmSync(dir, { recursive: true, force: true });
const total = lines.reduce((sum, l) => sum + l.runs, 0);
const failed = lines.filter((l) => l.failed);
for (const l of lines) {
  console.log(`${l.failed ? 'FAILED' : 'ok    '} ${String(l.runs).padStart(8)} runs  ${l.name}`);
}
const seconds = Math.round((Date.now() - started) / 1000);
console.log(
  `fuzz: ${lines.length} properties, ${total} runs, ${failed.length} failed, seed ${seed}, ${seconds} s`,
);
process.exit(jest.status === 0 && failed.length === 0 && lines.length > 0 ? 0 : 1);
