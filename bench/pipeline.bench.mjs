// What keeping a cache costs, in memory (no I/O): the resumed pipeline's operators against a
// plain Map, on the watch benchmark's pod lines, parsed afresh for every event. Not in `npm test`.
//   npm run bench -- pipeline
//   node bench/pipeline.bench.mjs [--rounds=3] [--events=100000]
// Needs a build (`npm run build`): it imports dist/.
//
// Every mode runs in a fresh process (this file with --mode=<mode>), once per round, in a
// rotating order; reported: the median ns per event, and that minus `parse`.
//   parse      JSON.parse of each line, the event handed to a subscriber, nothing kept
//   map        + each pod kept in a plain Map (what a mutable cache costs)
//   resume     withBookmarks + resumeFromResourceVersion (which keeps the last object per key)
//   store      toStore alone
//   pipeline   withBookmarks + resumeFromResourceVersion + toStore
import { execFile } from 'node:child_process';
import { setImmediate } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = 'true'] = arg.replace(/^--/, '').split('=');
    return [key, value];
  }),
);
const EVENTS = Number(args.events ?? 100_000);
const MODES = ['parse', 'map', 'resume', 'store', 'pipeline'];

if (args.mode) {
  console.log(JSON.stringify({ mode: args.mode, nsPerEvent: await measure(args.mode) }));
} else {
  const rounds = Number(args.rounds ?? 3);
  const run = promisify(execFile);
  const results = Object.fromEntries(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < MODES.length; i++) {
      const mode = MODES[(i + round) % MODES.length];
      const { stdout } = await run(process.execPath, [
        fileURLToPath(import.meta.url),
        `--mode=${mode}`,
        `--events=${EVENTS}`,
      ]);
      results[mode].push(JSON.parse(stdout).nsPerEvent);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const parse = median(results.parse);
  const { PODS } = await import('./watch/pods.mjs');
  console.log(
    `pipeline bench: ${EVENTS} events about ${PODS} pods, ${rounds} rounds, ns per event`,
  );
  console.log('| mode | median ns/event | above parse |');
  console.log('| :--- | ---: | ---: |');
  for (const mode of MODES) {
    const value = median(results[mode]);
    console.log(`| ${mode} | ${Math.round(value)} | ${Math.round(value - parse)} |`);
  }
}

async function measure(mode) {
  const { Observable, map, of } = await import('rxjs');
  const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
  const { createWatchSource } = await import(dist('sources/WatchSource.js'));
  const { withBookmarks } = await import(dist('operators/withBookmarks.js'));
  const { resumeFromResourceVersion } = await import(
    dist('operators/resumeFromResourceVersion.js')
  );
  const { toStore } = await import(dist('operators/toStore.js'));
  const { PODS, eventLine, podTemplates } = await import('./watch/pods.mjs');
  const templates = podTemplates();
  const lines = [];
  for (let i = 0; i < 2 * PODS; i++) lines.push(eventLine(templates, i));

  // A connection that parses every line afresh, each with a new resourceVersion.
  const connect = () =>
    new Observable((subscriber) => {
      for (let i = 0; i < EVENTS && !subscriber.closed; i++) {
        const event = JSON.parse(lines[i < PODS ? i : PODS + (i % PODS)]);
        event.resourceVersion = event.object.metadata.resourceVersion = String(i + 2);
        subscriber.next(event);
      }
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
    return cache.set(`${namespace}/${name}`, event.object);
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
    samples.push(
      await new Promise((resolve) => {
        let count = 0;
        let started;
        let subscription;
        subscription = pipelines[mode]().subscribe(() => {
          if (count === 0) started = process.hrtime.bigint();
          if (++count === EVENTS) {
            const ns = Number(process.hrtime.bigint() - started) / (EVENTS - 1);
            setImmediate(() => (subscription?.unsubscribe(), resolve(ns)));
          }
        });
      }),
    );
  }
  // The first repeat warms up the code and fills the cache; the second is the figure.
  return samples[1];
}
