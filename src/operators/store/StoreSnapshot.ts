import type { Store } from './Store.js';
import { namespacedKey } from '../../objects/defaultKey.js';
import { type AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import {
  emptyWatchState,
  foldInitialEventsEnd,
  foldObjects,
  foldResourceVersion,
  type WatchState,
} from './foldEvent.js';
import { SortedMap } from './SortedMap.js';
import { IndexedObjects, StoreIndexes } from './IndexedObjects.js';

/**
 * What a snapshot's state folds: the objects alone for a store without indexes (no wrapper to
 * allocate per change), the objects with their indexes otherwise.
 */
export type SnapshotState<T> = WatchState<SortedMap<T>> | WatchState<IndexedObjects<T>>;

/**
 * One immutable version of a store: `toStore` makes a new one per change from the previous
 * with the steps of `foldEvent` (the same fold as a shared watch's), sharing all but one path
 * of the persistent map with it. The snapshot is its own state: one object per change, not a
 * state object and a snapshot over it.
 *
 * Immutable by construction, not by `Object.freeze` (a freeze per event cost about 0.2 us on
 * the bench's stream): its only field is private, what a reader sees are getters over it (an
 * assignment to them throws a TypeError), and nothing it exposes changes the state.
 */
export class StoreSnapshot<T> implements Store<T> {
  static readonly EMPTY = StoreSnapshot.empty<never>(StoreIndexes.NONE);

  // Private fields keep the state out of JSON.stringify and out of reach of users.
  readonly #map: SortedMap<T> | IndexedObjects<T>;
  readonly #resourceVersion: string | undefined;
  readonly #initialEventsEnd: unknown;
  #values: readonly T[] | undefined = undefined;

  private constructor(
    map: SortedMap<T> | IndexedObjects<T>,
    resourceVersion: string | undefined,
    initialEventsEnd: unknown,
  ) {
    this.#map = map;
    this.#resourceVersion = resourceVersion;
    this.#initialEventsEnd = initialEventsEnd;
  }

  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  get synced(): boolean {
    return this.#initialEventsEnd !== undefined;
  }

  /** What `JSON.stringify` shows of a snapshot: what a reader sees of it but the objects. */
  toJSON(): { resourceVersion: string | undefined; synced: boolean } {
    return { resourceVersion: this.resourceVersion, synced: this.synced };
  }

  /** Whether `store` is the snapshot of `state` (made by {@link StoreSnapshot.of}). */
  static isOf<T>(store: StoreSnapshot<T>, state: SnapshotState<T>): boolean {
    return (
      store.#map === state.objects &&
      store.#resourceVersion === state.resourceVersion &&
      store.#initialEventsEnd === state.initialEventsEnd
    );
  }

  /**
   * The snapshot of a state folded elsewhere (a shared watch's, whose replay and store are one
   * fold): the state is taken as it is, and must not change afterwards (no persistent map
   * does).
   */
  static of<T>(state: SnapshotState<T>): StoreSnapshot<T> {
    return new StoreSnapshot(state.objects, state.resourceVersion, state.initialEventsEnd);
  }

  /** An empty store with these (empty) indexes. */
  static empty<T>(indexes: StoreIndexes<T>): StoreSnapshot<T> {
    return StoreSnapshot.of<T>(
      indexes.empty
        ? emptyWatchState(SortedMap.empty<T>())
        : emptyWatchState(IndexedObjects.empty(indexes)),
    );
  }

  /** The persistent maps of a snapshot, for specs that check what an update shares. */
  static internals<T>(store: StoreSnapshot<T>): {
    objects: SortedMap<T>;
    indexes: StoreIndexes<T>;
  } {
    const objects = store.#map;
    return objects instanceof IndexedObjects
      ? objects
      : { objects, indexes: StoreIndexes.NONE as StoreIndexes<T> };
  }

  /** The objects in key order. */
  get #objects(): SortedMap<T> {
    const objects = this.#map;
    return objects instanceof IndexedObjects ? objects.objects : objects;
  }

  get size(): number {
    return this.#map.size;
  }

  get(keyOrNamespace: string | undefined, name?: string): T | undefined {
    const key = name === undefined ? keyOrNamespace : namespacedKey(keyOrNamespace, name);
    return this.#map.get(key as string);
  }

  values(): readonly T[] {
    // Built once per snapshot and frozen, so every caller can share it.
    return (this.#values ??= Object.freeze(this.#objects.values()));
  }

  byIndex(name: string, value: string): readonly T[] {
    return Object.freeze(StoreSnapshot.internals(this).indexes.byIndex(name, value));
  }

  /**
   * The snapshot after `event` (`foldEvent`'s steps, without a state object between two
   * snapshots), or `store` itself when the event changes nothing a reader can see.
   */
  static next<T>(
    store: StoreSnapshot<T>,
    event: AnyWatchEvent,
    keyOf: (object: T) => string,
  ): StoreSnapshot<T> {
    if (event.type === 'ERROR') return store;
    const before = store.#map;
    const map =
      before instanceof IndexedObjects
        ? foldObjects(before, event, keyOf)
        : foldObjects(before, event, keyOf);
    const resourceVersion = foldResourceVersion(store.#resourceVersion, event);
    const initialEventsEnd = foldInitialEventsEnd(store.#initialEventsEnd, event);
    if (
      map === before &&
      resourceVersion === store.#resourceVersion &&
      initialEventsEnd === store.#initialEventsEnd
    ) {
      return store;
    }
    return new StoreSnapshot(map, resourceVersion, initialEventsEnd);
  }
}
