import { resourceIdentity } from '../objects/resourceIdentity.js';
import { defaultKey } from '../objects/defaultKey.js';
import { watchRequest } from '../client/watch/watchRequest.js';
import { assertObjectArgument, isObjectArgument } from '../objects/argumentChecks.js';
import { type Observable, asyncScheduler, defer, type SchedulerLike } from 'rxjs';
import type { WatchSource } from '../sources/WatchSource.js';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import { SharedWatch, type StoreFold } from './share/SharedWatch.js';
import { registerInformerChanges } from './informerChanges.js';
import { StoreIndexes, type Indexers } from './store/IndexedObjects.js';
import type { LifecycleEvent } from './resume/LifecycleEvent.js';
import { resilientWatch, type ResilientWatchConfig } from './resilientWatch.js';
import { toStore, type Store, type ToStoreConfig } from './toStore.js';

/**
 * Configuration of {@link createInformers}.
 *
 * @example
 * createInformers({ linger: 30_000 }); // a page that unsubscribes and comes back keeps its watch
 */
export interface InformersConfig {
  /**
   * How long, in ms, an upstream watch (and a shared store) stays open after its last subscriber
   * left (default 0: closed at once), so a subscriber that comes back soon finds it warm.
   */
  linger?: number;
  /** Where linger timers, backoffs and idle timers run (default `asyncScheduler`). */
  scheduler?: SchedulerLike;
  /**
   * How every upstream resumes: `resilientWatch`'s configuration (resume, bookmarks), but the
   * `key`, which stays the default (`namespace/name`) as upstreams are shared by stores of any key.
   */
  resilience?: Omit<ResilientWatchConfig, 'scheduler' | 'key'>;
  /**
   * Each upstream's lifecycle (connecting, backoff, relist...), told with the request it belongs
   * to, so one callback serves every resource: what a controller's metrics and logs need, with
   * no registry of its own on top of this one. Called besides `resilience.onLifecycle`; an
   * upstream shared by identical requests is told with the request that opened it.
   */
  onLifecycle?: (resource: ResourceRef<any>, event: LifecycleEvent, options: WatchOptions) => void;
  /**
   * How a request becomes a watch source (default `fromWatch`, through `resilientWatch`): a seam
   * for tests (a marble source) and for wrapping requests. It is called once per upstream, and
   * the source is made resilient as `resilientWatch` does.
   */
  source?: (
    cluster: Cluster,
    resource: ResourceRef<any>,
    options: WatchOptions,
  ) => WatchSource<any>;
}

/** What `.store()` folds with: `toStore`'s key and indexes. */
export type InformerStoreConfig<T, I extends string = never> = Pick<
  ToStoreConfig<T, never, I>,
  'key' | 'indexes'
>;

/**
 * Shared watches, made by {@link createInformers}.
 *
 * @example
 * const informers = createInformers();
 * informers.store(kc, pods, { namespace: 'prod' }).subscribe(render);
 */
export interface Informers {
  /**
   * The resumed events of a request, over the upstream shared by identical requests: a late
   * subscriber first gets ADDED for every object known and the initial-events-end BOOKMARK
   * (as `shareWatch` gives), then live events. Errors with a `WatchError` when the upstream
   * fails for good (403, 404...); subscribing again then opens a new upstream.
   */
  events<T = KubernetesObject>(
    cluster: Cluster,
    resource: ResourceRef<T>,
    options?: WatchOptions,
  ): Observable<WatchEvent<T>>;
  /**
   * The store of a request, shared by every subscriber with an equal `storeConfig` (the same key
   * function and the same indexer functions under the same names): a late subscriber gets the
   * current snapshot at once, synchronously on subscribe, then every later one. With the default
   * key (given or not) the objects are folded once per event for the store and for what a late
   * `events` subscriber replays, indexes kept beside them; another key folds them again.
   */
  store<T = KubernetesObject, I extends string = never>(
    cluster: Cluster,
    resource: ResourceRef<T>,
    options?: WatchOptions,
    storeConfig?: InformerStoreConfig<T, I>,
  ): Observable<Store<T, I>>;
  /** How many upstream watches are open now (lingering ones included). */
  readonly size: number;
}

/**
 * Shared watches, like client-go's SharedInformerFactory: identical requests share one resilient
 * upstream (`resilientWatch`), opened by the first
 * subscriber and closed `linger` ms after the last one leaves (reference counting).
 *
 * Identical means the same cluster object (`===`), and equal group, version, plural and shape
 * of the resource, namespace, label selector and field selector. Other watch options (such as a
 * `logger`) are those of the request that opened the upstream. Stores share too: `.store()` with
 * an equal `storeConfig` gives every subscriber the same snapshots, folded once.
 *
 * ```
 * informers.store(kc, pods) x 50 subscribers:  one watch on the server, one fold
 * informers.store(kc, pods, { labelSelector: 'app=web' }):  another watch
 * last subscriber leaves at t:  the watch closes at t + linger
 * ```
 *
 * @example
 * const informers = createInformers({ linger: 10_000 });
 * const pods$ = informers.store(kc, pods, {}, { indexes: { byOwner: ownerIndex } });
 * pods$.subscribe((s) => renderReplicaSet(s.byIndex('byOwner', rsUid))); // one watch for both
 * pods$.subscribe((s) => renderCount(s.size));
 * informers.events(kc, pods).pipe(ofEventType('DELETED')).subscribe(logDeletion); // same watch
 *
 * @example
 * // One callback for every upstream, told which request each event is about.
 * createInformers({ onLifecycle: (resource, e) => log(`${resource.plural}: ${e.type}`) });
 */
