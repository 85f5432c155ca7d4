// The watch targets of DESIGN "Performance and reliability" in one command, on both stream
// layouts and in both modes (the real-cluster mode first), in interleaved rounds:
//   npm run bench:targets                (builds dist/ first)
//   node bench/targets.mjs [--rounds=5] [--events=100000] [--warmup=20000]
//                          [--only=fromWatch,resumedStore,clientNodeWatch,clientNodeInformer]
//                          [--streams=growing,cycle] [--modes=tls,http] [--slices=10]
// --only=...,resumedStore+liftoff adds the resumed store with V8's --liftoff-only (undici's
// llhttp never compiled by TurboFan: its one-time memory taken out; a `ref` RSS line).
// --slices=N (watch.bench.mjs): each round's consumers read their events in N interleaved
// slices, and ratios pair adjacent slices (0: one whole run per consumer process, as before).
// Every round runs watch.bench.mjs once per layout (one round each, the order rotated as that
// round's), so every layout and mode meets the machine's load of that moment alike. Printed per
// layout and mode: the consumers' medians (events/s and their spread, peak RSS, peak heap,
// promoted bytes per event, CPU per event) and every target as the median of same-round ratios
// with their spread; the machine's load average (`uptime`) before and after. Written to
// bench/results/targets.json.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  MODE_LABELS,
  measureTargets,
  summarize,
  summaryTable,
  targetLines,
  targetsOf,
} from './watch/report.mjs';
import { benchArgs } from './args.mjs';

const run = promisify(execFile);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const args = benchArgs();
const ROUNDS = Number(args.rounds ?? 5);
const EVENTS = Number(args.events ?? 100_000);
const WARMUP = Number(args.warmup ?? 20_000);
const ONLY = args.only ?? 'fromWatch,resumedStore,clientNodeWatch,clientNodeInformer';
const STREAMS = (args.streams ?? 'growing,cycle').split(',');
const MODES = (args.modes ?? 'tls,http').split(',');
const SLICES = Number(args.slices ?? 10);
const LAYOUTS = {
  growing: '1 000 pods, ADDED then MODIFIED, one HTTP chunk (HTTP/2: one DATA frame) per event',
  cycle: '100 pods cycling ADDED, 8x MODIFIED, DELETED, ~64 KiB chunks',
};

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const scratch = join(tmpdir(), `kube-rx-targets-${process.pid}`);
await mkdir(scratch, { recursive: true });
const loadBefore = load();
const started = new Date();
console.log(
  `watch targets: ${ROUNDS} rounds of ${EVENTS.toLocaleString('en-US')} events after a warm-up ` +
    `of ${WARMUP.toLocaleString('en-US')}, layouts ${STREAMS.join(', ')}, modes ` +
    `${MODES.join(', ')}, consumers ${ONLY}, ${SLICES > 0 ? `${SLICES} interleaved slices per round` : 'one run per consumer per round'}; load average ${loadBefore}`,
);

/** Per layout and mode: { rounds, labels }. */
const collected = {};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const stream of STREAMS) {
      const out = join(scratch, `${stream}-${round}.json`);
      await run(
        process.execPath,
        [
          here('./watch.bench.mjs'),
          '--rounds=1',
          `--round-offset=${round}`,
          `--stream=${stream}`,
          `--events=${EVENTS}`,
          `--warmup=${WARMUP}`,
          `--only=${ONLY}`,
          `--modes=${MODES.join(',')}`,
          `--slices=${SLICES}`,
          `--out=${out}`,
        ],
        { maxBuffer: 16 << 20, timeout: 60 * 60_000 },
      ).catch((error) => {
        // A failed consumer makes watch.bench.mjs exit 1 after writing its results.
        if (!error.stdout) throw error;
        process.stderr.write(error.stderr ?? '');
      });
      const result = JSON.parse(await readFile(out, 'utf8'));
      for (const mode of MODES) {
        const entry = (collected[`${stream} ${mode}`] ??= { stream, mode, rounds: [], labels: {} });
        const { rounds, summary } = result.modes[mode];
        entry.rounds.push(...rounds);
        for (const { consumer, label } of summary) entry.labels[consumer] = label;
      }
      console.log(`  round ${round + 1}/${ROUNDS} ${stream} done (load average ${load()})`);
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}

const reports = Object.values(collected).map(({ stream, mode, rounds, labels }) => {
  const names = Object.keys(labels);
  const summary = summarize(rounds, names, (name) => labels[name]);
  const targets = measureTargets(rounds, names, targetsOf(mode));
  return { stream, mode, rounds, summary, targets, table: summaryTable(summary) };
});
// The real-cluster mode first, as DESIGN and the README report it.
for (const mode of MODES) {
  for (const { stream, table, targets } of reports.filter((r) => r.mode === mode)) {
    console.log(`\n### ${MODE_LABELS[mode]}, ${stream}: ${LAYOUTS[stream]}\n\n${table}\n`);
    for (const line of targetLines(targets)) console.log(line);
  }
}
const loadAfter = load();
console.log(`\nload average before ${loadBefore}, after ${loadAfter}`);
if (process.env.NODE_OPTIONS) console.log(`NODE_OPTIONS=${process.env.NODE_OPTIONS}`);
await mkdir(here('./results'), { recursive: true });
await writeFile(
  here('./results/targets.json'),
  JSON.stringify(
    {
      bench: 'targets',
      started: started.toISOString(),
      config: {
        rounds: ROUNDS,
        events: EVENTS,
        warmup: WARMUP,
        only: ONLY,
        streams: STREAMS,
        slices: SLICES,
        nodeOptions: process.env.NODE_OPTIONS || undefined,
      },
      loadBefore,
      loadAfter,
      reports,
    },
    null,
    2,
  ) + '\n',
);
console.log('written to bench/results/targets.json');
