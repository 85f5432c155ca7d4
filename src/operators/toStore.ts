import { Observable, type OperatorFunction } from 'rxjs';
import { defaultKey } from '../objects/defaultKey.js';
import { type AnyWatchEvent } from '../objects/AnyWatchEvent.js';
import { StoreIndexes, type Indexers } from './store/IndexedObjects.js';
import { MergedStoreSnapshot } from './store/MergedStoreSnapshot.js';
import { StoreSnapshot } from './store/StoreSnapshot.js';
import type { ObjectOfEvent } from './objects.js';
import type { MergedStore, Store } from './store/Store.js';

// The Store types live in Store.ts; re-exported for code that imported them from here.
export type { MergedStore, Store } from './store/Store.js';

/**
 * Configuration of {@link toStore}.
 *
 * @example
 * toStore({ key: (pod: V1Pod) => pod.metadata!.uid! }); // a re-created pod is another object
 * toStore({ sources: ['pods', 'deployments'] }); // synced waits for both
 */
export interface ToStoreConfig<T = unknown, K extends string = string, I extends string = string> {
  /** The key of an object (default `namespace/name`, or `name` for cluster-scoped objects). */
  key?: (object: T) => string;
  /**
   * Named indexes, read with `store.byIndex(name, value)`: each indexer files an object under the
   * string it returns, under each string of the array it returns, or nowhere (undefined). Each
   * costs O(log n) per update and value, like the store; a merged store indexes every source with
   * them (an indexer returns undefined for objects it does not index). `ownerIndex` is ready.
   */
  indexes?: Indexers<T, I>;
  /**
   * The sources of a merged stream: `synced` then waits for each of them, including one that has
   * not sent anything yet (default: the sources seen so far). Also makes the store merged from
   * the start, without waiting for a tagged event.
   */
  sources?: readonly K[];
}

/** The source keys of a merged event union. */
export type SourceOfEvent<E> = E extends { source: infer K extends string } ? K : never;

/** Maps each source key of a merged event union to its object type. */
export type ObjectsBySource<E> = {
  [K in SourceOfEvent<E>]: ObjectOfEvent<Extract<E, { source: K }>>;
};

/** What {@link toStore} emits for a stream of `E`: a `MergedStore` for tagged events. */
export type StoreOfEvent<E, I extends string = string> = 0 extends 1 & E
  ? Store<any, I>
  : [E] extends [{ source: string }]
    ? MergedStore<ObjectsBySource<E>, I>
    : Store<ObjectOfEvent<E>, I>;

/**
 * Folds a watch into immutable snapshots of its objects, one after each change, as client-go's
 * informer cache does, but as values: a snapshot never changes after it is emitted, and each
 * update costs O(log n) (a persistent B+tree shares all but one path with the previous
 * snapshot), never a copy.
 *
 * - ADDED and MODIFIED set the object under its key, DELETED removes it (a DELETED of an unknown
 *   key changes nothing but the resourceVersion).
 * - BOOKMARK moves `resourceVersion`; the initial-events-end bookmark sets `synced`, which then
 *   stays true (a relist after `410 Gone` emits its difference without unsyncing).
 * - ERROR events are ignored: the store is about state. Use `throwOnWatchError()` before it to
 *   fail on them; resumed pipelines carry none.
 * - `config.indexes` keeps named indexes in each snapshot, persistent like the objects (O(log n)
 *   per update and indexed value): `store.byIndex(name, value)` lists the objects an indexer
 *   files under `value`, sorted by key, in O(log n + k).
 * - A snapshot is emitted only when something readable changed (objects, resourceVersion or
 *   `synced`): never two equal snapshots in a row, and nothing before the first event.
 *
 * On a merged stream (events tagged by `mergeWatches`) it emits a {@link MergedStore}: one store
 * per source, `synced` once every source is. The stream is merged if `config.sources` is given,
 * otherwise if its first event has a `source`; an untagged event on a merged stream errors with
 * a TypeError (a tag lost on the way is a bug to see, not to guess around). Without
 * `config.sources` the sources are those seen so far, so `synced` can be true before a source
 * that is slow to send its first event is known: pass `sources: Object.keys(watches)`.
 *
 * ```
 * source:    -a-b-e-k-m-x-d-|   (e: initial-events-end BOOKMARK; k: BOOKMARK at e's version;
 *                                m: MODIFIED b; x: ERROR; d: DELETED a)
 * toStore(): -1-2-3---4---5-|   (1 {a}; 2 {a, b}; 3 {a, b} synced; 4 {a, b'}; 5 {b'})
 * ```
 *
 * @example
 * fromWatch(kc, pods)
 *   .pipe(resumeFromResourceVersion(), toStore())
 *   .subscribe((store) => store.synced && render(store.values()));
 *
 * @example
 * fromWatch(kc, pods)
 *   .pipe(resumeFromResourceVersion(), toStore({ indexes: { byNode: (p) => p.spec?.nodeName } }))
 *   .subscribe((store) => render(store.byIndex('byNode', 'node-1'))); // V1Pod[] on node-1
 *
 * @example
 * mergeWatches({ pods: pods$, deployments: deployments$ })
 *   .pipe(toStore({ sources: ['pods', 'deployments'] }))
 *   .subscribe((s) => s.synced && s.store('pods').get('default', 'web-1')); // V1Pod | undefined
 */
export function toStore<E extends AnyWatchEvent, I extends string = never>(
  config: ToStoreConfig<ObjectOfEvent<E>, SourceOfEvent<E>, I> = {},
): OperatorFunction<E, StoreOfEvent<E, I>> {
  const { key = defaultKey, sources, indexes } = config;
  const keyOf = key as (object: unknown) => string;
  const empty = StoreSnapshot.empty(StoreIndexes.of(indexes as Indexers<unknown> | undefined));
  return (source) =>
    new Observable<StoreOfEvent<E, I>>((subscriber) => {
      let store: StoreSnapshot<unknown> | MergedStoreSnapshot | undefined = sources
        ? MergedStoreSnapshot.empty(sources, empty)
        : undefined;
      return source.subscribe({
        next: (event) => {
          try {
            store ??=
              typeof event.source === 'string' ? MergedStoreSnapshot.empty([], empty) : empty;
            const next =
              store instanceof MergedStoreSnapshot
                ? MergedStoreSnapshot.next(store, sourceOf(event), event, keyOf)
                : StoreSnapshot.next(store, event, keyOf);
            if (next === store) return;
            store = next;
          } catch (error) {
            // A throwing key function fails this stream, not the upstream's producer.
            subscriber.error(error);
            return;
          }
          subscriber.next(store as unknown as StoreOfEvent<E, I>);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

function sourceOf(event: AnyWatchEvent): string {
  if (typeof event.source === 'string') return event.source;
  throw new TypeError(`toStore: an event without a source on a merged stream (${event.type})`);
}
