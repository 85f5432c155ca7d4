// What keeping a cache costs, in memory (no I/O): the resumed pipeline's operators against a
// plain Map, on the watch benchmark's pod objects, parsed afresh for every event. Not in
// `npm test`.
//   npm run bench -- pipeline
//   node bench/pipeline.bench.mjs [--rounds=5] [--events=100000] [--stream=growing,cycle]
//                                 [--modes=parse,pipeline] [--alt=<dist dir>]
// Needs a build (`npm run build`): it imports dist/ (and <dist dir> for --alt).
//
// Streams (each run once per round):
//   growing   1 000 pods: ADDED each once, then MODIFIED in turn; one event per macrotask (one
//             HTTP chunk per event, as a quiet API server sends them)
//   cycle     100 pods, each cycling ADDED, 8x MODIFIED, DELETED (then re-created under the same
//             name); the lines cut into 64 KiB chunks, one macrotask per chunk (many events per
//             chunk, as a busy API server sends them)
// Modes, every one in a fresh process (this file with --mode=...), in a rotating order:
//   parse      JSON.parse of each line, the event handed to a subscriber, nothing kept
//   array      + each pod kept in an array slot by its index (the cheapest cache there is, no key
//              at all: what V8 charges any cache for keeping objects that outlive a scavenge)
//   map        + each pod kept in a plain Map (what a mutable cache costs)
//   resume     withBookmarks + resumeFromResourceVersion (which keeps the last object per key)
//   store      toStore alone
//   pipeline   withBookmarks + resumeFromResourceVersion + toStore (the resumed store)
//   indexed    the pipeline into a toStore with two indexes
//   shared     the pipeline through shareWatch (one other subscriber), then toStore
//   informers  createInformers().store() with two indexes (the same source through its seam)
//   changedBy  the pipeline, then changedBy (which keeps a value per key)
// With --alt, every kube-rx mode also runs against that build, as `<mode>@alt`.
// Every process runs the stream twice (the first warms the code up); the second is measured
// from its tenth event on, after a full GC: what a long-lived watch meets sooner or later (the
// pipeline's own structures in old space; without it a run may or may not get there, and the
// runs are bimodal). Reported: the median CPU ns per event (to the return of the last one's
// delivery), that minus `parse`, the bytes scavenges promoted to old space per event and the
// peak heap (V8's GC profiler), and for @alt the median of the per-round ratios (this build's
// time / the alt build's: below 1 is faster).
import { execFile } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { clearImmediate, setImmediate } from 'node:timers';
import { GCProfiler } from 'node:v8';
import { gcSummary } from './gcSummary.mjs';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { benchArgs } from './args.mjs';
import { resumedStoreOperators } from './watch/operatorFeed.mjs';

const args = benchArgs();
const EVENTS = Number(args.events ?? 100_000);
const MODES = (
  args.modes ?? 'parse,array,map,resume,store,pipeline,indexed,shared,informers,changedBy'
).split(',');
const KUBE_RX_MODES = new Set([
  'resume',
  'store',
  'pipeline',
  'indexed',
  'shared',
  'informers',
  'changedBy',
]);
const STREAMS = (args.stream ?? 'growing,cycle').split(',');
const ALT = args.alt ? resolvePath(args.alt) : undefined;
const CHUNK_BYTES = 64 * 1024;
const CYCLE_PODS = 100;
/** ADDED, 8x MODIFIED, DELETED. */
const CYCLE_LENGTH = 10;

