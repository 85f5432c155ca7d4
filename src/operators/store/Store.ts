/**
 * An immutable snapshot of the objects of one watch. It never changes once emitted: hold on to
 * it as long as you like. The objects are the ones the events carried, neither copied nor
 * frozen: treat them as read-only. `I` names its indexes (see `ToStoreConfig.indexes`).
 *
 * @example
 * pods$.pipe(toStore()).subscribe((store: Store<V1Pod>) => {
 *   const web = store.get('default', 'web-1'); // same as store.get('default/web-1')
 *   console.log(store.size, store.synced, store.resourceVersion, store.values().length);
 * });
 */
export interface Store<T, I extends string = string> {
  /** The object stored under `key` (by default `namespace/name`, or `name` if cluster-scoped). */
  get(key: string): T | undefined;
  /**
   * The object named `name` in `namespace` (`undefined` or `''` for cluster-scoped objects):
   * `get(namespace + '/' + name)`, so it finds objects under the default key only.
   */
  get(namespace: string | undefined, name: string): T | undefined;
  /**
   * Every object, sorted by key. The array is built on the first call (O(n)), then shared by
   * later calls on the same snapshot, so it is frozen.
   */
  values(): readonly T[];
  /**
   * The objects the index `name` files under `value`, sorted by key, in a new frozen array:
   * O(log n + k). Part of the snapshot: it never changes once emitted. Throws a TypeError for a
   * name that `toStore({ indexes })` did not declare.
   *
   * @example
   * pods$.pipe(toStore({ indexes: { byNode: (pod: V1Pod) => pod.spec?.nodeName } }))
   *   .subscribe((store) => console.log(store.byIndex('byNode', 'node-1').length));
   */
  byIndex(name: I, value: string): readonly T[];
  /** How many objects the store holds. */
  readonly size: number;
  /** The resourceVersion of the last event applied (bookmarks included); none before any. */
  readonly resourceVersion: string | undefined;
  /** Whether an initial-events-end BOOKMARK has passed: the store then matches the server. */
  readonly synced: boolean;
}

/**
 * An immutable snapshot of a merged stream: one {@link Store} per source key, typed per key
 * (`M` maps each key to its object type, as in `MergedWatchEvent<M>`).
 *
 * @example
 * type Objects = { pods: V1Pod; deployments: V1Deployment };
 * merged$.pipe(toStore()).subscribe((s: MergedStore<Objects>) => {
 *   if (s.synced) render(s.store('deployments').values(), s.store('pods'));
 * });
 */
export interface MergedStore<M, I extends string = string> {
  /**
   * The store of `source` (with the indexes of `toStore`, which every source has); an empty,
   * unsynced store for a source that has sent nothing.
   */
  store<K extends keyof M & string>(source: K): Store<M[K], I>;
  /** The sources known: those declared in `config.sources`, then those seen, in that order. */
  readonly sources: readonly (keyof M & string)[];
  /** Whether every known source is synced (and at least one is known). */
  readonly synced: boolean;
}
