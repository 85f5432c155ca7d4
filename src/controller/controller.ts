import { checkControllerConfig } from './checkControllerConfig.js';
import { versionOf } from '../objects/versionOf.js';
import {
  asyncScheduler,
  Observable,
  defer,
  EMPTY,
  filter,
  map,
  merge,
  mergeMap,
  retry,
  timer,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import { changedBy } from '../operators/changedBy.js';
import { createInformers, type Informers } from '../operators/createInformers.js';
import type { Store } from '../operators/store/Store.js';
import { apiVersionOf } from '../objects/resources.js';
import { defaultKey, namespacedKey } from '../objects/defaultKey.js';
import { backoffDelay } from '../operators/resume/backoffDelay.js';
import type { KubernetesObject, ResourceRef, WatchEvent } from '../types.js';
import type { ControllerConfig, ControllerSource, ControllerStores } from './ControllerConfig.js';
import { reconcileQueue } from './reconcileQueue.js';
import type { ReconcileReport } from './ReconcileReport.js';

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
 * - Watches are shared through `informers` (given, or its own) and never end the controller:
 *   its own resume with `onRefused: 'retry'`; a shared one that fails is subscribed again.
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
 *   owns: [{ resource: replicasets }],
 *   reconcile: async (deployment, { key }) => {
 *     if (!deployment) return; // deleted: owned objects go with it
 *     await ensureReplicaSet(deployment);
 *   },
 * }).subscribe((report) => report.outcome === 'error' && console.error(report));
 */
export function controller<T extends KubernetesObject>(
  config: ControllerConfig<T>,
): Observable<ReconcileReport> {
  checkControllerConfig(config);
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
    ...queueConfig
  } = config;
  const scheduler = queueConfig.scheduler ?? asyncScheduler;
  const random = queueConfig.random ?? Math.random;
  return defer(() => {
    const sources: ControllerSource<any>[] = [primary, ...owns, ...watches];
    const informerOf = informersFor(shared, scheduler, onLifecycle);
    const latest: Array<Store<any, string> | undefined> = sources.map(() => undefined);
    let synced = false;
    const stores: ControllerStores = {
      get: <U>(resource: ResourceRef<U>) => {
        const index = sources.findIndex((source) => sameResource(source.resource, resource));
        return latest[index] as Store<U, string> | undefined;
      },
    };
    const primaryStore = () => latest[0] as Store<T, string>;

    const forever = <V>(source: Observable<V>) =>
      source.pipe(
        retry({
          // The resumer's backoff, jitter included: controllers sharing an informer that
          // failed do not all come back at the same moment.
          delay: (_, n) => timer(backoffDelay(n, random), scheduler),
          resetOnSuccess: true,
        }),
      );

    // Every store, kept as its latest snapshot; when all are synced, every primary key once.
    const storeKeys = merge(
      ...sources.map((source, index) =>
        forever(
          informerOf(source).store(cluster, source.resource, source.options ?? {}, {
            indexes: source.indexes,
          }),
        ).pipe(
          mergeMap((store) => {
            latest[index] = store as Store<any, string>;
            if (synced || !latest.every((s) => s?.synced)) return EMPTY;
            synced = true;
            onSynced?.();
            return keysOf(primaryStore());
          }),
        ),
      ),
    );
    const events = (source: ControllerSource<any>) =>
      forever(informerOf(source).events(cluster, source.resource, source.options ?? {})).pipe(
        filter(
          (event): event is Extract<WatchEvent<any>, { object: unknown }> =>
            event.type !== 'BOOKMARK' && event.type !== 'ERROR',
        ),
      );
    const primaryKeys = events(primary).pipe(
      changedBy(triggerOn as (object: unknown) => unknown),
      map((event) => defaultKey(event.object)),
    );
    const primaryApiVersion = apiVersionOf(primary.resource);
    const ownedKeys = owns.map((source) =>
      events(source).pipe(
        mergeMap((event) => ownerKeys(event.object, primaryApiVersion, primaryStore())),
      ),
    );
    const watchedKeys = watches.map((source) =>
      events(source).pipe(
        mergeMap((event) => source.map(event.object, stores) as ObservableInput<string>),
      ),
    );
    const resync =
      resyncMs !== undefined && resyncMs > 0
        ? timer(resyncMs, resyncMs, scheduler).pipe(mergeMap(() => keysOf(primaryStore())))
        : EMPTY;
    // Nothing runs before every store is synced (the sync then triggers every primary key).
    // Events reach the stores and these triggers in no set order: a microtask later, the store a
    // run reads holds the change that triggered it, and a key triggered by several events of one
    // chunk (MODIFIED then DELETED) is triggered once, not once more after the run they started.
    const triggers = merge(primaryKeys, ...ownedKeys, ...watchedKeys, resync).pipe(
      filter(() => synced),
      coalesceInMicrotask,
    );

    return merge(storeKeys, triggers).pipe(
      reconcileQueue(
        // `signal` is forwarded, not read: a run makes its AbortController only when asked.
        (key, run) =>
          reconcile(primaryStore().get(key), {
            key,
            get signal() {
              return run.signal;
            },
            attempt: run.attempt,
            stores,
          }),
        queueConfig,
      ),
    );
  });
}

/** The keys that arrived since the last microtask, each once, a microtask later. */
function coalesceInMicrotask(keys: Observable<string>): Observable<string> {
  return new Observable<string>((subscriber) => {
    let pending = new Set<string>();
    let closed = false;
    const flush = () => {
      const batch = pending;
      pending = new Set();
      for (const key of batch) if (!closed) subscriber.next(key);
    };
    const subscription = keys.subscribe({
      next: (key) => {
        if (pending.size === 0) queueMicrotask(flush);
        pending.add(key);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => queueMicrotask(() => (flush(), subscriber.complete())),
    });
    return () => {
      closed = true;
      subscription.unsubscribe();
    };
  });
}

/** The informers a source is watched through: the given ones, or its own per request. */
function informersFor(
  shared: Informers | undefined,
  scheduler: SchedulerLike,
  onLifecycle: ControllerConfig['onLifecycle'],
): (source: ControllerSource<any>) => Informers {
  if (shared) return () => shared;
  const own = new Map<string, Informers>();
  return (source) => {
    const { group, plural } = source.resource;
    const { namespace, labelSelector, fieldSelector } = source.options ?? {};
    const identity = JSON.stringify([
      group,
      versionOf(source.resource),
      plural,
      source.resource.shape,
      namespace,
      labelSelector,
      fieldSelector,
    ]);
    let informers = own.get(identity);
    if (!informers) {
      informers = createInformers({
        scheduler,
        resilience: {
          // 401/403/404 retried for ever: RBAC and CRDs often come after the controller.
          onRefused: 'retry',
          onLifecycle: onLifecycle && ((event) => onLifecycle(source.resource, event)),
        },
      });
      own.set(identity, informers);
    }
    return informers;
  };
}

function sameResource(a: ResourceRef<unknown>, b: ResourceRef<unknown>): boolean {
  return (
    a === b ||
    (a.group === b.group &&
      versionOf(a) === versionOf(b) &&
      a.plural === b.plural &&
      (a.shape ?? 'object') === (b.shape ?? 'object'))
  );
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