if (args.mode) {
  const dist = args.dist ?? fileURLToPath(new URL('../dist/', import.meta.url));
  const measured = await measure(args.mode, args.stream, dist);
  console.log(JSON.stringify({ mode: args.mode, ...measured }));
  // A shared upstream's other subscriber (and withBookmarks' timers) would keep the process up.
  process.exit(0);
} else {
  const rounds = Number(args.rounds ?? 5);
  const run = promisify(execFile);
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const runs = MODES.flatMap((mode) =>
    ALT && KUBE_RX_MODES.has(mode) ? [mode, `${mode}@alt`] : [mode],
  );
  for (const stream of STREAMS) {
    const results = Object.fromEntries(runs.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < runs.length; i++) {
        const name = runs[(i + round) % runs.length];
        const [mode, alt] = name.split('@');
        const { stdout } = await run(process.execPath, [
          '--expose-gc',
          fileURLToPath(import.meta.url),
          `--mode=${mode}`,
          `--stream=${stream}`,
          `--events=${EVENTS}`,
          ...(alt ? [`--dist=${ALT}`] : []),
        ]);
        results[name].push(JSON.parse(stdout));
      }
    }
    const ns = (name) => results[name].map((r) => r.nsPerEvent);
    const parse = results.parse ? median(ns('parse')) : 0;
    console.log(
      `\npipeline bench, stream ${stream}: ${EVENTS} events, ${rounds} rounds, ns per event` +
        (ALT ? ` (@alt: ${ALT})` : ''),
    );
    console.log(
      '| mode | median CPU ns/event | above parse | promoted B/event (min-max) | peak heap | this / alt (median of rounds) |',
    );
    console.log('| :--- | ---: | ---: | ---: | ---: | ---: |');
    for (const name of runs) {
      const value = median(ns(name));
      const ratio =
        ALT && results[`${name}@alt`]
          ? median(ns(name).map((v, round) => v / ns(`${name}@alt`)[round])).toFixed(2)
          : '';
      const promoted = results[name].map((r) => r.promotedPerEvent);
      const promotedText = `${Math.round(median(promoted))} (${Math.round(Math.min(...promoted))}-${Math.round(Math.max(...promoted))})`;
      const heap = `${(median(results[name].map((r) => r.peakHeap)) / 2 ** 20).toFixed(0)} MB`;
      console.log(
        `| ${name} | ${Math.round(value)} | ${Math.round(value - parse)} | ${promotedText} | ${heap} | ${ratio} |`,
      );
    }
  }
}

