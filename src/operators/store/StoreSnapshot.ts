import type { Store } from './Store.js';
import { namespacedKey } from '../../objects/defaultKey.js';
import { type AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import { emptyWatchState, foldEvent, type WatchState } from './foldEvent.js';
import { SortedMap } from './SortedMap.js';
import { IndexedObjects, StoreIndexes } from './IndexedObjects.js';

/**
 * What a snapshot's state folds: the objects alone for a store without indexes (no wrapper to
 * allocate per change), the objects with their indexes otherwise.
 */
export type SnapshotState<T> = WatchState<SortedMap<T>> | WatchState<IndexedObjects<T>>;

/**
 * One immutable version of a store: `toStore` makes a new one per change from the previous
 * through {@link foldEvent}, sharing all but one path of the persistent map with it.
 *
 * Immutable by construction, not by `Object.freeze` (a freeze per event cost about 0.2 us on
 * the bench's stream): its only field is private, what a reader sees are getters over it (an
 * assignment to them throws a TypeError), and nothing it exposes changes the state.
 */
export class StoreSnapshot<T> implements Store<T> {
  static readonly EMPTY = StoreSnapshot.empty<never>(StoreIndexes.NONE);

  // A private field keeps the state out of JSON.stringify and out of reach of users.
  readonly #state: SnapshotState<T>;
  #values: readonly T[] | undefined = undefined;

  private constructor(state: SnapshotState<T>) {
    this.#state = state;
  }

  get resourceVersion(): string | undefined {
    return this.#state.resourceVersion;
  }

  get synced(): boolean {
    return this.#state.initialEventsEnd !== undefined;
  }

  /** What `JSON.stringify` shows of a snapshot: what a reader sees of it but the objects. */
  toJSON(): { resourceVersion: string | undefined; synced: boolean } {
    return { resourceVersion: this.resourceVersion, synced: this.synced };
  }

  /** Whether `store` is the snapshot of `state` (made by {@link StoreSnapshot.of}). */
  static isOf<T>(store: StoreSnapshot<T>, state: SnapshotState<T>): boolean {
    return store.#state === state;
  }

  /**
   * The snapshot of a state folded elsewhere (a shared watch's, whose replay and store are one
   * fold): the state is taken as it is, and must not change afterwards (no persistent map
   * does).
   */
  static of<T>(state: SnapshotState<T>): StoreSnapshot<T> {
    return new StoreSnapshot(state);
  }

  /** An empty store with these (empty) indexes. */
  static empty<T>(indexes: StoreIndexes<T>): StoreSnapshot<T> {
    return new StoreSnapshot<T>(
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
    const { objects } = store.#state;
    return objects instanceof IndexedObjects
      ? objects
      : { objects, indexes: StoreIndexes.NONE as StoreIndexes<T> };
  }

  /** The objects in key order. */
  get #objects(): SortedMap<T> {
    const { objects } = this.#state;
    return objects instanceof IndexedObjects ? objects.objects : objects;
  }

  get size(): number {
    return this.#state.objects.size;
  }

  get(keyOrNamespace: string | undefined, name?: string): T | undefined {
    const key = name === undefined ? keyOrNamespace : namespacedKey(keyOrNamespace, name);
    return this.#state.objects.get(key as string);
  }

  values(): readonly T[] {
    // Built once per snapshot and frozen, so every caller can share it.
    return (this.#values ??= Object.freeze(this.#objects.values()));
  }

  byIndex(name: string, value: string): readonly T[] {
    return Object.freeze(StoreSnapshot.internals(this).indexes.byIndex(name, value));
  }

  /** The snapshot after `event`, or `this` when the event changes nothing a reader can see. */
  static next<T>(
    store: StoreSnapshot<T>,
    event: AnyWatchEvent,
    keyOf: (object: T) => string,
  ): StoreSnapshot<T> {
    const before = store.#state;
    const after =
      before.objects instanceof IndexedObjects
        ? foldEvent(before as WatchState<IndexedObjects<T>>, event, keyOf)
        : foldEvent(before as WatchState<SortedMap<T>>, event, keyOf);
    return after === before ? store : new StoreSnapshot(after);
  }
}
