import type { MergedStore } from './Store.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import { StoreSnapshot } from './StoreSnapshot.js';

/**
 * One immutable version of a merged store: one {@link StoreSnapshot} per source key. Immutable
 * as a StoreSnapshot is, by construction rather than by a freeze per event: private fields,
 * read through getters.
 */
export class MergedStoreSnapshot implements MergedStore<Record<string, unknown>> {
  readonly #stores: ReadonlyMap<string, StoreSnapshot<unknown>>;
  /** The store of a source that has none yet: empty, with the indexes of every source. */
  readonly #emptyStore: StoreSnapshot<unknown>;
  /** Frozen: it is handed out, and shared by the snapshots until a source is added. */
  readonly #sources: readonly string[];
  #synced: boolean | undefined = undefined;

  /** `sources`: the declared keys, then the other keys of `stores` in the order they came. */
  private constructor(
    stores: ReadonlyMap<string, StoreSnapshot<unknown>>,
    sources: readonly string[],
    emptyStore: StoreSnapshot<unknown>,
  ) {
    this.#stores = stores;
    this.#emptyStore = emptyStore;
    this.#sources = sources;
  }

  get sources(): readonly string[] {
    return this.#sources;
  }

  /** Computed once, when first read. */
  get synced(): boolean {
    const stores = this.#stores;
    const sources = this.#sources;
    return (this.#synced ??=
      sources.length > 0 && sources.every((key) => stores.get(key)?.synced === true));
  }

  /** What `JSON.stringify` shows of it: what a reader sees but the stores. */
  toJSON(): { sources: readonly string[]; synced: boolean } {
    return { sources: this.#sources, synced: this.synced };
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
    let sources = merged.#sources;
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
