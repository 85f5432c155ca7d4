// The operators' share of a first sync, list against watch-list (no I/O): the CPU time from
// subscribing withBookmarks + resumeFromResourceVersion + toStore to the synced store, with the
// pods given as a list of items or as ADDED events and the initial-events-end BOOKMARK (one
// macrotask per 100 events, as chunks arrive). Each pod is JSON.parse'd from its line as it is
// handed over, in both modes. What `scale.bench.mjs` times on the wall clock with the server and
// the transport; this is the part of it that the operators decide. Not in `npm test`.
//   npm run build && node bench/initialSync.bench.mjs [--pods=20000] [--rounds=5] [--alt=<dist>]
// Every mode (list, watchlist; with --alt also list@alt, watchlist@alt) runs in a fresh process,
// in a rotating order; reported: median CPU ms per sync, and the per-round watchlist / list.
import { execFile } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { setImmediate } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { benchArgs } from './args.mjs';
import { resumedStoreOperators } from './watch/operatorFeed.mjs';

const args = benchArgs();
const PODS = Number(args.pods ?? 20_000);
const ALT = args.alt ? resolvePath(args.alt) : undefined;

if (args.mode) {
  const dist = args.dist ?? fileURLToPath(new URL('../dist/', import.meta.url));
  console.log(JSON.stringify(await measure(args.mode, dist)));
  process.exit(0);
}

const rounds = Number(args.rounds ?? 5);
const run = promisify(execFile);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const names = ALT ? ['list', 'watchlist', 'list@alt', 'watchlist@alt'] : ['list', 'watchlist'];
const results = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length];
    const [mode, alt] = name.split('@');
    const { stdout } = await run(process.execPath, [
      '--expose-gc',
      fileURLToPath(import.meta.url),
      `--mode=${mode}`,
      `--pods=${PODS}`,
      ...(alt ? [`--dist=${ALT}`] : []),
    ]);
    results[name].push(JSON.parse(stdout).cpuMs);
  }
}
console.log(`\ninitial sync, ${PODS} pods, ${rounds} rounds: CPU ms (median; min-max)`);
for (const name of names) {
  const values = results[name];
  console.log(
    `  ${name.padEnd(14)} ${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`,
  );
}
for (const suffix of ALT ? ['', '@alt'] : ['']) {
  const ratios = results[`watchlist${suffix}`].map((v, r) => v / results[`list${suffix}`][r]);
  console.log(
    `  watchlist / list${suffix}: ${median(ratios).toFixed(2)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
  );
}

async function measure(mode, distDir) {
  const { Observable, NEVER, defer, of } = await import('rxjs');
  const { createWatchSource, withBookmarks, resumeFromResourceVersion, toStore } =
    await resumedStoreOperators(distDir);
  const { podTemplates, eventLine } = await import('./watch/pods.mjs');
  const templates = podTemplates();
  // Pod i's line, its name made unique (the templates repeat), as the server would send it.
  const lines = Array.from({ length: PODS }, (_, i) =>
    eventLine(templates, i % templates.length).replace(/"name":"([^"]+)"/, `"name":"$1-${i}"`),
  );
  const version = '2000000000';
  const end = {
    type: 'BOOKMARK',
    object: {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {
        resourceVersion: version,
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    },
  };
  const sync = () =>
    new Promise((resolve) => {
      const source = createWatchSource({
        cluster: {},
        resource: { group: '', version: 'v1', plural: 'pods' },
        options: {},
        connect: (options) =>
          !options.sendInitialEvents
            ? NEVER
            : new Observable((subscriber) => {
                let i = 0;
                const chunk = () => {
                  for (let n = 0; n < 100 && i < PODS; n++) subscriber.next(JSON.parse(lines[i++]));
                  if (i < PODS) setImmediate(chunk);
                  else subscriber.next(end);
                };
                setImmediate(chunk);
              }),
        list: () =>
          defer(() =>
            of({ items: lines.map((line) => JSON.parse(line).object), resourceVersion: version }),
          ),
      });
      const started = process.cpuUsage();
      let done = false;
      const subscription = source
        .pipe(
          withBookmarks(),
          resumeFromResourceVersion({ initialState: mode === 'list' ? 'list' : 'watch-list' }),
          toStore(),
        )
        .subscribe((store) => {
          if (!store.synced || done) return;
          done = true;
          const { user, system } = process.cpuUsage(started);
          if (store.size !== PODS) throw new Error(`synced with ${store.size} pods`);
          resolve((user + system) / 1000);
        });
      // A list syncs before subscribe returns; a watch-list later: both stop once synced.
      const stop = () => (done ? subscription.unsubscribe() : setImmediate(stop));
      stop();
    });
  await sync(); // warm-up
  globalThis.gc?.();
  return { mode, cpuMs: await sync() };
}
