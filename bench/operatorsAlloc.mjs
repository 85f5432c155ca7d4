// Bytes the resumed store's operators allocate per event, per build: a count that does not
// depend on the machine's load (operatorsAB.mjs gives the CPU side, which does). What an
// operator allocates per event sets how often V8 scavenges, and on a layout whose cached objects
// outlive a scavenge interval, how many of them survive two scavenges and are promoted.
//   node bench/operatorsAlloc.mjs [--dist=<dist dir>] [--alt=<dist dir>] [--events=1000000]
//                                 [--modes=none,resume,store,pipeline] [--stream=cycle,growing]
// Each build, mode and stream runs in a process of its own under --trace-gc-nvp: 20 000 events
// to warm up, a full collection, then the measured events (pre-parsed, as in operatorsAB.mjs,
// each with a fresh resourceVersion); the bytes allocated are the sum of what V8 reports at each
// scavenge after the full collection, over the events sent: exact to one scavenge (~16 MB, so
// about 16 B/event at a million events).
// `none` (the source alone: the event object and its version string) is the floor.
import { execFile } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { promisify } from 'node:util';
import { benchArgs } from './args.mjs';

const args = benchArgs();
const EVENTS = Number(args.events ?? 1_000_000);
const here = resolvePath(args.dist ?? fileURLToPath(new URL('../dist/', import.meta.url)));

if (args.child) {
  const { eventPool, operatorFeed } = await import('./watch/operatorFeed.mjs');
  const { send } = await operatorFeed(here, args.mode, await eventPool());
  send(20_000);
  globalThis.gc();
  console.log('MEASURED FROM HERE');
  send(EVENTS);
  process.exit(0); // withBookmarks' idle timer would keep the process up
} else {
  const run = promisify(execFile);
  const builds = [here, ...(args.alt ? [resolvePath(args.alt)] : [])];
  for (const stream of (args.stream ?? 'cycle,growing').split(',')) {
    for (const mode of (args.modes ?? 'none,resume,store,pipeline').split(',')) {
      const perBuild = [];
      for (const build of builds) {
        const { stdout } = await run(
          process.execPath,
          [
            '--expose-gc',
            '--trace-gc-nvp',
            fileURLToPath(import.meta.url),
            '--child',
            `--dist=${build}`,
            `--mode=${mode}`,
            `--events=${EVENTS}`,
          ],
          { env: { ...process.env, BENCH_STREAM: stream }, maxBuffer: 1 << 28 },
        );
        const after = stdout.slice(stdout.indexOf('MEASURED FROM HERE'));
        const bytes = [...after.matchAll(/\bgc=s\b.*?\ballocated=(\d+)/g)]
          .map((m) => Number(m[1]))
          .reduce((sum, n) => sum + n, 0);
        perBuild.push(`${Math.round(bytes / EVENTS)} B/event`);
      }
      console.log(`${stream.padEnd(8)} ${mode.padEnd(9)} ${perBuild.join(', alt ')}`);
    }
  }
}
