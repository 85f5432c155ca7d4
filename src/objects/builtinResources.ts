import { singularOfKind } from './ResourceType.js';
import type { ResourceType } from './ResourceType.js';

// [group/version, plural, Kind, namespaced, short names]: the built-in kinds of kube-apiserver
// 1.32 that kube-rx knows (the test server serves them; the command knows the library's own refs
// among them without discovery), with the names and scopes `kubectl api-resources` shows.
const TABLE: Array<[string, string, string, boolean, string]> = [
  ['v1', 'configmaps', 'ConfigMap', true, 'cm'],
  ['v1', 'endpoints', 'Endpoints', true, 'ep'],
  ['v1', 'events', 'Event', true, 'ev'],
  ['v1', 'namespaces', 'Namespace', false, 'ns'],
  ['v1', 'nodes', 'Node', false, 'no'],
  ['v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, 'pvc'],
  ['v1', 'persistentvolumes', 'PersistentVolume', false, 'pv'],
  ['v1', 'pods', 'Pod', true, 'po'],
  ['v1', 'secrets', 'Secret', true, ''],
  ['v1', 'serviceaccounts', 'ServiceAccount', true, 'sa'],
  ['v1', 'services', 'Service', true, 'svc'],
  [
    'apiextensions.k8s.io/v1',
    'customresourcedefinitions',
    'CustomResourceDefinition',
    false,
    'crd,crds',
  ],
  ['apps/v1', 'daemonsets', 'DaemonSet', true, 'ds'],
  ['apps/v1', 'deployments', 'Deployment', true, 'deploy'],
  ['apps/v1', 'replicasets', 'ReplicaSet', true, 'rs'],
  ['apps/v1', 'statefulsets', 'StatefulSet', true, 'sts'],
  ['autoscaling/v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, 'hpa'],
  ['batch/v1', 'cronjobs', 'CronJob', true, 'cj'],
  ['batch/v1', 'jobs', 'Job', true, ''],
  ['coordination.k8s.io/v1', 'leases', 'Lease', true, ''],
  ['discovery.k8s.io/v1', 'endpointslices', 'EndpointSlice', true, ''],
  ['events.k8s.io/v1', 'events', 'Event', true, 'ev'],
  ['networking.k8s.io/v1', 'ingressclasses', 'IngressClass', false, ''],
  ['networking.k8s.io/v1', 'ingresses', 'Ingress', true, 'ing'],
  ['networking.k8s.io/v1', 'networkpolicies', 'NetworkPolicy', true, 'netpol'],
  ['policy/v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, 'pdb'],
  ['rbac.authorization.k8s.io/v1', 'clusterrolebindings', 'ClusterRoleBinding', false, ''],
  ['rbac.authorization.k8s.io/v1', 'clusterroles', 'ClusterRole', false, ''],
  ['rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', true, ''],
  ['rbac.authorization.k8s.io/v1', 'roles', 'Role', true, ''],
  ['scheduling.k8s.io/v1', 'priorityclasses', 'PriorityClass', false, 'pc'],
  ['storage.k8s.io/v1', 'storageclasses', 'StorageClass', false, 'sc'],
];

/** The built-in resources with a status subresource (their strategies keep status apart). */
const WITH_STATUS = new Set([
  'pods',
  'services',
  'nodes',
  'namespaces',
  'persistentvolumes',
  'persistentvolumeclaims',
  'customresourcedefinitions',
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
  'horizontalpodautoscalers',
  'ingresses',
  'poddisruptionbudgets',
]);

/**
 * The built-in resource types as kube-apiserver 1.32 lists them, in the order discovery does: the
 * one table of their kinds, scopes and short names.
 *
 * @example
 * BUILTIN_RESOURCES.find((t) => t.plural === 'deployments')?.shortNames; // ['deploy']
 */
export const BUILTIN_RESOURCES: readonly ResourceType[] = TABLE.map(
  ([groupVersion, plural, kind, namespaced, shortNames]) => {
    const slash = groupVersion.lastIndexOf('/');
    return {
      group: slash < 0 ? '' : groupVersion.slice(0, slash),
      version: groupVersion.slice(slash + 1),
      plural,
      singular: singularOfKind(kind),
      kind,
      namespaced,
      shortNames: shortNames === '' ? [] : shortNames.split(','),
      ...(WITH_STATUS.has(plural) && { subresources: { status: true } }),
    };
  },
);
