import type { MergedStore, Store } from '../toStore.js';
import { SortedMap } from './SortedMap.js';
import { StoreIndexes } from './storeIndexes.js';
import {
  hasInitialEventsEndAnnotation,
  namespacedKey,
  resourceVersionOf,
  type AnyWatchEvent,
} from './events.js';

/**
 * One immutable version of a store: `toStore` makes a new one per change from the previous,
 * sharing all but one path of the persistent map with it.
 */
export class StoreSnapshot<T> implements Store<T> {
  static readonly EMPTY = StoreSnapshot.empty<never>(StoreIndexes.NONE);

  // Private fields keep the maps out of JSON.stringify and out of reach of users.
  readonly #objects: SortedMap<T>;
  readonly #indexes: StoreIndexes<T>;
  #values: readonly T[] | undefined;

  private constructor(
    objects: SortedMap<T>,
    indexes: StoreIndexes<T>,
    readonly resourceVersion: string | undefined,
    readonly synced: boolean,
  ) {
    this.#objects = objects;
    this.#indexes = indexes;
    Object.freeze(this);
  }

  /** An empty store with these (empty) indexes. */
  static empty<T>(indexes: StoreIndexes<T>): StoreSnapshot<T> {
    return new StoreSnapshot(SortedMap.empty(), indexes, undefined, false);
  }

  /** The persistent maps of a snapshot, for specs that check what an update shares. */
  static internals<T>(store: StoreSnapshot<T>): {
    objects: SortedMap<T>;
    indexes: StoreIndexes<T>;
  } {
    return { objects: store.#objects, indexes: store.#indexes };
  }

  get size(): number {
    return this.#objects.size;
  }

  get(keyOrNamespace: string | undefined, name?: string): T | undefined {
    const key = name === undefined ? keyOrNamespace : namespacedKey(keyOrNamespace, name);
    return this.#objects.get(key as string);
  }

  values(): readonly T[] {
    // Built once per snapshot and frozen, so every caller can share it.
    return (this.#values ??= Object.freeze(this.#objects.values()));
  }

  byIndex(name: string, value: string): readonly T[] {
    return Object.freeze(this.#indexes.byIndex(name, value));
  }

  /** The snapshot after `event`, or `this` when the event changes nothing a reader can see. */
  static next<T>(
    store: StoreSnapshot<T>,
    event: AnyWatchEvent,
    keyOf: (object: T) => string,
  ): StoreSnapshot<T> {
    if (event.type === 'ERROR') return store;
    const resourceVersion = resourceVersionOf(event) ?? store.resourceVersion;
    let objects = store.#objects;
    let indexes = store.#indexes;
    let synced = store.synced;
    if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
      const key = keyOf(event.object);
      // The entries to move or remove are those of the object stored, not of the event's.
      const before = indexes.empty ? undefined : objects.get(key);
      const after = event.type === 'DELETED' ? undefined : (event.object as T);
      objects = after === undefined ? objects.delete(key) : objects.set(key, after);
      if (objects !== store.#objects) indexes = indexes.update(key, before, after);
    } else if (hasInitialEventsEndAnnotation(event.object)) {
      synced = true;
    }
    if (
      objects === store.#objects &&
      resourceVersion === store.resourceVersion &&
      synced === store.synced
    ) {
      return store;
    }
    return new StoreSnapshot(objects, indexes, resourceVersion, synced);
  }
}

/** One immutable version of a merged store: one {@link StoreSnapshot} per source key. */
export class MergedStoreSnapshot implements MergedStore<Record<string, unknown>> {
  readonly #stores: ReadonlyMap<string, StoreSnapshot<unknown>>;
  /** The store of a source that has none yet: empty, with the indexes of every source. */
  readonly #emptyStore: StoreSnapshot<unknown>;
  readonly sources: readonly string[];
  readonly synced: boolean;

  /** `sources`: the declared keys, then the other keys of `stores` in the order they came. */
  private constructor(
    stores: ReadonlyMap<string, StoreSnapshot<unknown>>,
    sources: readonly string[],
    emptyStore: StoreSnapshot<unknown>,
  ) {
    this.#stores = stores;
    this.#emptyStore = emptyStore;
    this.sources = sources;
    this.synced = sources.length > 0 && sources.every((key) => stores.get(key)?.synced === true);
    Object.freeze(this);
  }

  static empty(
    declared: readonly string[],
    emptyStore: StoreSnapshot<unknown> = StoreSnapshot.EMPTY,
  ): MergedStoreSnapshot {
    return new MergedStoreSnapshot(new Map(), Object.freeze([...declared]), emptyStore);
  }

  store(source: string): StoreSnapshot<unknown> {
    return this.#stores.get(source) ?? this.#emptyStore;
  }

  /**
   * The snapshot after `event` of `source`, or `this` when nothing changed. Copies the small
   * map of sources (O(number of sources)), never a source's objects.
   */
  static next(
    merged: MergedStoreSnapshot,
    source: string,
    event: AnyWatchEvent,
    keyOf: (object: unknown) => string,
  ): MergedStoreSnapshot {
    const before = merged.#stores.get(source);
    // A source's first event makes it known, and so awaited by `synced`, even when it changes
    // nothing else, such as an isolated failure reported as ERROR.
    const after = StoreSnapshot.next(before ?? merged.#emptyStore, event, keyOf);
    if (after === before) return merged;
    // Only a source not known yet changes the list of sources: a source without a store is
    // listed only when it was declared.
    let { sources } = merged;
    if (!before && !sources.includes(source)) {
      sources = Object.freeze([...sources, source]);
    } else if (!before && after === merged.#emptyStore) {
      return merged;
    }
    const stores = new Map(merged.#stores);
    stores.set(source, after);
    return new MergedStoreSnapshot(stores, sources, merged.#emptyStore);
  }
}
