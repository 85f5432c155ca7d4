import type { Observable } from 'rxjs';
import { eventRecorder } from './events/eventRecorder.js';
import { checkControllerConfig } from './checkControllerConfig.js';
import {
  asyncScheduler,
  EMPTY,
  Subject,
  defer,
  finalize,
  merge,
  mergeMap,
  retry,
  timer,
} from 'rxjs';
import { createInformers, type Informers } from '../operators/createInformers.js';
import { informerChanges } from '../operators/informerChanges.js';
import { StoreIndexes } from '../operators/store/IndexedObjects.js';
import type { Store } from '../operators/store/Store.js';
import { apiVersionOf } from '../objects/resources.js';
import { defaultKey, namespacedKey } from '../objects/defaultKey.js';
import { resourceIdentity } from '../objects/resourceIdentity.js';
import { structuralKey } from '../objects/structuralKey.js';
import { backoffDelay } from '../operators/resume/backoffDelay.js';
import type { KubernetesObject, ResourceRef } from '../types.js';
import type { ControllerConfig, ControllerSource, ControllerStores } from './ControllerConfig.js';
import { gatedReconcileQueue } from './reconcileQueue.js';
import { Expectations } from './expectations/Expectations.js';
import { writesOf } from './expectations/writesOf.js';
import type { ReconcileReport } from './ReconcileReport.js';
import { watchedStore, type WatchedStoreConfig } from './watchedStore.js';
import { foldedChanges } from './foldedChanges.js';
import { shardedController, type MemberHooks } from './sharding/shardedController.js';

/** What a MODIFIED primary must change to trigger a run, by default. */
function defaultTriggerOn(object: KubernetesObject): unknown {
  const metadata = object.metadata;
  return [
    metadata?.generation,
    metadata?.labels,
    metadata?.annotations,
    metadata?.deletionTimestamp,
    metadata?.finalizers,
  ];
}

/**
 * The whole control loop on shared informers: watches `for` (the primary resource), `owns` and
 * `watches`, maps every change to primary keys, and runs `reconcile` through `reconcileQueue`
 * (its guarantees and configuration), emitting a `ReconcileReport` per run.
 *
 * - Level-triggered: `reconcile` gets the primary object as the store holds it when the run
 *   starts (`undefined` once deleted), never the event that triggered it.
 * - No run before every store is synced; then every primary object is triggered once.
 * - A MODIFIED primary triggers only when `triggerOn(object)` changed (status churn does not);
 *   ADDED and DELETED always do. A change to an owned object triggers the primary named by
 *   its controller ownerReference; a change to a watched object triggers what `map` returns.
 * - The store before the trigger: each watched resource is one subscription that folds an
 *   event into its store, then hands on the keys it triggers (`watchedStore`), so a run never
 *   reads a store older than the event that triggered it.
 * - Read your own writes: `ctx.api(resource)` writes through `resourceApi`; the key's next run
 *   waits until its stores show each write (or `expectationTimeoutMs`, reported `staleRead`).
 * - Watches are shared through `informers` (given, or its own) and never end the controller:
 *   its own resume with `onRefused: 'retry'`; a shared one that fails is subscribed again
 *   (runs read the old store until the new one has synced).
 * - Sharded (`sharding`): one member of a ring of controllers over the same primary objects,
 *   each reconciling only those the ring's sharder assigned to it (a label), moved between
 *   members through a drain handshake: no key ever runs on two members at once.
 *
 * ```
 * deployments:  -A----M(status)--M(spec)---D--
 * pods (owned): ----M--------------------------
 * reports:      -r---r-----------r---------r--   (the last one saw `undefined`)
 * ```
 *
 * @example
 * controller({
 *   cluster: kc,
 *   for: { resource: deployments },
 *   owns: [{ resource: replicasets, indexes: { byOwner: ownerIndex } }],
 *   reconcile: async (deployment, { stores, api }) => {
 *     if (!deployment) return; // deleted: owned objects go with it
 *     const owned = stores.get(replicasets)?.byIndex('byOwner', deployment.metadata!.uid!) ?? [];
 *     // Created once: the next run waits until the replicasets store holds it.
 *     if (owned.length === 0) await api(replicasets).create(replicaSetFor(deployment));
 *   },
 * }).subscribe((report) => report.outcome === 'error' && console.error(report));
 */
export function controller<T extends KubernetesObject>(
  config: ControllerConfig<T>,
): Observable<ReconcileReport> {
  return runController(config, undefined);
}

