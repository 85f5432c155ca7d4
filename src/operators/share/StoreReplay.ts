import type { Subscriber } from 'rxjs';
import { defaultKey } from '../../objects/defaultKey.js';
import { metadataOf } from '../../objects/metadataOf.js';
import { initialEventsEndObject } from '../../objects/endBookmark.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import { emptyWatchState, foldEvent, type WatchState } from '../store/foldEvent.js';
import { SortedMap } from '../store/SortedMap.js';
import { StoreSnapshot } from '../store/StoreSnapshot.js';
import { IndexedObjects, type StoreIndexes } from '../store/IndexedObjects.js';
import type { ReplayState } from './SharedUpstream.js';

/** A store with indexes that follows a {@link StoreReplay}: its snapshot and what it was made of. */
export interface IndexedStore {
  readonly snapshot: StoreSnapshot<unknown>;
  /** The replay's change count it is up to date with. */
  readonly changes: number;
  readonly objects: SortedMap<unknown>;
  readonly indexes: StoreIndexes<unknown>;
}

/** The state before any event. */
const EMPTY: WatchState<SortedMap<unknown>> = emptyWatchState(SortedMap.empty());

/**
 * The store of a shared watch of `createInformers` (default key, no indexes), which is also what
 * a late subscriber of its events replays: one fold of the objects for both, where a
 * `shareWatch` before a `toStore` folds them twice. The snapshot is made when a store asks for
 * it, so a watch with events subscribers only pays for the fold alone.
 *
 * @example
 * const replay = new StoreReplay();
 * replay.record(added(pod('a', '3')));
 * replay.snapshot()?.get('default/a'); // the pod
 * replay.replayTo(late); // ADDED a
 */
export class StoreReplay implements ReplayState<AnyWatchEvent> {
  private state = EMPTY;
  private latest: StoreSnapshot<unknown> | undefined;
  /** How many events changed the state, and the key of the object the last of them was about. */
  private changes = 0;
  private lastKey: string | undefined;
  /** The key the fold built for the event being recorded (built once, not again here). */
  private folded: string | undefined;
  private readonly keyOf = (object: unknown): string => (this.folded = defaultKey(object));

  record(event: AnyWatchEvent): void {
    const before = this.state;
    this.folded = undefined;
    this.state = foldEvent(before, event, this.keyOf);
    if (this.state === before) return;
    this.changes++;
    this.lastKey =
      event.type === 'BOOKMARK' || event.type === 'ERROR'
        ? undefined
        : (this.folded ?? defaultKey(event.object));
  }

  /**
   * A store with indexes over this fold's objects (no second fold of them): `previous` brought
   * up to date, one index update when it is one change behind (each event is dispatched right
   * after it is recorded), rebuilt from the objects otherwise (its first snapshot, or events
   * recorded while another was being dispatched). Undefined while nothing has changed.
   */
  follow(
    previous: IndexedStore | undefined,
    empty: StoreIndexes<unknown>,
  ): IndexedStore | undefined {
    const { state, changes } = this;
    if (state === EMPTY) return undefined;
    if (previous?.changes === changes) return previous;
    let indexes: StoreIndexes<unknown>;
    const key = this.lastKey;
    if (previous !== undefined && previous.changes === changes - 1) {
      indexes =
        key === undefined
          ? previous.indexes
          : previous.indexes.update(key, previous.objects.get(key), state.objects.get(key));
    } else {
      indexes = empty;
      for (const [key, object] of state.objects.entries()) {
        indexes = indexes.update(key, undefined, object);
      }
    }
    const objects = IndexedObjects.over(state.objects, indexes);
    return {
      changes,
      objects: state.objects,
      indexes,
      snapshot: StoreSnapshot.of({ ...state, objects }),
    };
  }

  /**
   * What `toStore()` would have emitted last: the same snapshot until an event changes
   * something; undefined while nothing has (a store emits nothing then).
   */
  snapshot(): StoreSnapshot<unknown> | undefined {
    const { state, latest } = this;
    if (state === EMPTY) return undefined;
    if (latest !== undefined && StoreSnapshot.isOf(latest, state)) return latest;
    return (this.latest = StoreSnapshot.of(state));
  }

  replayTo(subscriber: Subscriber<AnyWatchEvent>): void {
    const { state } = this;
    for (const [, object] of state.objects.entries()) {
      if (subscriber.closed) return;
      const resourceVersion = metadataOf(object)?.resourceVersion;
      subscriber.next({ type: 'ADDED', object, resourceVersion });
    }
    if (state.initialEventsEnd !== undefined && !subscriber.closed) {
      const { resourceVersion } = state;
      const object = initialEventsEndObject(state.initialEventsEnd, resourceVersion);
      subscriber.next({ type: 'BOOKMARK', object, resourceVersion });
    }
  }
}