/** The lines of `stream`, grouped as they arrive: one group per macrotask. */
async function chunksOf(stream) {
  const { PODS, eventLine, podTemplates } = await import('./watch/pods.mjs');
  if (stream === 'growing') {
    const templates = podTemplates();
    const lines = [];
    for (let i = 0; i < 2 * PODS; i++) lines.push(eventLine(templates, i));
    const chunks = [];
    for (let i = 0; i < EVENTS; i++) chunks.push([lines[i < PODS ? i : PODS + (i % PODS)]]);
    return chunks;
  }
  if (stream !== 'cycle') throw new Error(`unknown stream ${stream}`);
  const templates = podTemplates().slice(0, CYCLE_PODS);
  const types = ['ADDED', ...Array(CYCLE_LENGTH - 2).fill('MODIFIED'), 'DELETED'];
  const lines = [];
  for (let i = 0; i < CYCLE_PODS * CYCLE_LENGTH; i++) {
    const type = types[Math.floor(i / CYCLE_PODS) % CYCLE_LENGTH];
    lines.push(
      eventLine(templates, i % CYCLE_PODS).replace(/^\{"type":"\w+"/, `{"type":"${type}"`),
    );
  }
  const chunks = [];
  let chunk = [];
  let bytes = 0;
  for (let i = 0; i < EVENTS; i++) {
    const line = lines[i % lines.length];
    chunk.push(line);
    bytes += line.length + 1;
    if (bytes >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

async function measure(mode, stream, distDir) {
  const { Observable, map } = await import('rxjs');
  const { podSource, withBookmarks, resumeFromResourceVersion, toStore } =
    await resumedStoreOperators(distDir);
  const dist = (path) => pathToFileURL(resolvePath(distDir, path)).href;
  const { shareWatch } = await import(dist('operators/shareWatch.js'));
  const { createInformers } = await import(dist('operators/createInformers.js'));
  const { changedBy } = await import(dist('operators/changedBy.js'));
  const chunks = await chunksOf(stream);
  // The measured window starts at the tenth of the chunks, after a full GC.
  const measuredFrom = Math.floor(chunks.length / 10);
  const measuredEvents = chunks.slice(measuredFrom).reduce((sum, chunk) => sum + chunk.length, 0);
  let profiler;

  let started;
  let finished;
  // A connection that parses every line afresh, each with a new resourceVersion, one chunk per
  // macrotask; it measures the CPU time of the process (every thread: the garbage collector's
  // helpers too) from its first event to the return of its last one's delivery. CPU time, not
  // wall time: a shared machine delays macrotasks, it does not add CPU time.
  const connect = () =>
    new Observable((subscriber) => {
      let version = 2;
      let index = 0;
      let immediate;
      const nextChunk = () => {
        if (index === measuredFrom && measuring) {
          globalThis.gc?.();
          profiler = new GCProfiler();
          profiler.start();
          started = process.cpuUsage();
        }
        for (const line of chunks[index++]) {
          if (subscriber.closed) return;
          const event = JSON.parse(line);
          event.resourceVersion = event.object.metadata.resourceVersion = String(version++);
          subscriber.next(event);
        }
        if (index < chunks.length) immediate = setImmediate(nextChunk);
        else if (!measuring) finished();
        else {
          const { user, system } = process.cpuUsage(started);
          finished({
            nsPerEvent: ((user + system) * 1000) / measuredEvents,
            ...perEvent(gcSummary(profiler.stop().statistics), measuredEvents),
          });
        }
      };
      immediate = setImmediate(nextChunk);
      return () => clearImmediate(immediate);
    });
  const source = podSource(connect);
  // Event n of either stream is about pod n % (the stream's pod count): its slot.
  const podCount = stream === 'growing' ? (await import('./watch/pods.mjs')).PODS : CYCLE_PODS;
  const slots = [];
  let eventIndex = 0;
  const slot = map((event) => {
    const index = eventIndex++ % podCount;
    slots[index] = event.type === 'DELETED' ? undefined : event.object;
    return slots;
  });
  const cache = new Map();
  const keep = map((event) => {
    const { namespace, name } = event.object.metadata;
    if (event.type === 'DELETED') cache.delete(`${namespace}/${name}`);
    else cache.set(`${namespace}/${name}`, event.object);
    return cache;
  });
  const resumed = () => source.pipe(withBookmarks(), resumeFromResourceVersion());
  const indexes = {
    byNode: (pod) => [pod.spec?.nodeName ?? ''],
    byApp: (pod) => [pod.metadata.labels?.app ?? ''],
  };
  const cluster = { name: 'memory', resolve: () => Promise.reject(new Error('in memory')) };
  const pipelines = {
    parse: () => connect(),
    array: () => connect().pipe(slot),
    map: () => connect().pipe(keep),
    resume: resumed,
    store: () => connect().pipe(toStore()),
    pipeline: () => resumed().pipe(toStore()),
    indexed: () => resumed().pipe(toStore({ indexes })),
    shared: () => {
      const shared = resumed().pipe(shareWatch());
      shared.subscribe();
      return shared.pipe(toStore());
    },
    informers: () =>
      createInformers({ source: () => source }).store(cluster, source.resource, {}, { indexes }),
    changedBy: () => resumed().pipe(changedBy((pod) => pod.metadata.resourceVersion)),
  };
  const samples = [];
  let measuring = false;
  for (let repeat = 0; repeat < 2; repeat++) {
    measuring = repeat === 1;
    let last;
    const done = new Promise((resolve) => (finished = resolve));
    const subscription = pipelines[mode]().subscribe((value) => (last = value));
    samples.push(await done);
    subscription.unsubscribe();
    // A store that was never read is still a store: read it once, as a consumer would.
    if (last && typeof last.values === 'function') last.values();
  }
  // The first repeat warms up the code; the second is the figure.
  return samples[1];
}

/** Promoted bytes per event of a window, and its peak heap (the heap now included). */
function perEvent({ promoted, peakHeap }, events) {
  return {
    promotedPerEvent: promoted / events,
    peakHeap: Math.max(peakHeap, process.memoryUsage().heapUsed),
  };
}
