// Fan-out of createInformers (not part of `npm test`). Run from the repository root:
//   node --expose-gc --import ./bench/register.mjs bench/fanout.bench.ts [--quick] [--rounds=5]
//     [--events=5000] [--pods=1000]   (or: node bench/run.mjs fanout)
// One in-memory upstream (the informers' `source` seam: a list of `--pods` pods, then MODIFIED
// events pushed by the benchmark), shared by 1, 10, 100 and 1 000 subscribers of `.events()`
// (each counts what it gets) or of `.store()` (each reads `size` of the shared snapshot). Prints,
// as medians of rounds: CPU µs per event, CPU ns per event and subscriber, and the heap the
// subscribers add (after a full GC), beside a bare rxjs Subject fanning out the same events.
import type { V1Pod } from '@kubernetes/client-node';
import { Subject, defer, of, type Subscription } from 'rxjs';
import { createInformers } from '../src/index.js';
import { pods } from '../src/objects/resources.js';
import { createWatchSource } from '../src/index.js';
import { listOf, modified } from '../src/testing/marbles/builders.js';
import type { ClusterConnection, WatchEvent } from '../src/types.js';
import { podJson } from './storePods.js';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const quick = process.argv.includes('--quick');
const ROUNDS = Number(option('rounds') ?? (quick ? 3 : 5));
const EVENTS = Number(option('events') ?? (quick ? 2_000 : 5_000));
const PODS = Number(option('pods') ?? 1_000);
const FANOUTS = [1, 10, 100, 1_000];

function heapUsed(): number {
  if (!globalThis.gc) throw new Error('run with node --expose-gc');
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const makePod = (i: number, rv: number) => JSON.parse(podJson(i, rv)) as V1Pod;
const cluster: ClusterConnection = { name: 'memory', resolve: () => Promise.reject(new Error()) };

/** The events of a round, built before measuring: MODIFIED of pods taken in turn. */
function roundEvents(round: number): WatchEvent<V1Pod>[] {
  const base = PODS + 1 + round * EVENTS;
  return Array.from({ length: EVENTS }, (_, i) => modified(makePod(i % PODS, base + i)));
}

interface Measure {
  cpuMicrosPerEvent: number;
  heapBytes: number;
}

/** Subscribes `n` consumers, pushes the events through the one upstream, measures. */
function measure(
  kind: 'events' | 'store' | 'subject',
  n: number,
  events: WatchEvent<V1Pod>[],
): Measure {
  const upstream = new Subject<WatchEvent<V1Pod>>();
  const initial = Array.from({ length: PODS }, (_, i) => makePod(i, i + 1));
  const informers = createInformers({
    resilience: { random: () => 0.5, bookmarks: { idleTimeout: 3_600_000 } },
    source: (_cluster, resource, options) =>
      createWatchSource({
        cluster,
        resource,
        options,
        connect: () => upstream,
        list: () => defer(() => of(listOf(initial, String(PODS)))),
      }),
  });
  const before = heapUsed();
  const subscriptions: Subscription[] = [];
  let seen = 0;
  for (let i = 0; i < n; i++) {
    if (kind === 'events') {
      subscriptions.push(informers.events(cluster, pods).subscribe(() => seen++));
    } else if (kind === 'store') {
      subscriptions.push(informers.store(cluster, pods).subscribe((s) => (seen += s.size & 1)));
    } else {
      subscriptions.push(upstream.subscribe(() => seen++));
    }
  }
  const heapBytes = heapUsed() - before;
  const start = process.cpuUsage();
  for (const event of events) upstream.next(event);
  const cpu = process.cpuUsage(start);
  subscriptions.forEach((s) => s.unsubscribe());
  if (seen < 0) console.log(seen); // keeps `seen` alive
  return { cpuMicrosPerEvent: (cpu.user + cpu.system) / events.length, heapBytes };
}

console.log(
  `fan-out of one upstream: ${PODS} pods, ${EVENTS} MODIFIED events per round, ${ROUNDS} rounds (medians)`,
);
console.log(
  '| consumers | subscribers | CPU µs/event | CPU ns/event/subscriber | marginal CPU ns/event/subscriber | heap added (KB) | marginal heap/subscriber (bytes) |',
);
console.log('| :-- | --: | --: | --: | --: | --: | --: |');
const labels = {
  events: 'informers.events()',
  store: 'informers.store()',
  subject: 'rxjs Subject (no state)',
};
for (const kind of ['events', 'store', 'subject'] as const) {
  let one: { cpu: number; heap: number } | undefined;
  for (const n of FANOUTS) {
    const results: Measure[] = [];
    for (let round = 0; round < ROUNDS; round++) results.push(measure(kind, n, roundEvents(round)));
    const cpu = median(results.map((r) => r.cpuMicrosPerEvent));
    const heap = median(results.map((r) => r.heapBytes));
    // What one more subscriber costs, beyond the shared upstream, state and fold of the first.
    one ??= { cpu, heap };
    const marginalCpu = n > 1 ? ((cpu - one.cpu) * 1000) / (n - 1) : NaN;
    const marginalHeap = n > 1 ? (heap - one.heap) / (n - 1) : NaN;
    console.log(
      `| ${labels[kind]} | ${n} | ${cpu.toFixed(2)} | ${((cpu * 1000) / n).toFixed(1)} | ${n > 1 ? marginalCpu.toFixed(1) : '-'} | ${(heap / 1024).toFixed(0)} | ${n > 1 ? Math.round(marginalHeap) : '-'} |`,
    );
  }
}