/** `controller`, with a sharded member's hooks into its queue when it runs as one. */
function runController<T extends KubernetesObject>(
  config: ControllerConfig<T>,
  member: MemberHooks<T> | undefined,
): Observable<ReconcileReport> {
  checkControllerConfig(config);
  // Sharded: one member of a ring, running this controller over its own objects only.
  if (config.sharding !== undefined) {
    const { sharding, ...unsharded } = config;
    return shardedController(unsharded, sharding, runController);
  }
  const {
    cluster,
    informers: shared,
    for: primary,
    owns = [],
    watches = [],
    reconcile,
    resyncMs,
    triggerOn = defaultTriggerOn as (object: T) => unknown,
    onLifecycle,
    onSynced,
    expectationTimeoutMs = 30_000,
    recorder: givenRecorder,
    ...queueConfig
  } = config;
  const scheduler = queueConfig.scheduler ?? asyncScheduler;
  const random = queueConfig.random ?? Math.random;
  return defer(() => {
    const informers: Informers =
      shared ??
      createInformers({
        scheduler,
        // 401/403/404 retried for ever: RBAC and CRDs often come after the controller.
        resilience: { onRefused: 'retry' },
        onLifecycle: onLifecycle && ((resource, event) => onLifecycle(resource, event)),
      });
    const sources: ControllerSource<any>[] = [primary, ...owns, ...watches];
    const identities = sources.map((source) => resourceIdentity(source.resource));
    // The latest synced store of each source, published before any key its event triggers.
    const latest: Array<Store<any, string> | undefined> = sources.map(() => undefined);
    let synced = false;
    const stores: ControllerStores = {
      get: <U>(resource: ResourceRef<U>) => {
        let index = sources.findIndex((source) => source.resource === resource);
        if (index < 0) index = identities.indexOf(resourceIdentity(resource));
        return latest[index] as Store<U, string> | undefined;
      },
    };
    const primaryStore = () => latest[0] as Store<T, string> | undefined;
    const expectations = new Expectations(expectationTimeoutMs, scheduler, (index, objectKey) =>
      latest[index]?.get(objectKey),
    );
    const api = writesOf(cluster, sources, expectations);
    const recorder =
      givenRecorder ??
      eventRecorder(cluster, {
        reportingController: 'kube-rx',
        reportingInstance: 'kube-rx',
        scheduler,
      });
    // Every primary key once, when the last store syncs.
    const syncKeys = new Subject<string>();

    const forever = <V>(source: Observable<V>) =>
      source.pipe(
        retry({
          // The resumer's backoff, jitter included: controllers sharing an informer that
          // failed do not all come back at the same moment.
          delay: (_, n) => timer(backoffDelay(n, random), scheduler),
          resetOnSuccess: true,
        }),
      );

    const watched = <U extends KubernetesObject>(
      index: number,
      keysOfObject: (object: U) => readonly string[],
      keysOfEvent: WatchedStoreConfig<U>['keysOf'] = (event) => keysOfObject(event.object),
    ) => {
      const source = sources[index] as ControllerSource<U>;
      const { resource, options = {} } = source;
      const indexes = StoreIndexes.of(source.indexes) as StoreIndexes<U>;
      // The shared watch's own store (its objects folded once for everything on that watch,
      // this source's index maps kept beside them), or a fold of the events of informers that
      // were not made by createInformers.
      const changes =
        informerChanges(informers, cluster, resource, options, indexes) ??
        foldedChanges(informers.events(cluster, resource, options), indexes);
      return forever(
        watchedStore<U>(changes, {
          publish: (store) => {
            latest[index] = store;
            if (synced) return true;
            if (latest.every((s) => s !== undefined)) {
              synced = true;
              onSynced?.();
              for (const key of keysOf(primaryStore()!)) syncKeys.next(key);
            }
            return false;
          },
          observe: (event) => {
            if (expectations.waiting) {
              const { object } = event;
              expectations.observe(index, defaultKey(object), object, event.type === 'DELETED');
            }
          },
          keysOf: keysOfEvent,
          keysOfObject,
        }),
      );
    };

    const primaryApiVersion = apiVersionOf(primary.resource);
    const primaryKeys = watched<T>(
      0,
      (object) => [defaultKey(object)],
      // A MODIFIED primary triggers only when what `triggerOn` selects changed since the object
      // the store held: status churn does not run it again.
      (event, before) => {
        const key = defaultKey(event.object);
        if (event.type !== 'MODIFIED') return [key];
        const previous = before.get(key);
        if (previous === undefined) return [key];
        const changed =
          structuralKey(triggerOn(previous)) !== structuralKey(triggerOn(event.object));
        return changed ? [key] : [];
      },
    );
    const ownedKeys = owns.map((_, i) =>
      watched(1 + i, (object) => ownerKeys(object, primaryApiVersion, primaryStore())),
    );
    const watchedKeys = watches.map((source, i) =>
      watched(1 + owns.length + i, (object) => source.map(object, stores)),
    );
    const resync =
      resyncMs !== undefined && resyncMs > 0
        ? timer(resyncMs, resyncMs, scheduler).pipe(
            mergeMap(() => (synced ? keysOf(primaryStore()!) : [])),
          )
        : EMPTY;

    return merge(syncKeys, primaryKeys, ...ownedKeys, ...watchedKeys, resync).pipe(
      gatedReconcileQueue(
        // `signal` is forwarded, not read: a run makes its AbortController only when asked.
        (key, run) =>
          reconcile(primaryStore()!.get(key), {
            key,
            get signal() {
              return run.signal;
            },
            attempt: run.attempt,
            stores,
            api: (resource) => api(key, resource),
            resource: primary.resource,
            recorder,
          }),
        queueConfig,
        expectations,
        member && {
          test: (key) => {
            const store = primaryStore();
            return store !== undefined && member.express(store.get(key), key);
          },
          concurrency: member.expressConcurrency,
        },
      ),
      finalize(() => {
        expectations.close();
        if (recorder !== givenRecorder) recorder.close();
      }),
    );
  });
}

function keysOf(store: Store<KubernetesObject, string>): string[] {
  return store.values().map(defaultKey);
}

/**
 * The primary key named by an object's controller ownerReference of the primary's apiVersion
 * (same namespace, or cluster-scoped). When the store holds an object under that key with
 * another uid, it is another kind's object of the same name: no trigger.
 */
function ownerKeys(
  object: KubernetesObject,
  apiVersion: string,
  store: Store<KubernetesObject, string> | undefined,
): string[] {
  const reference = object.metadata?.ownerReferences?.find(
    (ref) => ref.controller === true && ref.apiVersion === apiVersion,
  );
  if (!reference?.name) return [];
  const namespace = object.metadata?.namespace;
  const candidates = namespace
    ? [namespacedKey(namespace, reference.name), reference.name]
    : [reference.name];
  for (const key of candidates) {
    const owner = store?.get(key);
    if (owner) return owner.metadata?.uid === reference.uid ? [key] : [];
  }
  return [candidates[0]!];
}
