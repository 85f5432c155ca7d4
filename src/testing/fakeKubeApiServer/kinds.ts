const KNOWN_KINDS: Record<string, string> = {
  pods: 'Pod',
  services: 'Service',
  endpoints: 'Endpoints',
  configmaps: 'ConfigMap',
  secrets: 'Secret',
  namespaces: 'Namespace',
  nodes: 'Node',
  events: 'Event',
  serviceaccounts: 'ServiceAccount',
  persistentvolumes: 'PersistentVolume',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  deployments: 'Deployment',
  replicasets: 'ReplicaSet',
  statefulsets: 'StatefulSet',
  daemonsets: 'DaemonSet',
  jobs: 'Job',
  cronjobs: 'CronJob',
  ingresses: 'Ingress',
  ingressclasses: 'IngressClass',
  networkpolicies: 'NetworkPolicy',
  endpointslices: 'EndpointSlice',
  leases: 'Lease',
  horizontalpodautoscalers: 'HorizontalPodAutoscaler',
  poddisruptionbudgets: 'PodDisruptionBudget',
  roles: 'Role',
  rolebindings: 'RoleBinding',
  clusterroles: 'ClusterRole',
  clusterrolebindings: 'ClusterRoleBinding',
  storageclasses: 'StorageClass',
  customresourcedefinitions: 'CustomResourceDefinition',
  priorityclasses: 'PriorityClass',
};

/**
 * The kind for a plural: known core/apps/... plurals, otherwise a singularised, capitalised
 * plural (`widgets` -> `Widget`, `policies` -> `Policy`). A store adopts the `kind` of the first
 * object created with one, so custom resources get their real kind.
 */
export function kindForPlural(plural: string): string {
  const known = KNOWN_KINDS[plural];
  if (known !== undefined) return known;
  let singular = plural;
  if (/ies$/.test(plural)) singular = plural.slice(0, -3) + 'y';
  else if (/(s|x|z|ch|sh)es$/.test(plural)) singular = plural.slice(0, -2);
  else if (/s$/.test(plural)) singular = plural.slice(0, -1);
  return singular.charAt(0).toUpperCase() + singular.slice(1);
}
