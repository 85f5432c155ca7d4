// The resumed store's operators of one build, fed pre-parsed events directly (no socket, no
// JSON.parse): what operatorsAB.mjs times and operatorsAlloc.mjs weighs.
import { resolve as resolvePath } from 'node:path';
import { setImmediate } from 'node:timers';
import { pathToFileURL } from 'node:url';

/**
 * A pool of pre-parsed watch events of BENCH_STREAM (cycle: 30 cycles of 100 pods, ADDED,
 * 8x MODIFIED, DELETED; growing: 20 turns of 1 000 pods), sent round and round.
 */
export async function eventPool() {
  process.env.BENCH_PODS ??= process.env.BENCH_STREAM === 'cycle' ? '100' : '1000';
  const { PODS, CYCLE_LENGTH, eventLine, podTemplates } = await import('./pods.mjs');
  const templates = podTemplates();
  const pool = [];
  const turns = process.env.BENCH_STREAM === 'cycle' ? 30 * CYCLE_LENGTH : 20;
  for (let i = 0; i < turns * PODS; i++) pool.push(JSON.parse(eventLine(templates, i)));
  return pool;
}

/**
 * The operators of the resumed store (and the source they run on) from the build in `distDir`:
 * what the operator benches compare across builds. `podSource(connect)` is a pods WatchSource
 * whose watches are `connect()` and whose list is empty at version 1 (`of`: the resumer lists
 * synchronously, then watches).
 */
export async function resumedStoreOperators(distDir) {
  const dist = (path) => pathToFileURL(resolvePath(distDir, path)).href;
  const { createWatchSource } = await import(dist('sources/WatchSource.js'));
  const { withBookmarks } = await import(dist('operators/withBookmarks.js'));
  const { resumeFromResourceVersion } = await import(
    dist('operators/resumeFromResourceVersion.js')
  );
  const { toStore } = await import(dist('operators/toStore.js'));
  const { of } = await import('rxjs');
  const podSource = (connect) =>
    createWatchSource({
      cluster: {},
      resource: { group: '', version: 'v1', plural: 'pods' },
      options: {},
      connect,
      list: () => of({ items: [], resourceVersion: '1' }),
    });
  return { createWatchSource, podSource, withBookmarks, resumeFromResourceVersion, toStore };
}

/**
 * Subscribes `mode` (pipeline: withBookmarks + resumeFromResourceVersion + toStore; resume;
 * store: toStore alone; none: the source alone) of the build in `distDir`, and returns
 * `send(count)`, which pushes the pool's next `count` events, each with a fresh resourceVersion,
 * and `last()`, the last value the pipeline emitted.
 */
export async function operatorFeed(distDir, mode, pool) {
  const { Observable } = await import('rxjs');
  const { podSource, withBookmarks, resumeFromResourceVersion, toStore } =
    await resumedStoreOperators(distDir);
  let push;
  const connect = () =>
    new Observable((subscriber) => {
      push = (event) => subscriber.next(event);
    });
  const source = podSource(connect);
  const resumed = () => source.pipe(withBookmarks(), resumeFromResourceVersion());
  const pipelines = {
    pipeline: () => resumed().pipe(toStore()),
    resume: resumed,
    store: () => connect().pipe(toStore()),
    none: () => connect(),
  };
  let last;
  pipelines[mode]().subscribe((value) => (last = value));
  // The resumer lists (of(): synchronous) and opens the watch before the first push.
  await new Promise((resolve) => setImmediate(resolve));
  let version = 2;
  let at = 0;
  return {
    send(count) {
      for (let i = 0; i < count; i++) {
        const event = pool[at];
        at = (at + 1) % pool.length;
        const resourceVersion = String(version++);
        event.object.metadata.resourceVersion = resourceVersion;
        push({ type: event.type, object: event.object, resourceVersion });
      }
    },
    last: () => last,
  };
}
