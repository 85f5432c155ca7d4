import type { Observable } from 'rxjs';
import type { Cluster, ResourceRef, WatchOptions } from '../types.js';
import type { StoreChange } from './share/SharedWatch.js';
import type { StoreIndexes } from './store/IndexedObjects.js';

/** How the informers of `createInformers` give the changes of a request's shared store. */
export type ChangesOf = (
  cluster: Cluster,
  resource: ResourceRef<any>,
  options: WatchOptions,
  indexes: StoreIndexes<unknown>,
) => Observable<StoreChange>;

// Kept beside the public object, not on it: the changes are the controller's, not an API.
const registry = new WeakMap<object, ChangesOf>();

/** Tells {@link informerChanges} how `informers` (made by `createInformers`) give changes. */
export function registerInformerChanges(informers: object, changes: ChangesOf): void {
  registry.set(informers, changes);
}

/**
 * The changes of the shared watch's own store for a request (`SharedWatch.changes`: the store
 * before and after each event, the current store first), over the upstream its `events` and
 * `store` share; undefined when `informers` were not made by `createInformers` (an
 * implementation of the interface of one's own), whose events the caller then folds itself.
 * Internal: what a controller's watched resource is made of, not a public entry.
 *
 * @example
 * const changes = informerChanges(informers, kc, pods, {}, StoreIndexes.NONE);
 * changes?.subscribe(({ event, after }) => publish(after, event));
 */
export function informerChanges<T>(
  informers: object,
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions,
  indexes: StoreIndexes<T>,
): Observable<StoreChange<T>> | undefined {
  const changes = registry.get(informers);
  return changes?.(cluster, resource, options, indexes as StoreIndexes<unknown>) as
    Observable<StoreChange<T>> | undefined;
}
