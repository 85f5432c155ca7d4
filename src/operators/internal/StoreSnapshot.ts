import type { Store } from '../Store.js';
import { namespacedKey, type AnyWatchEvent } from './events.js';
import { emptyWatchState, foldEvent, type WatchState } from './foldEvent.js';
import { SortedMap } from './SortedMap.js';

/**
 * One immutable version of a store: `toStore` makes a new one per change from the previous
 * through {@link foldEvent}, sharing all but one path of the persistent map with it.
 */
export class StoreSnapshot<T> implements Store<T> {
  static readonly EMPTY = new StoreSnapshot<never>(emptyWatchState(SortedMap.empty()));

  // A private field keeps the state out of JSON.stringify and out of reach of users.
  readonly #state: WatchState<SortedMap<T>>;
  #values: readonly T[] | undefined;
  readonly resourceVersion: string | undefined;
  readonly synced: boolean;

  private constructor(state: WatchState<SortedMap<T>>) {
    this.#state = state;
    this.resourceVersion = state.resourceVersion;
    this.synced = state.initialEventsEnd !== undefined;
    Object.freeze(this);
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
    return (this.#values ??= Object.freeze(this.#state.objects.values()));
  }

  /** The snapshot after `event`, or `this` when the event changes nothing a reader can see. */
  static next<T>(
    store: StoreSnapshot<T>,
    event: AnyWatchEvent,
    keyOf: (object: T) => string,
  ): StoreSnapshot<T> {
    const state = foldEvent(store.#state, event, keyOf);
    return state === store.#state ? store : new StoreSnapshot(state);
  }
}
