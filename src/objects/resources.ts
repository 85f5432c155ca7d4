import { assertObjectArgument, describeType, quoteValue } from './argumentChecks.js';
import { versionOf } from './versionOf.js';
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
import { isValidKind } from './ResourceType.js';

/** What {@link resource} knows of a resource beside its path: what writes need. */
export interface ResourceOptions {
  /** The objects' kind, e.g. `'CronTab'`: an apply body carries it. */
  kind?: string;
  /** Whether objects live in namespaces (default true). */
  namespaced?: boolean;
}

/**
 * A typed {@link ResourceRef} from `group/version` (or `version` for the core group) and a
 * plural, with the kind and scope that writes need. Validated at once: a typo throws a
 * `WatchError` BAD_REQUEST here rather than later.
 *
 * @example
 * const crontabs = resource<CronTab>('stable.example.com/v1', 'crontabs', { kind: 'CronTab' });
 * const deployments = resource<V1Deployment>('apps/v1', 'deployments', { kind: 'Deployment' });
 * const nodes = resource<V1Node>('v1', 'nodes', { kind: 'Node', namespaced: false });
 */
export function resource<T = KubernetesObject>(
  groupVersion: string,
  plural: string,
  options: ResourceOptions = {},
): ResourceRef<T> {
  if (typeof groupVersion !== 'string')
    throw new TypeError(
      `resource: groupVersion must be a string, not ${describeType(groupVersion)}`,
    );
  if (typeof plural !== 'string')
    throw new TypeError(`resource: plural must be a string, not ${describeType(plural)}`);
  assertObjectArgument('resource', 'options', options, true);
  const { kind, namespaced } = options;
  const slash = groupVersion.lastIndexOf('/');
  const ref: ResourceRef<T> = {
    group: slash === -1 ? '' : groupVersion.slice(0, slash),
    version: slash === -1 ? groupVersion : groupVersion.slice(slash + 1),
    plural,
    ...(kind !== undefined && { kind }),
    ...(namespaced !== undefined && { namespaced }),
  };
  // Validates every segment, as each request will: the same BAD_REQUEST, thrown now.
  resourcePath(ref);
  if (kind !== undefined && !isValidKind(kind))
    throw new TypeError(
      `resource: invalid kind ${quoteValue(kind)}: letters and digits, a letter first, such as 'CronTab'`,
    );
  if (namespaced !== undefined && typeof namespaced !== 'boolean')
    throw new TypeError('resource: namespaced must be a boolean');
  return Object.freeze(ref);
}

/** The `apiVersion` of a resource's objects: `group/version`, or `version` for the core group. */
export function apiVersionOf(resource: ResourceRef<unknown>): string {
  const version = versionOf(resource);
  return resource.group === '' ? version : `${resource.group}/${version}`;
}

/** Pods (`/api/v1/pods`), typed `V1Pod`. @example fromWatch(kc, pods) */
export const pods: ResourceRef<V1Pod> = resource<V1Pod>('v1', 'pods', {
  kind: 'Pod',
});
/** Services (`/api/v1/services`), typed `V1Service`. @example fromWatch(kc, services) */
export const services: ResourceRef<V1Service> = resource<V1Service>('v1', 'services', {
  kind: 'Service',
});
/** ConfigMaps (`/api/v1/configmaps`), typed `V1ConfigMap`. @example fromWatch(kc, configmaps) */
export const configmaps: ResourceRef<V1ConfigMap> = resource<V1ConfigMap>('v1', 'configmaps', {
  kind: 'ConfigMap',
});
/** Nodes (`/api/v1/nodes`, cluster-scoped), typed `V1Node`. @example fromWatch(kc, nodes) */
export const nodes: ResourceRef<V1Node> = resource<V1Node>('v1', 'nodes', {
  kind: 'Node',
  namespaced: false,
});
/** Namespaces (`/api/v1/namespaces`, cluster-scoped), typed `V1Namespace`. @example fromWatch(kc, namespaces) */
export const namespaces: ResourceRef<V1Namespace> = resource<V1Namespace>('v1', 'namespaces', {
  kind: 'Namespace',
  namespaced: false,
});
/** Events (`/api/v1/events`), typed `CoreV1Event`. @example fromWatch(kc, events) */
export const events: ResourceRef<CoreV1Event> = resource<CoreV1Event>('v1', 'events', {
  kind: 'Event',
});
/** Deployments (`/apis/apps/v1/deployments`), typed `V1Deployment`. @example fromWatch(kc, deployments) */
export const deployments: ResourceRef<V1Deployment> = resource<V1Deployment>(
  'apps/v1',
  'deployments',
  {
    kind: 'Deployment',
  },
);
/** ReplicaSets (`/apis/apps/v1/replicasets`), typed `V1ReplicaSet`. @example fromWatch(kc, replicasets) */
export const replicasets: ResourceRef<V1ReplicaSet> = resource<V1ReplicaSet>(
  'apps/v1',
  'replicasets',
  {
    kind: 'ReplicaSet',
  },
);
