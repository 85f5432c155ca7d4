/* global AbortController */
// The consumers of watch.bench.mjs. Each `load()` imports only what it needs (so peak RSS is
// that consumer's) and returns `run()`, which reads EVENTS events and resolves with a Tally.
// Every consumer looks at every event the same way (Tally.add): its type and its object's
// metadata.resourceVersion, so every event must have been fully parsed by then.
import { URL, URLSearchParams, pathToFileURL } from 'node:url';
import {
  CYCLE_LENGTH,
  PODS,
  STREAM,
  eventLine,
  podTemplates,
  podsAfter,
  versionOf,
} from './pods.mjs';
import { benchKubeConfig as kubeConfig } from '../benchKubeConfig.mjs';

// KUBE_RX_DIST points the kube-rx consumers at another build (watch.bench.mjs --alt=<dist>), to
// measure a proposed change against the current code in the same interleaved run.
const distRoot = process.env.KUBE_RX_DIST
  ? pathToFileURL(`${process.env.KUBE_RX_DIST.replace(/\/+$/, '')}/`)
  : new URL('../../dist/', import.meta.url);
const dist = (path) => new URL(path, distRoot).href;

/**
 * Where a sliced run (watch.bench.mjs --slices) waits: `reached()` is called when the count of
 * the measured run's tally reaches `at` (one compare per event, the same in every consumer).
 */
export const sliceEnd = { at: -1, reached() {} };

/** What a consumer saw: how many events, and the last resourceVersion. */
export class Tally {
  count = 0;
  versionChars = 0;
  lastVersion = '';
  constructor(expected) {
    this.expected = expected;
  }
  /** Records one event; true once all expected events have been seen. */
  add(type, object) {
    if (type !== 'ADDED' && type !== 'MODIFIED' && (type !== 'DELETED' || STREAM !== 'cycle')) {
      throw new Error(`unexpected ${type} event: ${JSON.stringify(object).slice(0, 200)}`);
    }
    return this.addVersion(object.metadata.resourceVersion);
  }
  /** Records one event by its resourceVersion alone (what a store snapshot tells). */
  addVersion(version) {
    this.versionChars += version.length;
    this.lastVersion = version;
    const count = ++this.count;
    if (count === sliceEnd.at) sliceEnd.reached();
    return count === this.expected;
  }
  /** Throws unless every event arrived, in order up to the last one. */
  check(expectedLast = versionOf(this.expected - 1)) {
    if (this.count !== this.expected) {
      throw new Error(`saw ${this.count} events, expected ${this.expected}`);
    }
    if (this.lastVersion !== expectedLast) {
      throw new Error(`the last event has version ${this.lastVersion}, expected ${expectedLast}`);
    }
  }
}

const PODS_REF = { group: '', version: 'v1', plural: 'pods' };
const WATCH_PATH = '/api/v1/pods';

/**
 * The end of one run of a callback-style consumer: `promise` resolves with the tally at `done()`
 * and rejects at `fail(error)`, whichever comes first; `finished` once either came (the source
 * may still call back while it stops).
 */
function runEnd(tally) {
  let resolve, reject;
  const end = {
    finished: false,
    promise: new Promise((res, rej) => ((resolve = res), (reject = rej))),
    done: () => {
      end.finished = true;
      resolve(tally);
    },
    fail: (error) => {
      if (end.finished) return;
      end.finished = true;
      reject(error);
    },
  };
  return end;
}

/**
 * Subscribes to `observable` until `onValue` returns true (every expected event seen), then
 * unsubscribes; a value `onValue` throws on, or an error, fails the run.
 */
function readUntil(observable, tally, onValue) {
  const end = runEnd(tally);
  const subscription = observable.subscribe({
    next: (value) => {
      if (end.finished) return;
      try {
        if (!onValue(value)) return;
      } catch (error) {
        return end.fail(error);
      }
      subscription.unsubscribe();
      end.done();
    },
    error: end.fail,
    complete: end.done,
  });
  return end.promise;
}

/** kube-rx fromWatch: subscribe and count (over HTTP/1.1 or, with `h2`, HTTP/2). */
const FROM_WATCH = {
  kubeRx: true,
  label: 'kube-rx fromWatch',
  async load({ server, events }) {
    const { fromWatch } = await import(dist('sources/fromWatch.js'));
    const kc = await kubeConfig(server);
    return () => {
      const tally = new Tally(events);
      return readUntil(fromWatch(kc, PODS_REF), tally, (event) => {
        if (event.type === 'ERROR') throw event.error;
        return tally.add(event.type, event.object);
      });
    };
  },
};

