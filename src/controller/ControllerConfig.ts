import type { EventRecorder } from './events/eventRecorder.js';
import type { LifecycleEvent } from '../operators/resume/LifecycleEvent.js';
import type { Informers } from '../operators/createInformers.js';
import type { Indexers } from '../operators/index.js';
import type { Store } from '../operators/store/Store.js';
import type { Cluster, KubernetesObject, ResourceRef, WatchOptions } from '../types.js';
import type { ResourceApi } from '../client/write/ResourceApiTypes.js';
import type { Action } from './Action.js';
import type { ReconcileQueueConfig } from './ReconcileQueueConfig.js';
import type { ShardingConfig } from './sharding/ShardingConfig.js';

/**
 * The synced stores of a controller's `for`, `owns` and `watches`, with their indexes:
 * `stores.get(pods)` is the latest snapshot of the first of them over that resource.
 *
 * @example
 * const children = stores.get(pods)?.byIndex('byOwner', deployment.metadata!.uid!) ?? [];
 */
export interface ControllerStores {
  /** The synced store of `resource` (the first source over it), with its indexes. */
  get<T>(resource: ResourceRef<T>): Store<T, string> | undefined;
}

/**
 * A watched resource of a controller: what to watch (`options`: namespace, selectors) and the
 * indexes its store keeps (as `toStore`'s), which `reconcile` and `map` read through `stores`.
 *
 * @example
 * const owned: ControllerSource<V1Pod> = { resource: pods, indexes: { byOwner: ownerIndex } };
 */
export interface ControllerSource<T = KubernetesObject> {
  /** What to watch. */
  resource: ResourceRef<T>;
  /** Namespace, selectors and the other options of its watch. */
  options?: WatchOptions;
  /** Indexes of its store (as `toStore`'s), for `watches` maps and the reconciler. */
  indexes?: Indexers<T>;
}

/**
 * What `reconcile` gets besides the object: its key (`namespace/name`), the run's abort signal
 * and attempt, the controller's stores, and `api` to write with (read-your-own-writes).
 *
 * @example
 * reconcile: async (object, { key, signal }) => (object ? ensure(object, signal) : cleanUp(key));
 *
 * @example
 * reconcile: async (deployment, { stores, api }) => {
 *   if (!deployment || stores.get(configmaps)?.get('shop', 'web-config')) return;
 *   // Created once: the next run of this key waits until the configmaps store has it.
 *   await api(configmaps).create({ metadata: { name: 'web-config', namespace: 'shop' } });
 * };
 */
export interface ControllerContext {
  /** The primary object's key (`namespace/name`). */
  key: string;
  /** Aborts when the controller is unsubscribed or leadership is lost. */
  signal: AbortSignal;
  /** 1, or n while the key's backoff is at its n-th attempt. */
  attempt: number;
  /** The synced stores of every source, with their indexes. */
  stores: ControllerStores;
  /**
   * `resourceApi(cluster, resource)` on the controller's cluster, whose every successful write
   * (create, replace, patch, apply, delete, `status.*`, `scale.*`; not `dryRun`) is remembered
   * for this key: the key's next run starts only once each written object is seen by the
   * controller's store of its resource (`for`, `owns` or `watches`), or after
   * `expectationTimeoutMs` (that run's report then says `staleRead`). Seen means the store holds
   * the object at the resourceVersion the write returned, or an event of the object arrived
   * after the write returned (resourceVersions are opaque: no ordering), or, for a delete, the
   * object is gone. A write to a resource the controller does not watch, or that lands only in
   * stores with a label or field selector, waits for nothing.
   */
  api<U>(resource: ResourceRef<U>): ResourceApi<U>;
  /** The primary resource (`config.for.resource`): what `finalizer` patches. */
  resource: ResourceRef<any>;
  /**
   * Records Kubernetes Events about objects, off the run's path (never awaited, never failing
   * it): `config.recorder`, or one of the controller's own reporting as `kube-rx`.
   */
  recorder: EventRecorder;
}

/**
 * Configuration of `controller`: what to watch, how to map changes to primary keys, the
 * reconcile, and the queue's own configuration (`reconcileQueue`'s).
 *
 * @example
 * controller({ cluster: kc, for: { resource: deployments }, reconcile: async (d) => {} });
 */
export interface ControllerConfig<
  T extends KubernetesObject = KubernetesObject,
> extends ReconcileQueueConfig {
  /** The cluster to watch: a KubeConfig or a ClusterConnection. */
  cluster: Cluster;
  /** A `createInformers()` to share watches with (a dashboard in the same process); else its own. */
  informers?: Informers;
  /** The primary resource: one key per object (`namespace/name`). */
  for: ControllerSource<T>;
  /** Objects whose controller ownerReference names a primary object trigger that object. */
  owns?: ControllerSource<any>[];
  /** Any other trigger: an object of this resource maps to primary keys. */
  watches?: Array<
    ControllerSource<any> & {
      /** The keys of the primary objects a change of `object` concerns. */
      map: (object: any, stores: ControllerStores) => string[];
    }
  >;
  /** The primary object as the store holds it when the run starts (`undefined`: deleted). */
  reconcile: (object: T | undefined, context: ControllerContext) => Promise<Action | void>;
  /** Every key is triggered again this often (default: never). */
  resyncMs?: number;
  /**
   * What a MODIFIED primary must change to trigger a run, compared structurally (default: the
   * generation, labels, annotations, deletionTimestamp and finalizers).
   */
  triggerOn?: (object: T) => unknown;
  /** Each watch's lifecycle (its own informers only: shared ones report to their creator). */
  onLifecycle?: (resource: ResourceRef<any>, event: LifecycleEvent) => void;
  /**
   * What `ctx.recorder` writes Events with: an `eventRecorder(cluster, { reportingController,
   * reportingInstance })` naming your controller and replica (default: one of the controller's
   * own, reporting as `kube-rx`, closed when the controller is unsubscribed).
   */
  recorder?: EventRecorder;
  /** Called once, when every store is synced (readiness probes). */
  onSynced?: () => void;
  /**
   * How long a key's next run waits, at most, for the writes of its previous runs (through
   * `ctx.api`) to reach the stores, from its latest write (default 30 000 ms). The run that
   * starts when it runs out reports `staleRead: true`.
   */
  expectationTimeoutMs?: number;
  /**
   * Makes this process one member of a ring of controllers that share the primary objects
   * (see {@link ShardingConfig}): each member reconciles only the objects assigned to it by the
   * ring's sharder, and no key is ever reconciled by two members at once.
   */
  sharding?: ShardingConfig;
}
