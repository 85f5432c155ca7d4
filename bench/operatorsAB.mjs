// The resumed store's operators alone, two builds in one process, in alternating slices: what
// a change to the per-event path of withBookmarks + resumeFromResourceVersion + toStore saves,
// resolved on a busy machine (each slice is ~0.1 s; a ratio pairs each slice of this build with
// the mean of the other build's slices before and after it, so a drifting host cancels).
//   node bench/operatorsAB.mjs --alt=<dist dir> [--dist=<dist dir>] [--slices=40]
//                              [--events=20000] [--modes=pipeline,resume,store,none]
//                              [--stream=cycle]
// Events are pre-parsed (a pool of 30 cycles of the watch bench's cycling stream: 100 pods,
// ADDED, 8x MODIFIED, DELETED), each given a fresh resourceVersion when it is sent, so the
// figure is the operators' CPU time per event without JSON.parse (which dominates and is the
// same in both). `none`: the source alone. Needs a build (`npm run build`) and the alt build.
// Resolution: an A/A run (two copies of one build) reads 0.90-1.09 on a busy machine (the two
// copies share rxjs, whose call sites see both): trust differences well beyond that, and repeat
// with the builds swapped (--dist and --alt) before believing a smaller one.
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL, URL, fileURLToPath } from 'node:url';
import { benchArgs } from './args.mjs';

const args = benchArgs();
if (!args.alt) throw new Error('--alt=<dist dir> is required');
const SLICES = Number(args.slices ?? 40);
const EVENTS = Number(args.events ?? 20_000);
const MODES = (args.modes ?? 'pipeline,resume,store,none').split(',');
process.env.BENCH_STREAM = args.stream ?? 'cycle';
const { eventPool, operatorFeed } = await import('./watch/operatorFeed.mjs');
const pool = await eventPool();

/** The operators of one build, fed by a source this bench pushes events into. */
async function build(distDir, mode) {
  const feed = await operatorFeed(distDir, mode, pool);
  return {
    /** Sends `count` events; returns CPU µs used. */
    slice(count) {
      const before = process.cpuUsage();
      feed.send(count);
      const { user, system } = process.cpuUsage(before);
      return user + system;
    },
    last: feed.last,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.round((values.length - 1) * q)];

const here = fileURLToPath(
  new URL(
    args.dist ? pathToFileURL(resolvePath(args.dist) + '/') : new URL('../dist/', import.meta.url),
  ),
);
for (const mode of MODES) {
  const a = await build(here, mode);
  const b = await build(resolvePath(args.alt), mode);
  // Warm-up: both builds' code optimised.
  for (let i = 0; i < 5; i++) {
    a.slice(EVENTS);
    b.slice(EVENTS);
  }
  const sequence = [];
  for (let i = 0; i < SLICES; i++) {
    // ABBA: each build runs first half of the time.
    const order = i % 2 ? [b, a] : [a, b];
    for (const build of order) sequence.push({ build, micros: build.slice(EVENTS) });
  }
  const ratios = [];
  sequence.forEach((entry, i) => {
    if (entry.build !== a) return;
    const neighbours = [sequence[i - 1], sequence[i + 1]].filter((n) => n && n.build === b);
    if (neighbours.length === 0) return;
    ratios.push(entry.micros / (neighbours.reduce((s, n) => s + n.micros, 0) / neighbours.length));
  });
  const perEvent = (build) =>
    median(sequence.filter((e) => e.build === build).map((e) => e.micros / EVENTS));
  console.log(
    `${mode.padEnd(9)} this ${perEvent(a).toFixed(2)} µs/event, alt ${perEvent(b).toFixed(2)}; ` +
      `this/alt median ${median(ratios).toFixed(3)} (quartiles ${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}, ${ratios.length} pairs)`,
  );
}
process.exit(0); // the idle timers of withBookmarks would keep the process up