export const consumers = {
  /** kube-rx fromWatch: subscribe and count. */
  fromWatch: FROM_WATCH,

  /** kube-rx fromWatch over HTTP/2 (TLS, ALPN h2): one watch, one stream of the session. */
  fromWatchH2: { ...FROM_WATCH, h2: true, label: 'kube-rx fromWatch, HTTP/2' },

  /** 100 fromWatch at once over HTTP/2 (one session), events/100 each: the same events in all. */
  fromWatchH2x100: {
    kubeRx: true,
    h2: true,
    label: 'kube-rx 100 x fromWatch, HTTP/2 (one session)',
    sliceByRuns: true,
    async load({ server, events }) {
      const { fromWatch } = await import(dist('sources/fromWatch.js'));
      const kc = await kubeConfig(server);
      const per = Math.floor(events / 100);
      return () => {
        const tally = new Tally(per * 100);
        const end = runEnd(tally);
        let open = 100;
        for (let i = 0; i < 100; i++) {
          let seen = 0;
          fromWatch(kc, PODS_REF, { namespace: `bench-${per}` }).subscribe({
            next: (event) => {
              if (end.finished) return;
              if (event.type === 'ERROR') return end.fail(event.error);
              seen++;
              if (tally.add(event.type, event.object)) end.done();
            },
            error: end.fail,
            complete: () => {
              if (seen !== per) end.fail(new Error(`a watch ended after ${seen} of ${per} events`));
              else if (--open === 0) end.done();
            },
          });
        }
        return end.promise;
      };
    },
    // Every watch ends with its own last event; the tally's last one is some watch's last.
    expectedLast: (events) => versionOf(Math.floor(events / 100) - 1),
  },

  /** kube-rx resumed pipeline into a store: withBookmarks + resumeFromResourceVersion + toStore. */
  resumedStore: {
    kubeRx: true,
    label: 'kube-rx resumed + toStore',
    async load({ server, events }) {
      const [{ fromWatch }, { withBookmarks }, { resumeFromResourceVersion }, { toStore }] =
        await Promise.all([
          import(dist('sources/fromWatch.js')),
          import(dist('operators/withBookmarks.js')),
          import(dist('operators/resumeFromResourceVersion.js')),
          import(dist('operators/toStore.js')),
        ]);
      const kc = await kubeConfig(server);
      const last = versionOf(events - 1);
      return () => {
        const tally = new Tally(events);
        // The default initial state: an (empty) list, its end bookmark, then the watch.
        const stores = fromWatch(kc, PODS_REF).pipe(
          withBookmarks(),
          resumeFromResourceVersion(),
          toStore(),
        );
        return readUntil(stores, tally, (store) => {
          if (!store.synced) throw new Error('a snapshot before the sync bookmark');
          const version = store.resourceVersion;
          if (tally.count === 0 && store.size === 0) return false; // the initial-events-end bookmark
          tally.addVersion(version);
          if (version !== last) return false;
          if (store.size !== podsAfter(events)) {
            throw new Error(`the store holds ${store.size} objects`);
          }
          return true;
        });
      };
    },
  },

  /** kube-rx watchResource: the async generator. */
  watchResource: {
    kubeRx: true,
    label: 'kube-rx watchResource (async gen)',
    async load({ server, events }) {
      const { watchResource } = await import(dist('watch.js'));
      const kc = await kubeConfig(server);
      return async () => {
        const tally = new Tally(events);
        for await (const event of watchResource(kc, PODS_REF)) {
          if (event.type === 'ERROR') throw event.error;
          if (tally.add(event.type, event.object)) break;
        }
        return tally;
      };
    },
  },

  /** @kubernetes/client-node 1.4 Watch. */
  clientNodeWatch: {
    label: 'client-node Watch',
    async load({ server, events }) {
      const { Watch } = await import('@kubernetes/client-node');
      const kc = await kubeConfig(server);
      return async () => {
        const tally = new Tally(events);
        const end = runEnd(tally);
        let controller;
        controller = await new Watch(kc).watch(
          WATCH_PATH,
          {},
          (type, object) => {
            if (end.finished || !tally.add(type, object)) return;
            end.done();
            controller?.abort();
          },
          (error) => (error ? end.fail(error) : end.done()),
        );
        return end.promise;
      };
    },
  },

  /** @kubernetes/client-node 1.4 makeInformer: lists (empty), then watches; counts add+update. */
  clientNodeInformer: {
    label: 'client-node makeInformer',
    async load({ server, events }) {
      const { CoreV1Api, makeInformer } = await import('@kubernetes/client-node');
      const kc = await kubeConfig(server);
      const api = kc.makeApiClient(CoreV1Api);
      return async () => {
        const tally = new Tally(events);
        const end = runEnd(tally);
        const informer = makeInformer(kc, WATCH_PATH, () => api.listPodForAllNamespaces());
        const seen = (type) => (object) => {
          if (end.finished || !tally.add(type, object)) return;
          end.done();
          informer.stop();
        };
        informer.on('add', seen('ADDED'));
        informer.on('update', seen('MODIFIED'));
        informer.on('delete', seen('DELETED'));
        informer.on('error', end.fail);
        await informer.start();
        return end.promise;
      };
    },
  },

  /** What a user could write by hand: node-fetch, split2 and JSON.parse. */
  rawSplit2: {
    label: 'node-fetch + split2 + JSON.parse',
    async load({ server, events }) {
      const [{ default: fetch }, { default: split2 }, { Agent }] = await Promise.all([
        import('node-fetch'),
        import('split2'),
        import('node:https'),
      ]);
      // The real-cluster mode's certificate is a throwaway (as in benchKubeConfig).
      const agent = server.startsWith('https:')
        ? new Agent({ rejectUnauthorized: false })
        : undefined;
      return async () => {
        const tally = new Tally(events);
        const controller = new AbortController();
        const response = await fetch(`${server}${WATCH_PATH}?watch=true`, {
          signal: controller.signal,
          agent,
        });
        if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
        const end = runEnd(tally);
        response.body.on('error', end.fail);
        response.body
          .pipe(split2(JSON.parse))
          .on('data', (event) => {
            if (end.finished || !tally.add(event.type, event.object)) return;
            end.done();
            controller.abort();
          })
          .on('end', end.done)
          .on('error', end.fail);
        return end.promise;
      };
    },
  },

  /**
   * Diagnostic: the transport alone. node:http reads the same stream and counts newlines; no
   * string is made and nothing is parsed. The floor every Node.js HTTP/1.1 client stands on
   * (socket reads, the HTTP parser's per-chunk copy, stream events).
   */
  transportOnly: {
    label: 'node:http transport alone (no parsing)',
    plainOnly: true,
    async load({ server, events }) {
      const http = await import('node:http');
      return () => {
        const tally = new Tally(events);
        const end = runEnd(tally);
        const request = http.get(`${server}${WATCH_PATH}?watch=true`, (response) => {
          response.on('data', (chunk) => {
            if (end.finished) return;
            for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
              // A version of the right shape, so Tally can check the count and the last one.
              if (tally.addVersion(versionOf(tally.count))) {
                end.done();
                return request.destroy();
              }
            }
          });
          response.on('end', end.done);
          response.on('error', end.fail);
        });
        request.on('error', end.fail);
        return end.promise;
      };
    },
  },

  /**
   * Diagnostic: kube-rx's transport alone (undici; src/sources/http1/ before): the stream read the way
   * fromWatch reads it, counting newlines in the byte ranges; no string is made and nothing is
   * parsed. Compare with the node:http row.
   */
  kubeRxTransportOnly: {
    kubeRx: true,
    plainOnly: true,
    label: 'kube-rx transport alone (no parsing)',
    async load({ server, events }) {
      // The current build has it in client/request/openStream.js; earlier ones in
      // client/request/request.js or client/request.js, builds before the client layer in
      // sources/request.js, and before the undici transport in sources/streamingBody.js.
      const { openStream } = await import(dist('client/request/openStream.js'))
        .catch(() => import(dist('client/request/request.js')))
        .catch(() => import(dist('client/request.js')))
        .catch(() => import(dist('sources/request.js')))
        .catch(() => import(dist('sources/streamingBody.js')));
      const kc = await kubeConfig(server);
      return async () => {
        const tally = new Tally(events);
        const controller = new AbortController();
        const opened = await openStream(
          kc,
          WATCH_PATH,
          new URLSearchParams({ watch: 'true' }),
          controller.signal,
        );
        if (!opened.ok) throw opened.error;
        const end = runEnd(tally);
        opened.body.start({
          bytes: (buffer, from, to) => {
            for (let at = buffer.indexOf(10, from); at !== -1 && at < to;) {
              if (tally.addVersion(versionOf(tally.count))) {
                end.done();
                opened.body.release();
                return false;
              }
              at = buffer.indexOf(10, at + 1);
            }
            return true;
          },
          end: end.done,
          fail: end.fail,
        });
        return end.promise;
      };
    },
  },

  /**
   * Diagnostic: kube-rx's framing and decoding (WatchLineDecoder) over the same lines in memory,
   * cut into 64 KiB chunks that split lines anywhere: what kube-rx adds to JSON.parse, without
   * sockets, HTTP or streams.
   */
  decoderOnly: {
    kubeRx: true,
    label: 'kube-rx decoder, in memory (no I/O)',
    sliceByRuns: true,
    async load({ events }) {
      // client/watch/ since client/ has subfolders, client/ since the one request core, sources/
      // in builds before it (--alt runs).
      const { WatchLineDecoder } = await import(dist('client/watch/watchLineDecoder.js'))
        .catch(() => import(dist('client/watchLineDecoder.js')))
        .catch(() => import(dist('sources/watchLineDecoder.js')));
      // Since it is the body's sink it takes a consumer and is written with bytes(); before, an
      // emit function and write().
      const isSink = typeof WatchLineDecoder.prototype.bytes === 'function';
      const { lines, modifiedAt } = prebuiltLines(events);
      const chunks = (from, to) => {
        const bytes = Buffer.from(lines.slice(from, to).join('\n') + '\n', 'latin1');
        const out = [];
        for (let at = 0; at < bytes.length; at += 64 * 1024)
          out.push(bytes.subarray(at, at + 64 * 1024));
        return out;
      };
      const first = chunks(0, lines.length);
      const cycle = chunks(modifiedAt, lines.length);
      return async () => {
        const tally = new Tally(events);
        let done = false;
        const event = (event) => {
          if (done) return;
          if (event.type === 'ERROR') throw event.error;
          if (tally.add(event.type, event.object)) done = true;
        };
        const config = { resourcePath: '/api/v1/pods' };
        const decoder = isSink
          ? new WatchLineDecoder({ event, end: () => {} }, config)
          : new WatchLineDecoder(event, config);
        const write = isSink
          ? (chunk) => decoder.bytes(chunk, 0, chunk.length)
          : (chunk) => decoder.write(chunk);
        for (const chunk of first) if (done || !write(chunk)) break;
        while (!done) for (const chunk of cycle) if (done || !write(chunk)) break;
        return tally;
      };
    },
    expectedLast: (events) => expectedLastInMemory(events),
  },

  /** The ceiling: JSON.parse of the same lines, already in memory. No I/O, no framing. */
  jsonParse: {
    label: 'JSON.parse alone (ceiling)',
    sliceByRuns: true,
    async load({ events }) {
      const { lines, modifiedAt } = prebuiltLines(events);
      const cycle = lines.length - modifiedAt;
      return async () => {
        const tally = new Tally(events);
        for (let i = 0; i < events; i++) {
          const line = i < lines.length ? lines[i] : lines[modifiedAt + ((i - modifiedAt) % cycle)];
          const event = JSON.parse(line);
          tally.add(event.type, event.object);
        }
        return tally;
      };
    },
    expectedLast: (events) => expectedLastInMemory(events),
  },
};

/**
 * The lines of the in-memory consumers: events 0 .. 2*PODS-1 of the stream (PODS ADDED, then
 * PODS MODIFIED); later events cycle through the MODIFIED ones, starting at `modifiedAt`. In the
 * 'cycle' layout: one whole cycle of every pod, repeated from the start.
 */
function prebuiltLines(events) {
  const templates = podTemplates();
  const lines = [];
  const count = STREAM === 'cycle' ? CYCLE_LENGTH * PODS : 2 * PODS;
  for (let i = 0; i < Math.min(events, count); i++) lines.push(eventLine(templates, i));
  return { lines, modifiedAt: STREAM === 'cycle' ? 0 : Math.min(PODS, lines.length) };
}

/** Lines are recycled in memory, so the last version is the one of the line parsed last. */
function expectedLastInMemory(events) {
  const { length, modifiedAt } =
    STREAM === 'cycle'
      ? { length: CYCLE_LENGTH * PODS, modifiedAt: 0 }
      : { length: 2 * PODS, modifiedAt: PODS };
  if (events <= length) return versionOf(events - 1);
  return versionOf(modifiedAt + ((events - 1 - modifiedAt) % (length - modifiedAt)));
}
