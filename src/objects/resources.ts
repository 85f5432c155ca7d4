import type {
  CoreV1Event,
  V1ConfigMap,
  V1Deployment,
  V1Namespace,
  V1Node,
  V1Pod,
  V1ReplicaSet,
  V1Service,
} from '@kubernetes/client-node';
import type { KubernetesObject, ResourceRef } from '../types.js';
import { resourcePath } from './resourcePath.js';

/**
 * A typed {@link ResourceRef} from `group/version` (or `version` for the core group) and a
 * plural. Validated at once: a typo throws a `WatchError` BAD_REQUEST here rather than later.
 *
 * @example
 * const crontabs = resource<CronTab>('stable.example.com/v1', 'crontabs');
 * const deployments = resource<V1Deployment>('apps/v1', 'deployments');
 * const pods = resource<V1Pod>('v1', 'pods');
 */
export function resource<T = KubernetesObject>(
  groupVersion: string,
  plural: string,
): ResourceRef<T> {
  const slash = groupVersion.lastIndexOf('/');
  const ref: ResourceRef<T> = {
    group: slash === -1 ? '' : groupVersion.slice(0, slash),
    apiVersion: slash === -1 ? groupVersion : groupVersion.slice(slash + 1),
    plural,
  };
  // Validates every segment, as each request will: the same BAD_REQUEST, thrown now.
  resourcePath(ref);
  return Object.freeze(ref);
}

/** The `apiVersion` of a resource's objects: `group/version`, or `version` for the core group. */
export function apiVersionOf(resource: ResourceRef<unknown>): string {
  return resource.group === '' ? resource.apiVersion : `${resource.group}/${resource.apiVersion}`;
}

/** Pods (`/api/v1/pods`), typed `V1Pod`. @example fromWatch(kc, pods) */
export const pods: ResourceRef<V1Pod> = resource<V1Pod>('v1', 'pods');
/** Services (`/api/v1/services`), typed `V1Service`. @example fromWatch(kc, services) */
export const services: ResourceRef<V1Service> = resource<V1Service>('v1', 'services');
/** ConfigMaps (`/api/v1/configmaps`), typed `V1ConfigMap`. @example fromWatch(kc, configmaps) */
export const configmaps: ResourceRef<V1ConfigMap> = resource<V1ConfigMap>('v1', 'configmaps');
/** Nodes (`/api/v1/nodes`, cluster-scoped), typed `V1Node`. @example fromWatch(kc, nodes) */
export const nodes: ResourceRef<V1Node> = resource<V1Node>('v1', 'nodes');
/** Namespaces (`/api/v1/namespaces`, cluster-scoped), typed `V1Namespace`. @example fromWatch(kc, namespaces) */
export const namespaces: ResourceRef<V1Namespace> = resource<V1Namespace>('v1', 'namespaces');
/** Events (`/api/v1/events`), typed `CoreV1Event`. @example fromWatch(kc, events) */
export const events: ResourceRef<CoreV1Event> = resource<CoreV1Event>('v1', 'events');
/** Deployments (`/apis/apps/v1/deployments`), typed `V1Deployment`. @example fromWatch(kc, deployments) */
export const deployments: ResourceRef<V1Deployment> = resource<V1Deployment>(
  'apps/v1',
  'deployments',
);
/** ReplicaSets (`/apis/apps/v1/replicasets`), typed `V1ReplicaSet`. @example fromWatch(kc, replicasets) */
export const replicasets: ResourceRef<V1ReplicaSet> = resource<V1ReplicaSet>(
  'apps/v1',
  'replicasets',
);
