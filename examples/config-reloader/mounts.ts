/**
 * Which ConfigMaps and Secrets a Deployment's pods read, and the store index that answers the
 * reverse question (which Deployments read this ConfigMap?) in O(log n) per lookup.
 *
 * A pod template reads a ConfigMap or a Secret through:
 * - a volume (`volumes[].configMap.name`, `volumes[].secret.secretName`), or a projected volume
 *   (`volumes[].projected.sources[].configMap.name` / `.secret.name`);
 * - `envFrom[].configMapRef.name` / `.secretRef.name` of a container or an init container;
 * - `env[].valueFrom.configMapKeyRef.name` / `.secretKeyRef.name`.
 */
import type { KubernetesObject, V1Container, V1Deployment } from '@kubernetes/client-node';

/** The kinds of configuration a pod mounts. */
export type ConfigKind = 'configmap' | 'secret';

/** The names (sorted, without duplicates) of the ConfigMaps and Secrets a Deployment reads. */
export interface MountedConfig {
  configmap: string[];
  secret: string[];
}

/** What a Deployment's pod template reads, by kind. */
export function mountedConfig(deployment: V1Deployment): MountedConfig {
  const configmap = new Set<string>();
  const secret = new Set<string>();
  const podSpec = deployment.spec?.template?.spec;
  for (const volume of podSpec?.volumes ?? []) {
    add(configmap, volume.configMap?.name);
    add(secret, volume.secret?.secretName);
    for (const source of volume.projected?.sources ?? []) {
      add(configmap, source.configMap?.name);
      add(secret, source.secret?.name);
    }
  }
  const containers: V1Container[] = [
    ...(podSpec?.containers ?? []),
    ...(podSpec?.initContainers ?? []),
  ];
  for (const container of containers) {
    for (const from of container.envFrom ?? []) {
      add(configmap, from.configMapRef?.name);
      add(secret, from.secretRef?.name);
    }
    for (const variable of container.env ?? []) {
      add(configmap, variable.valueFrom?.configMapKeyRef?.name);
      add(secret, variable.valueFrom?.secretKeyRef?.name);
    }
  }
  return { configmap: [...configmap].sort(), secret: [...secret].sort() };
}

function add(names: Set<string>, name: string | undefined): void {
  if (name) names.add(name);
}

/** The index value of one ConfigMap or Secret: `configmap/shop/web-config`. */
export function configRef(kind: ConfigKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The index value of a ConfigMap or Secret object, from its own namespace and name. */
export function configRefOf(kind: ConfigKind, object: KubernetesObject): string {
  return configRef(kind, object.metadata?.namespace ?? '', object.metadata?.name ?? '');
}

/**
 * The indexer of a Deployment store (`toStore({ indexes: { byConfig: mountIndex } })`, or the
 * controller's `for.indexes`): files a Deployment under every ConfigMap and Secret it reads,
 * in its own namespace (a pod cannot mount another namespace's).
 */
export function mountIndex(deployment: V1Deployment): string[] {
  const namespace = deployment.metadata?.namespace ?? '';
  const { configmap, secret } = mountedConfig(deployment);
  return [
    ...configmap.map((name) => configRef('configmap', namespace, name)),
    ...secret.map((name) => configRef('secret', namespace, name)),
  ];
}
