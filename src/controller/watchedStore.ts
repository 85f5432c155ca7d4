import { Observable } from 'rxjs';
import { defaultKey } from '../objects/defaultKey.js';
import type { StoreChange } from '../operators/share/SharedWatch.js';
import type { Store } from '../operators/store/Store.js';
import type { KubernetesObject, WatchObjectEvent } from '../types.js';

/**
 * An event that carries an object: ADDED, MODIFIED or DELETED (never BOOKMARK here).
 *
 * @example
 * const keysOf = (event: ObjectEvent<V1Pod>) => [defaultKey(event.object)];
 */
export type ObjectEvent<T> = WatchObjectEvent<T>;

/**
 * What a controller does with one watched resource (see {@link watchedStore}).
 *
 * @example
 * const config: WatchedStoreConfig<V1Pod> = {
 *   publish: (store) => (latest = store, synced),
 *   keysOf: (event) => ownerKeysOf(event.object),
 *   keysOfObject: (pod) => ownerKeysOf(pod),
 * };
 */
export interface WatchedStoreConfig<T> {
  /**
   * The store after an event, once the fold is synced (`rebuilt`: the first synced store of a
   * fold that replaced a failed one, with the store it replaces). Returns whether events trigger
   * keys now (false until every store of the controller is synced).
   */
  publish(store: Store<T, string>, replaced: Store<T, string> | undefined): boolean;
  /**
   * Told of each event once its store is published, before its keys are handed on (what
   * read-your-own-writes looks at). Not told during a rebuild.
   */
  observe?: ((event: ObjectEvent<T>) => void) | undefined;
  /** The keys an event triggers, given the store as it was before the event. */
  keysOf(event: ObjectEvent<T>, before: Store<T, string>): readonly string[];
  /** The keys an object triggers when a rebuilt store replaces the one a failure ended. */
  keysOfObject(object: T): readonly string[];
}

/**
 * One watched resource of a controller as one subscription to the changes of its store: each
 * event is in the store first and the store published, and only then are the keys it concerns
 * handed on, so a run started by one of those keys (synchronously or later) reads a store at
 * least as new as the event that triggered it (kube-rs's reflector, client-go's indexer before
 * its handlers). No second subscription, nothing ordered through microtasks. The store is the
 * shared watch's own (`informerChanges`: the objects folded once for every controller, store
 * and late subscriber of that watch, each controller keeping only its index maps), or a fold of
 * the events of informers made otherwise (`foldedChanges`).
 *
 * A store is published from its initial-events-end BOOKMARK on. When the changes fail and are
 * subscribed again (the controller retries), the new store starts empty and the previous store
 * is still what runs read until the new one has synced; it then replaces it at once, triggering
 * the keys of every object it holds and of every object that vanished meanwhile.
 *
 * ```
 * events:  -a-b-e---m---(md)-   (e: initial-events-end; m: MODIFIED b; d: DELETED b)
 * publish:  ------1---2---34     (1 {a, b} synced; 2 {a, b'}; 3 {a, b''}; 4 {a})
 * keys:     ----------b---bb     (each after its store was published)
 * ```
 *
 * @example
 * watchedStore(informerChanges(informers, kc, pods, {}, StoreIndexes.NONE)!, {
 *   publish: (store) => ((latest = store), true),
 *   keysOf: (event) => [defaultKey(event.object)],
 *   keysOfObject: (pod) => [defaultKey(pod)],
 * }).subscribe((key) => queue.trigger(key));
 */
export function watchedStore<T extends KubernetesObject>(
  changes: Observable<StoreChange<T>>,
  config: WatchedStoreConfig<T>,
): Observable<string> {
  const { publish, observe, keysOf, keysOfObject } = config;
  let published: Store<T, string> | undefined;
  return new Observable<string>((subscriber) => {
    // A store that replaces a failed one: what runs read stays the old store until it syncs.
    const replacing = published;
    let live = false;
    const emit = (keys: readonly string[]) => {
      for (const key of keys) subscriber.next(key);
    };
    return changes.subscribe({
      next: ({ event, before, after }) => {
        if (!after.synced) return;
        const triggering = publish(after, live ? undefined : replacing);
        published = after;
        if (!live) {
          // The first synced store (the current one of a watch already synced, or the one of
          // its initial-events-end): its keys are the sync's, or a rebuild's.
          live = true;
          if (triggering && replacing) emit(rebuiltKeys(replacing, after, keysOfObject));
          return;
        }
        if (event === undefined || event.type === 'BOOKMARK') return;
        observe?.(event);
        // Live: a synced store was published before this one, so there is a store before.
        if (triggering) emit(keysOf(event, before!));
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
  });
}

/** The keys of every object of `rebuilt`, and of every object of `old` it no longer has. */
function rebuiltKeys<T extends KubernetesObject>(
  old: Store<T, string>,
  rebuilt: Store<T, string>,
  keysOfObject: (object: T) => readonly string[],
): string[] {
  const keys = new Set<string>();
  for (const object of rebuilt.values()) for (const key of keysOfObject(object)) keys.add(key);
  for (const object of old.values()) {
    if (rebuilt.get(defaultKey(object)) !== undefined) continue;
    for (const key of keysOfObject(object)) keys.add(key);
  }
  return [...keys];
}
