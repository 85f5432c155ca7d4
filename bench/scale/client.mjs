// One configuration of the scale benchmark, in a fresh process (scale.bench.mjs forks it with
// --expose-gc): node --expose-gc bench/scale/client.mjs <config> <server url> <pods>
// It syncs a store of every pod the server has and prints one JSON line:
//   { config, pods, syncMs, heapPerObject, peakRssBytes }
// syncMs: from the first request to a synced store holding every pod; heapPerObject: heap used
// after a full GC with the store alive, less the heap before the first request, per pod;
// peakRssBytes: the process's peak resident set (getrusage).
//
// raw-list and raw-list-metadata read the list's pages without decoding them (syncMs: the server's
// and the transport's time alone).
//
// Or, for toStore's update cost: node --expose-gc bench/scale/client.mjs store-update <objects> <events>
// prints { config: 'store-update', objects, nsPerEvent }.
import { performance } from 'node:perf_hooks';
import { setTimeout, clearTimeout } from 'node:timers';
import { URL } from 'node:url';
import { benchKubeConfig as kubeConfig } from '../benchKubeConfig.mjs';
import { readList } from './rawList.mjs';

const dist = process.env.BENCH_DIST
  ? new URL(`file://${process.env.BENCH_DIST}/index.js`).href
  : new URL('../../dist/index.js', import.meta.url).href;
const [config, target, count, extra] = process.argv.slice(2);

/** Every kube-rx configuration: initial state, shape and transform. */
const KUBE_RX = {
  'list-full': { initialState: 'list' },
  'list-strip': { initialState: 'list', strip: true },
  'list-metadata': { initialState: 'list', metadata: true },
  'list-metadata-strip': { initialState: 'list', metadata: true, strip: true },
  'watchlist-full': { initialState: 'watch-list' },
  'watchlist-strip': { initialState: 'watch-list', strip: true },
  'watchlist-metadata': { initialState: 'watch-list', metadata: true },
  'watchlist-metadata-strip': { initialState: 'watch-list', metadata: true, strip: true },
  // shareStrings (and, for whole objects, shareManagedFields): less heap for a walk per object.
  'list-strip-strings': { initialState: 'list', strip: true, strings: true },
  'watchlist-shared': { initialState: 'watch-list', fields: true, strings: true },
  'watchlist-strip-strings': { initialState: 'watch-list', strip: true, strings: true },
  'watchlist-metadata-strings': { initialState: 'watch-list', metadata: true, strings: true },
};

/** The transform of a configuration: strip, then share field sets, then share strings. */
function transformOf(lib, { strip, fields, strings }) {
  const steps = [
    strip && lib.stripManagedFields,
    fields && lib.shareManagedFields,
    strings && lib.shareStrings,
  ].filter(Boolean);
  if (steps.length === 0) return undefined;
  if (steps.length === 1) return steps[0];
  return (object) => steps.reduce((value, step) => step(value), object);
}

function fullGc() {
  for (let i = 0; i < 3; i++) globalThis.gc();
}

/** Syncs with kube-rx: resilientWatch + toStore; resolves with what keeps the store alive. */
async function kubeRx(kc, pods, settings) {
  const lib = await import(dist);
  const ref = settings.metadata ? lib.metadataOnly(lib.pods) : lib.pods;
  const transform = transformOf(lib, settings);
  const options = transform ? { transform } : {};
  const watch = lib.resilientWatch(kc, ref, options, { initialState: settings.initialState });
  return (measure) =>
    new Promise((resolve, reject) => {
      const held = { store: undefined, subscription: undefined };
      const started = performance.now();
      held.subscription = watch.pipe(lib.toStore()).subscribe({
        next: (store) => {
          held.store = store;
          if (store.synced && store.size === pods && !held.done) {
            held.done = true;
            resolve({ syncMs: performance.now() - started, held });
          }
        },
        error: reject,
      });
      void measure;
    });
}

/**
 * Reads the list's pages (500 a page) without decoding them: the server and the transport alone,
 * the floor under every client's time to list (`raw-list`, `raw-list-metadata`).
 */
function rawList(target, metadata) {
  return async () => {
    const { ms } = await readList(target, '500', metadata ? 'metadata' : 'full');
    return { syncMs: ms, held: true };
  };
}

/** Syncs with client-node 1.4's informer (full objects), as its README shows it. */
async function informer(kc, pods) {
  const { CoreV1Api, makeInformer } = await import('@kubernetes/client-node');
  const api = kc.makeApiClient(CoreV1Api);
  return async () => {
    const started = performance.now();
    const held = makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
    held.on('error', (error) => {
      console.error('informer error', error?.message ?? error);
      process.exit(2);
    });
    await held.start();
    const size = held.list().length;
    if (size !== pods) throw new Error(`the informer holds ${size} pods, not ${pods}`);
    return { syncMs: performance.now() - started, held };
  };
}

async function storeUpdate(objects, events) {
  const { Subject } = await import('rxjs');
  const lib = await import(dist);
  const pod = (i, rv) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % 50}`,
      uid: `uid-${i}`,
      resourceVersion: String(rv),
    },
    spec: { nodeName: `node-${i % 100}`, containers: [{ name: 'app', image: 'app:1' }] },
    status: { phase: 'Running' },
  });
  const subject = new Subject();
  let last;
  subject.pipe(lib.toStore()).subscribe((store) => (last = store));
  let rv = 1;
  for (let i = 0; i < objects; i++)
    subject.next({ type: 'ADDED', object: pod(i, rv), resourceVersion: String(rv++) });
  const batch = Array.from({ length: events }, (_, j) => {
    const object = pod((j * 7919) % objects, rv);
    return { type: 'MODIFIED', object, resourceVersion: String(rv++) };
  });
  // Warm up on a tenth, then time the rest.
  const warm = Math.floor(events / 10);
  for (let j = 0; j < warm; j++) subject.next(batch[j]);
  fullGc();
  const started = process.hrtime.bigint();
  for (let j = warm; j < events; j++) subject.next(batch[j]);
  const ns = Number(process.hrtime.bigint() - started) / (events - warm);
  if (last.size !== objects) throw new Error('the store lost objects');
  return { config: 'store-update', objects, nsPerEvent: ns };
}

if (config === 'store-update') {
  console.log(JSON.stringify(await storeUpdate(Number(target), Number(count))));
  process.exit(0);
}

const pods = Number(count);
const kc = await kubeConfig(target);
const sync = KUBE_RX[config]
  ? await kubeRx(kc, pods, KUBE_RX[config])
  : config === 'informer'
    ? await informer(kc, pods)
    : config.startsWith('raw-list')
      ? rawList(target, config === 'raw-list-metadata')
      : undefined;
if (!sync) throw new Error(`unknown configuration ${config}`);
fullGc();
const heapBefore = process.memoryUsage().heapUsed;
const guard = setTimeout(
  () => {
    console.error(`${config} did not sync ${pods} pods in time`);
    process.exit(3);
  },
  Number(extra ?? 900_000),
);
const { syncMs, held } = await sync();
clearTimeout(guard);
fullGc();
const heapAfter = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({
    config,
    pods,
    syncMs,
    heapPerObject: (heapAfter - heapBefore) / pods,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    held: Boolean(held),
  }),
);
process.exit(0);
