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
//   map        + each pod kept in a plain Map (what a mutable cache costs)
//   resume     withBookmarks + resumeFromResourceVersion (which keeps the last object per key)
//   store      toStore alone
//   pipeline   withBookmarks + resumeFromResourceVersion + toStore (the resumed store)
// With --alt, resume, store and pipeline also run against that build, as `<mode>@alt`.
// Reported: the median CPU ns per event (from the first event to the return of the last one's
// delivery), that minus `parse`, and for @alt the median of the per-round
// ratios (this build's time / the alt build's: below 1 is faster).
import { execFile } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { clearImmediate, setImmediate } from 'node:timers';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = 'true'] = arg.replace(/^--/, '').split('=');
    return [key, value];
  }),
);
const EVENTS = Number(args.events ?? 100_000);
const MODES = (args.modes ?? 'parse,map,resume,store,pipeline').split(',');
const KUBE_RX_MODES = new Set(['resume', 'store', 'pipeline']);
const STREAMS = (args.stream ?? 'growing,cycle').split(',');
const ALT = args.alt ? resolvePath(args.alt) : undefined;
const CHUNK_BYTES = 64 * 1024;
const CYCLE_PODS = 100;
/** ADDED, 8x MODIFIED, DELETED. */
const CYCLE_LENGTH = 10;

if (args.mode) {
  const dist = args.dist ?? fileURLToPath(new URL('../dist/', import.meta.url));
  const nsPerEvent = await measure(args.mode, args.stream, dist);
  console.log(JSON.stringify({ mode: args.mode, nsPerEvent }));
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
          fileURLToPath(import.meta.url),
          `--mode=${mode}`,
          `--stream=${stream}`,
          `--events=${EVENTS}`,
          ...(alt ? [`--dist=${ALT}`] : []),
        ]);
        results[name].push(JSON.parse(stdout).nsPerEvent);
      }
    }
    const parse = results.parse ? median(results.parse) : 0;
    console.log(
      `\npipeline bench, stream ${stream}: ${EVENTS} events, ${rounds} rounds, ns per event` +
        (ALT ? ` (@alt: ${ALT})` : ''),
    );
    console.log('| mode | median CPU ns/event | above parse | this / alt (median of rounds) |');
    console.log('| :--- | ---: | ---: | ---: |');
    for (const name of runs) {
      const value = median(results[name]);
      const ratio =
        ALT && results[`${name}@alt`]
          ? median(results[name].map((v, round) => v / results[`${name}@alt`][round])).toFixed(2)
          : '';
      console.log(`| ${name} | ${Math.round(value)} | ${Math.round(value - parse)} | ${ratio} |`);
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
  const { Observable, map, of } = await import('rxjs');
  const dist = (path) => pathToFileURL(resolvePath(distDir, path)).href;
  const { createWatchSource } = await import(dist('sources/WatchSource.js'));
  const { withBookmarks } = await import(dist('operators/withBookmarks.js'));
  const { resumeFromResourceVersion } = await import(
    dist('operators/resumeFromResourceVersion.js')
  );
  const { toStore } = await import(dist('operators/toStore.js'));
  const chunks = await chunksOf(stream);

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
        if (index === 0) started = process.cpuUsage();
        for (const line of chunks[index++]) {
          if (subscriber.closed) return;
          const event = JSON.parse(line);
          event.resourceVersion = event.object.metadata.resourceVersion = String(version++);
          subscriber.next(event);
        }
        if (index < chunks.length) immediate = setImmediate(nextChunk);
        else {
          const { user, system } = process.cpuUsage(started);
          finished(((user + system) * 1000) / EVENTS);
        }
      };
      immediate = setImmediate(nextChunk);
      return () => clearImmediate(immediate);
    });
  const source = createWatchSource({
    cluster: {},
    resource: { group: '', apiVersion: 'v1', plural: 'pods' },
    options: {},
    connect,
    list: () => of({ items: [], resourceVersion: '1' }),
  });
  const cache = new Map();
  const keep = map((event) => {
    const { namespace, name } = event.object.metadata;
    if (event.type === 'DELETED') cache.delete(`${namespace}/${name}`);
    else cache.set(`${namespace}/${name}`, event.object);
    return cache;
  });
  const pipelines = {
    parse: () => connect(),
    map: () => connect().pipe(keep),
    resume: () => source.pipe(withBookmarks(), resumeFromResourceVersion()),
    store: () => connect().pipe(toStore()),
    pipeline: () => source.pipe(withBookmarks(), resumeFromResourceVersion(), toStore()),
  };
  const samples = [];
  for (let repeat = 0; repeat < 2; repeat++) {
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
