import { Observable } from 'rxjs';
import { defaultKey } from '../objects/defaultKey.js';
import type { StoreChange } from '../operators/share/SharedWatch.js';
import type { StoreIndexes } from '../operators/store/IndexedObjects.js';
import { StoreSnapshot } from '../operators/store/StoreSnapshot.js';
import type { WatchEvent } from '../types.js';

/**
 * The changes of a store folded from `events` (default key, these indexes): what a controller
 * watches through when its `informers` were not made by `createInformers` (an implementation of
 * the interface of one's own), which has no shared store to follow. Each subscription folds
 * anew from an empty store; ERROR events change nothing and are not told.
 *
 * @example
 * watchedStore(foldedChanges(informers.events(kc, pods), StoreIndexes.NONE), config);
 */
export function foldedChanges<T>(
  events: Observable<WatchEvent<T>>,
  indexes: StoreIndexes<T>,
): Observable<StoreChange<T>> {
  return new Observable<StoreChange<T>>((subscriber) => {
    let store = StoreSnapshot.empty<T>(indexes);
    return events.subscribe({
      next: (event) => {
        if (event.type === 'ERROR') return;
        const before = store;
        store = StoreSnapshot.next(store, event, defaultKey);
        subscriber.next({ event, before, after: store });
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
  });
}
