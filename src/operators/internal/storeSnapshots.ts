import type { MergedStore, Store } from '../toStore.js';
import { SortedMap } from './SortedMap.js';
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
  static readonly EMPTY = new StoreSnapshot<never>(SortedMap.empty(), undefined, false);

  // Private fields keep the map out of JSON.stringify and out of reach of users.
  readonly #objects: SortedMap<T>;
  #values: readonly T[] | undefined;

  private constructor(
    objects: SortedMap<T>,
    readonly resourceVersion: string | undefined,
    readonly synced: boolean,
  ) {
    this.#objects = objects;
    Object.freeze(this);
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

  /** The snapshot after `event`, or `this` when the event changes nothing a reader can see. */
  static next<T>(
    store: StoreSnapshot<T>,
    event: AnyWatchEvent,
    keyOf: (object: T) => string,
  ): StoreSnapshot<T> {
    if (event.type === 'ERROR') return store;
    const resourceVersion = resourceVersionOf(event) ?? store.resourceVersion;
    let objects = store.#objects;
    let synced = store.synced;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      objects = objects.set(keyOf(event.object), event.object);
    } else if (event.type === 'DELETED') {
      objects = objects.delete(keyOf(event.object));
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
    return new StoreSnapshot(objects, resourceVersion, synced);
  }
}

/** One immutable version of a merged store: one {@link StoreSnapshot} per source key. */
export class MergedStoreSnapshot implements MergedStore<Record<string, unknown>> {
  readonly #stores: ReadonlyMap<string, StoreSnapshot<unknown>>;
  readonly sources: readonly string[];
  readonly synced: boolean;

  /** `sources`: the declared keys, then the other keys of `stores` in the order they came. */
  private constructor(
    stores: ReadonlyMap<string, StoreSnapshot<unknown>>,
    sources: readonly string[],
  ) {
    this.#stores = stores;
    this.sources = sources;
    this.synced = sources.length > 0 && sources.every((key) => stores.get(key)?.synced === true);
    Object.freeze(this);
  }

  static empty(declared: readonly string[]): MergedStoreSnapshot {
    return new MergedStoreSnapshot(new Map(), Object.freeze([...declared]));
  }

  store(source: string): StoreSnapshot<unknown> {
    return this.#stores.get(source) ?? StoreSnapshot.EMPTY;
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
    const after = StoreSnapshot.next(before ?? StoreSnapshot.EMPTY, event, keyOf);
    if (after === before) return merged;
    // Only a source not known yet changes the list of sources: a source without a store is
    // listed only when it was declared.
    let { sources } = merged;
    if (!before && !sources.includes(source)) {
      sources = Object.freeze([...sources, source]);
    } else if (!before && after === StoreSnapshot.EMPTY) {
      return merged;
    }
    const stores = new Map(merged.#stores);
    stores.set(source, after);
    return new MergedStoreSnapshot(stores, sources);
  }
}
