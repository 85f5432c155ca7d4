import type { MergedStore } from './Store.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import { StoreSnapshot } from './StoreSnapshot.js';

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