export function createInformers(config: InformersConfig = {}): Informers {
  assertObjectArgument('createInformers', 'config', config, true);
  const { linger = 0, scheduler = asyncScheduler, resilience = {}, source, onLifecycle } = config;
  // Per cluster object (weakly, so a dropped cluster frees its entries), per request identity.
  const byCluster = new WeakMap<Cluster, Map<string, SharedWatch>>();
  let size = 0;

  const sharedWatch = (cluster: Cluster, resource: ResourceRef<any>, options: WatchOptions) => {
    // What cannot be shared (no cluster object to key by, a request that is invalid) is not:
    // one unshared resilientWatch answers it with its WatchError, and nothing is sent.
    if (!isObjectArgument(cluster) || 'error' in watchRequest(resource, options)) {
      return new SharedWatch(resilientWatch(cluster, resource, options), 0, scheduler, () => {});
    }
    let watches = byCluster.get(cluster);
    if (!watches) byCluster.set(cluster, (watches = new Map()));
    const identity = requestIdentity(resource, options);
    let shared = watches.get(identity);
    if (!shared) {
      // `source` (a marble source in tests) goes through resilientWatch like fromWatch does.
      const upstream = defer(() =>
        resilientWatch(cluster, resource, options, {
          ...resilience,
          scheduler,
          ...(source && { source }),
          ...(onLifecycle && { onLifecycle: lifecycleOf(resource, options) }),
        }),
      );
      const created = new SharedWatch(upstream, linger, scheduler, () => {
        size--;
        if (watches.get(identity) === created) watches.delete(identity);
      });
      watches.set(identity, (shared = created));
      size++;
    }
    return shared;
  };

  // The request's own callback, with `resilience.onLifecycle` still told first.
  const lifecycleOf =
    (resource: ResourceRef<any>, options: WatchOptions) => (event: LifecycleEvent) => {
      resilience.onLifecycle?.(event);
      onLifecycle?.(resource, event, options);
    };

  const informers: Informers = {
    get size() {
      return size;
    },
    events: <T>(cluster: Cluster, resource: ResourceRef<T>, options: WatchOptions = {}) =>
      defer(() => sharedWatch(cluster, resource, options).events() as Observable<WatchEvent<T>>),
    store: <T, I extends string = never>(
      cluster: Cluster,
      resource: ResourceRef<T>,
      options: WatchOptions = {},
      storeConfig: InformerStoreConfig<T, I> = {},
    ) => {
      assertObjectArgument('informers.store', 'storeConfig', storeConfig, true);
      return defer(() => {
        const shared = sharedWatch(cluster, resource, options);
        const config = storeConfig as InformerStoreConfig<unknown, string>;
        const key = config.key === defaultKey ? undefined : config.key;
        // A store of the default key is the shared watch's own (its objects folded once with
        // what a late events subscriber replays, its indexes kept beside them); another key
        // folds the events again.
        const how: StoreFold | StoreIndexes<unknown> = key
          ? (events) => events.pipe(toStore({ key, indexes: config.indexes }))
          : StoreIndexes.of(config.indexes);
        return shared.store(storeIdentity(config), how) as Observable<Store<T, I>>;
      });
    },
  };
  // The controller's way to the same shared watch: its store's changes, no fold of its own.
  registerInformerChanges(informers, (cluster, resource, options, indexes) =>
    defer(() => sharedWatch(cluster, resource, options).changes(indexes)),
  );
  return informers;
}

/** The request fields that make two requests the same watch. */
function requestIdentity(resource: ResourceRef<any>, options: WatchOptions): string {
  const { namespace, labelSelector, fieldSelector } = options;
  return JSON.stringify([
    resourceIdentity(resource),
    namespace ?? null,
    labelSelector ?? null,
    fieldSelector ?? null,
  ]);
}

// Functions have no value to compare: each gets a number the first time it is seen.
const functionIds = new WeakMap<(...args: never[]) => unknown, number>();
let nextFunctionId = 1;

function functionId(fn: ((...args: never[]) => unknown) | undefined): number {
  if (fn === undefined) return 0;
  let id = functionIds.get(fn);
  if (id === undefined) functionIds.set(fn, (id = nextFunctionId++));
  return id;
}

/**
 * Equal for the same key function and the same indexer functions under the same names (the
 * default key, given or not, is one key).
 */
function storeIdentity(storeConfig: InformerStoreConfig<unknown, string>): string {
  const indexes: Indexers<unknown> = storeConfig.indexes ?? {};
  const names = Object.keys(indexes).sort();
  const key = storeConfig.key === defaultKey ? undefined : storeConfig.key;
  return JSON.stringify([functionId(key), names.map((name) => [name, functionId(indexes[name])])]);
}
