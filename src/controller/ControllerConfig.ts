import type { LifecycleEvent } from '../operators/resume/LifecycleEvent.js';
import type { Informers } from '../operators/createInformers.js';
import type { Indexers } from '../operators/index.js';
import type { Store } from '../operators/store/Store.js';
import type { Cluster, KubernetesObject, ResourceRef, WatchOptions } from '../types.js';
import type { Action } from './Action.js';
import type { ReconcileQueueConfig } from './ReconcileQueueConfig.js';

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
 * and attempt, and the controller's stores.
 *
 * @example
 * reconcile: async (object, { key, signal }) => (object ? ensure(object, signal) : cleanUp(key));
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
  /** Called once, when every store is synced (readiness probes). */
  onSynced?: () => void;
}
