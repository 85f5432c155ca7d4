import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/**
 * How the property suites run. In `npm test`: a fixed seed (39) and each property's own bounded
 * number of runs, so a failure is reproducible and the suite stays within its time. Under
 * `npm run fuzz` (scripts/fuzz.mjs): the runs and seed it is given, through the environment.
 */
const FUZZ_RUNS = Number(process.env.KUBE_RX_FUZZ_RUNS ?? 0);
export const SEED = Number(process.env.KUBE_RX_FUZZ_SEED ?? 39);
const REPORT = process.env.KUBE_RX_FUZZ_REPORT;

/**
 * Checks `property` with the suite's seed: `runs` runs in `npm test`, or the fuzz run's count
 * times `weight` (a property that drives a server over loopback costs a thousand times a
 * framer's run). A failure throws fast-check's report (seed, path and the shrunk counterexample);
 * under the fuzz script each property's runs and outcome are appended to its report file.
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  name: string,
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  runs: number,
  weight = 1,
): Promise<void> {
  const numRuns = FUZZ_RUNS > 0 ? Math.max(runs, Math.round(FUZZ_RUNS * weight)) : runs;
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, { seed: SEED, numRuns });
  if (REPORT !== undefined) {
    const line = { name, runs: details.numRuns, failed: details.failed, seed: details.seed };
    appendFileSync(REPORT, JSON.stringify(line) + '\n');
  }
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? `${name} failed`);
}
