import type { Subscriber } from 'rxjs';
import { defaultKey } from '../../objects/defaultKey.js';
import { metadataOf } from '../../objects/metadataOf.js';
import { initialEventsEndObject } from '../../objects/endBookmark.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import { StoreSnapshot } from '../store/StoreSnapshot.js';
import { StoreIndexes } from '../store/IndexedObjects.js';
import type { ReplayState } from './SharedUpstream.js';

/**
 * The store of a shared watch of `createInformers` (default key, no indexes), which is also what
 * a late subscriber of its events replays: one fold of the objects for both, where a
 * `shareWatch` before a `toStore` folds them twice. `snapshot` is what `toStore()` would have
 * emitted last; it stays `initial` until an event changes something.
 *
 * @example
 * const replay = new StoreReplay();
 * replay.record(added(pod('a', '3'))); // replay.snapshot.get('default/a') is the pod
 * replay.replayTo(late); // ADDED a
 */
export class StoreReplay implements ReplayState<AnyWatchEvent> {
  /** The snapshot before any event: a store emits nothing while it is still this one. */
  readonly initial: StoreSnapshot<unknown> = StoreSnapshot.empty(StoreIndexes.NONE);
  snapshot: StoreSnapshot<unknown> = this.initial;

  record(event: AnyWatchEvent): void {
    this.snapshot = StoreSnapshot.next(this.snapshot, event, defaultKey);
  }

  replayTo(subscriber: Subscriber<AnyWatchEvent>): void {
    const store = this.snapshot;
    for (const [, object] of StoreSnapshot.internals(store).objects.entries()) {
      if (subscriber.closed) return;
      const resourceVersion = metadataOf(object)?.resourceVersion;
      subscriber.next({ type: 'ADDED', object, resourceVersion });
    }
    const end = StoreSnapshot.initialEventsEnd(store);
    if (end !== undefined && !subscriber.closed) {
      const { resourceVersion } = store;
      const object = initialEventsEndObject(end, resourceVersion);
      subscriber.next({ type: 'BOOKMARK', object, resourceVersion });
    }
  }
}
